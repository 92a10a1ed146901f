// The transcript `replay` streams: a file or stdin, read in pieces, gunzipped when its
// first bytes say gzip (contract §2 .jsonl.gz), with a count of the bytes read for progress.
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { isGzip } from '../ingest/transcript.ts';

export interface ReplayInput {
  stream: AsyncIterable<Buffer>;
  /** the file's size; null for stdin */
  bytesTotal: number | null;
  /** raw (compressed) bytes read so far */
  bytesRead: () => number;
}

export async function openInput(file: string): Promise<ReplayInput> {
  let bytesTotal: number | null = null;
  let raw: Readable;
  if (file === '-') raw = process.stdin;
  else {
    const stat = await fs.promises.stat(file);
    if (!stat.isFile()) throw new Error('not a file');
    bytesTotal = stat.size;
    raw = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  }
  const counter = { n: 0 };
  return { stream: unwrapGzip(raw, counter), bytesTotal, bytesRead: () => counter.n };
}

/** The raw bytes, or their gunzipped form when the first bytes say gzip. */
async function* unwrapGzip(raw: Readable, counter: { n: number }): AsyncGenerator<Buffer> {
  const it = raw[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const first = await it.next();
  if (first.done === true) return;
  counter.n += first.value.length;
  if (!isGzip(first.value)) {
    yield first.value;
    for (let r = await it.next(); r.done !== true; r = await it.next()) {
      counter.n += r.value.length;
      yield r.value;
    }
    return;
  }
  const gunzip = zlib.createGunzip({ chunkSize: 1 << 20 });
  void (async () => {
    try {
      if (!gunzip.write(first.value)) await new Promise((r) => gunzip.once('drain', r));
      for (let r = await it.next(); r.done !== true; r = await it.next()) {
        counter.n += r.value.length;
        if (!gunzip.write(r.value)) await new Promise((res) => gunzip.once('drain', res));
      }
      gunzip.end();
    } catch (e) {
      gunzip.destroy(e as Error);
    }
  })();
  for await (const c of gunzip) yield c as Buffer;
}
