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
  if (!fromStdin && !(await startsWithGzip(path))) return readPlainFile(path, bytesTotal ?? 0, new TranscriptSplitter(sink, onStructureError, decode), onProgress);
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
 * A plain file is read in 4 MiB chunks into two buffers in turn: the read of the next
 * chunk runs on libuv's thread pool (the second core) while this one is split, parsed and
 * analysed, so the main thread never waits on the kernel's copy (about a tenth of a run
 * when it read synchronously; an async read awaited before each chunk left a quarter of the
 * run idle). The reader copies what it keeps, so a buffer is free again once pushed.
 */
async function readPlainFile<T>(
  path: string,
  bytesTotal: number,
  reader: TranscriptSplitter<T>,
  onProgress?: (p: ReadProgress) => void,
): Promise<{ format: string; gzip: boolean }> {
  const fh = await fs.promises.open(path, 'r');
  const buffers = [Buffer.allocUnsafe(CHUNK), Buffer.allocUnsafe(CHUNK)];
  let bytesRead = 0;
  let k = 0;
  let next: Promise<{ bytesRead: number }> | null = fh.read(buffers[k]!, 0, CHUNK, null);
  try {
    for (;;) {
      const { bytesRead: n } = await next;
      next = null;
      if (n === 0) break;
      const chunk = buffers[k]!.subarray(0, n);
      k ^= 1;
      next = fh.read(buffers[k]!, 0, CHUNK, null);
      bytesRead += n;
      reader.push(chunk);
      onProgress?.({ bytesRead, bytesTotal });
    }
  } finally {
    await next?.catch(() => undefined); // a read still in flight when the sink threw
    await fh.close();
  }
  reader.end();
  return { format: reader.format, gzip: false };
}
