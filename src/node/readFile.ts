// Streams a transcript file (or stdin) through the shared TranscriptReader, unwrapping
// gzip when the first bytes say so. Never holds the file in one string.
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { LineDecoder, LineSink, SplitOptions } from '../ingest/lines.ts';
import { isGzip, TranscriptSplitter, type StructureErrorSink } from '../ingest/transcript.ts';

export interface ReadProgress {
  bytesRead: number;
  bytesTotal: number | null;
}

/** For a reader that hands lines on to other threads (threadedRead.ts). */
export interface ReadHooks<T> {
  /** awaited after each chunk is split: holds reading back while the lines in hand are many */
  pace?: () => Promise<void> | undefined;
  /** the splitter, once made (what it has told of the format) */
  splitter?: (s: TranscriptSplitter<T>) => void;
  /** a plain file's read size (default 4 MiB): smaller, fewer bytes in hand at once */
  chunkBytes?: number;
  /**
   * a plain file's chunks are read on this thread, one after the other, not on libuv's pool
   * ahead of the one being split (readPlainFileInPlace): for a thread that has a core of its
   * own and nothing else to do meanwhile, `check`'s file pool
   */
  inPlace?: boolean;
}

/** Each message (line or array element) is handed to `decode`, then to `sink`. */
export async function readTranscript<T>(
  path: string,
  sink: LineSink<T>,
  onStructureError: StructureErrorSink,
  decode: LineDecoder<T>,
  onProgress?: (p: ReadProgress) => void,
  split: SplitOptions = {},
  hooks: ReadHooks<T> = {},
): Promise<{ format: string; gzip: boolean }> {
  const fromStdin = path === '-';
  // Only a regular file can be read at positions (ahead, and its first bytes twice): a FIFO,
  // a process substitution `<(…)` or a device is read as a stream, like stdin (ESPIPE otherwise).
  const stat = fromStdin ? null : await fs.promises.stat(path);
  const bytesTotal = stat !== null && stat.isFile() ? stat.size : null;
  const reader = new TranscriptSplitter(sink, onStructureError, decode, split);
  hooks.splitter?.(reader);
  if (bytesTotal !== null && !(await startsWithGzip(path)))
    return (hooks.inPlace === true ? readPlainFileInPlace : readPlainFile)(path, bytesTotal, reader, onProgress, hooks.pace, hooks.chunkBytes);
  const raw: Readable = fromStdin ? process.stdin : fs.createReadStream(path, { highWaterMark: 1 << 20 });
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
      // the pump reports its own failure by destroying gunzip, which the reader sees
      void (async () => {
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
    if (hooks.pace !== undefined) await hooks.pace(); // a stream waits meanwhile (gunzip's pump too: it awaits 'drain')
  }
  reader.end();
  return { format: reader.format, gzip };
}

const DEFAULT_CHUNK = 4 << 20;

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

/** Chunks being read ahead of the one being analysed. */
const READ_AHEAD = 2;

/**
 * A plain file is read in 4 MiB chunks, each on libuv's thread pool (the second core)
 * while the main thread splits, parses and analyses the one before: the main thread does
 * not spend its time on the kernel's copy (about a tenth of a run when it read
 * synchronously), and with two reads in flight it seldom waits for one even when the
 * other core is busy (one in flight left it waiting 50–140 ms per run on a loaded
 * machine; an async read awaited before each chunk left a quarter of the run idle). The
 * reader copies what it keeps, so a buffer is free again once pushed.
 */
async function readPlainFile<T>(
  path: string,
  bytesTotal: number,
  reader: TranscriptSplitter<T>,
  onProgress?: (p: ReadProgress) => void,
  pace?: () => Promise<void> | undefined,
  chunkBytes = DEFAULT_CHUNK,
): Promise<{ format: string; gzip: boolean }> {
  const fh = await fs.promises.open(path, 'r');
  const buffers = Array.from({ length: READ_AHEAD + 1 }, () => Buffer.allocUnsafe(chunkBytes));
  // reads in flight, in file order, each at its own position
  const inFlight: Promise<{ bytesRead: number; buffer: Buffer }>[] = [];
  let position = 0;
  let k = 0;
  const readNext = (): void => {
    inFlight.push(fh.read(buffers[k]!, 0, chunkBytes, position));
    k = (k + 1) % buffers.length;
    position += chunkBytes;
  };
  let bytesRead = 0;
  try {
    for (let i = 0; i < READ_AHEAD; i++) readNext();
    for (;;) {
      const { bytesRead: n, buffer } = await inFlight.shift()!;
      if (n === 0) break;
      const full = n === chunkBytes;
      if (full) readNext(); // into the buffer pushed last time round
      bytesRead += n;
      reader.push(buffer.subarray(0, n));
      onProgress?.({ bytesRead, bytesTotal });
      if (pace !== undefined) await pace(); // the reads planned ahead go on meanwhile; no more are started
      if (!full) {
        // the end of the file as it was: reads planned past it are dropped, and whatever
        // follows (a file still being written) is read on from here
        await Promise.allSettled(inFlight.splice(0));
        position = bytesRead;
        readNext();
      }
    }
  } finally {
    await Promise.allSettled(inFlight); // reads still in flight when the sink threw
    await fh.close();
  }
  reader.end();
  return { format: reader.format, gzip: false };
}

/**
 * A plain file read on the calling thread, a chunk at a time (ReadHooks.inPlace). In `check`'s
 * file pool every core already has a thread reading a file of its own, so a read on libuv's
 * pool overlapped nothing and only added its handovers: a task queued, a pool thread woken, the
 * loop woken by its answer, for each 64 KiB. The chunks are those readPlainFile hands the reader:
 * full ones, then the short one at the end of the file as it was, then a read from there on
 * for whatever was written since, until one finds nothing.
 */
const readPlainFileInPlace: typeof readPlainFile = async (path, bytesTotal, reader, onProgress, pace, chunkBytes = DEFAULT_CHUNK) => {
  const fd = fs.openSync(path, 'r');
  const buffer = Buffer.allocUnsafe(chunkBytes);
  let bytesRead = 0;
  try {
    for (;;) {
      const n = fs.readSync(fd, buffer, 0, chunkBytes, bytesRead);
      if (n === 0) break;
      bytesRead += n;
      reader.push(buffer.subarray(0, n));
      onProgress?.({ bytesRead, bytesTotal });
      if (pace !== undefined) await pace();
      // a turn of the event loop between chunks, as an answer from libuv's pool gave: V8 posts its
      // collector's steps (finishing a marking, a scavenge) as tasks that run only there
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  } finally {
    fs.closeSync(fd);
  }
  reader.end();
  return { format: reader.format, gzip: false };
};
