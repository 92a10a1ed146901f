// Streams a transcript file (or stdin) through the shared TranscriptReader, unwrapping
// gzip when the first bytes say so. Never holds the file in one string.
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { LineSink } from '../ingest/lines.ts';
import { isGzip, TranscriptReader, type StructureErrorSink } from '../ingest/transcript.ts';
import { nodeDecoder } from './platform.ts';

export interface ReadProgress {
  bytesRead: number;
  bytesTotal: number | null;
}

export async function readTranscript(
  path: string,
  sink: LineSink,
  onStructureError: StructureErrorSink,
  onProgress?: (p: ReadProgress) => void,
): Promise<{ format: string; gzip: boolean }> {
  const fromStdin = path === '-';
  const bytesTotal = fromStdin ? null : (await fs.promises.stat(path)).size;
  const raw: Readable = fromStdin ? process.stdin : fs.createReadStream(path, { highWaterMark: 1 << 20 });
  const reader = new TranscriptReader(sink, onStructureError, nodeDecoder);
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
