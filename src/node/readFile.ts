// Streams a transcript file (or stdin) through the shared TranscriptReader, unwrapping
// gzip when the first bytes say so. Never holds the file in one string.
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { LineDecoder, LineSink } from '../ingest/lines.ts';
import { isGzip, TranscriptSplitter, type StructureErrorSink } from '../ingest/transcript.ts';

export interface ReadProgress {
  bytesRead: number;
  bytesTotal: number | null;
}

/** Each message (line or array element) is handed to `decode`, then to `sink`. */
export async function readTranscript<T>(
  path: string,
  sink: LineSink<T>,
  onStructureError: StructureErrorSink,
  decode: LineDecoder<T>,
  onProgress?: (p: ReadProgress) => void,
): Promise<{ format: string; gzip: boolean }> {
  const fromStdin = path === '-';
  const bytesTotal = fromStdin ? null : (await fs.promises.stat(path)).size;
  if (!fromStdin && !(await startsWithGzip(path))) return readPlainFileSync(path, bytesTotal ?? 0, new TranscriptSplitter(sink, onStructureError, decode), onProgress);
  const raw: Readable = fromStdin ? process.stdin : fs.createReadStream(path, { highWaterMark: 1 << 20 });
  const reader = new TranscriptSplitter(sink, onStructureError, decode);
  let bytesRead = 0;
  let gzip = false;
  let source: AsyncIterable<Buffer> = raw;
  const iterator = raw[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const first = await iterator.next();
  if (!first.done) {
    const head = first.value;
    gzip = isGzip(head);
    const rest = (async function* () {
      yield head;
      for (;;) {
        const r = await iterator.next();
        if (r.done) return;
        yield r.value;
      }
    })();
    if (gzip) {
      const gunzip = zlib.createGunzip({ chunkSize: 1 << 20 });
      (async () => {
        try {
          for await (const c of rest) {
            bytesRead += c.length;
            if (!gunzip.write(c)) await new Promise((r) => gunzip.once('drain', r));
          }
          gunzip.end();
        } catch (e) {
          gunzip.destroy(e as Error);
        }
      })();
      source = gunzip;
    } else {
      source = (async function* () {
        for await (const c of rest) {
          bytesRead += c.length;
          yield c;
        }
      })();
    }
  }
  for await (const chunk of source) {
    reader.push(chunk);
    onProgress?.({ bytesRead, bytesTotal });
  }
  reader.end();
  return { format: reader.format, gzip };
}

const CHUNK = 4 << 20;

async function startsWithGzip(path: string): Promise<boolean> {
  const fh = await fs.promises.open(path, 'r');
  try {
    const head = new Uint8Array(2);
    const { bytesRead } = await fh.read(head, 0, 2, 0);
    return isGzip(head.subarray(0, bytesRead));
  } finally {
    await fh.close();
  }
}

/**
 * A plain file is read with synchronous 4 MiB reads into one reused buffer: the reader
 * copies what it keeps, and a sync read skips the thread-pool round trip per chunk that
 * left a quarter of an async run idle (measured, bench/check.ts).
 */
function readPlainFileSync<T>(
  path: string,
  bytesTotal: number,
  reader: TranscriptSplitter<T>,
  onProgress?: (p: ReadProgress) => void,
): { format: string; gzip: boolean } {
  const fd = fs.openSync(path, 'r');
  const buf = Buffer.allocUnsafe(CHUNK);
  let bytesRead = 0;
  try {
    for (;;) {
      const n = fs.readSync(fd, buf, 0, CHUNK, null);
      if (n === 0) break;
      bytesRead += n;
      reader.push(buf.subarray(0, n));
      onProgress?.({ bytesRead, bytesTotal });
    }
  } finally {
    fs.closeSync(fd);
  }
  reader.end();
  return { format: reader.format, gzip: false };
}
