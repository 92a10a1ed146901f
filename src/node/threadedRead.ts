// readTranscript with the per-line work on parsing threads (linePool.ts): the main thread
// reads and splits the bytes as before (the same splitter, so line numbers, BOMs, CRLF,
// over-long lines and .json arrays are read alike), copies each line into a batch, and posts
// the batch to a thread; the batches' answers are taken in file order, whichever thread
// finishes first, so the order-dependent engine sees the lines as a single thread would.
// At most `maxInFlight` batches are read ahead of the one being taken in: memory stays a
// few batches above what one thread holds, whatever the file's size. A batch no thread is
// free for (or every batch, with no threads) is read here by the snapshot scanner
// (batchIntake.ts); how many go to the threads is judged as the run goes (ThreadShare).
import { Buffer } from 'node:buffer';
import type { SplitOptions } from '../ingest/lines.ts';
import type { BatchSink, ReadHere } from '../ingest/lineBatch.ts';
import type { TranscriptSplitter } from '../ingest/transcript.ts';
import { ThreadShare } from '../ingest/threadShare.ts';
import { BatchIntake } from './batchIntake.ts';
import type { NodeLine } from './lineParser.ts';
import type { LinePool } from './linePool.ts';
import type { LineBatch, LineBatchResult } from './lineWorker.ts';
import { readTranscript, type ReadProgress } from './readFile.ts';
import { LineBatchBuffer as Batch } from '../ingest/lineBatch.ts';

/** The sink of the lines: a line read the ordinary way comes as readTranscript with NodeLineParser hands it on. */
export type ThreadedSink = BatchSink<NodeLine>;

export interface ThreadedOptions {
  /** a batch is posted once it holds this many bytes (default 1 MiB, 64 KiB with no parsing threads; tests choose 1, 7, 4096, Infinity) */
  batchBytes?: number;
  /** batches read and not yet taken in, at most (default two a parsing thread, and two more) */
  maxInFlight?: number;
  onProgress?: (p: ReadProgress) => void;
  split?: SplitOptions;
  /** tests: every batch a thread has room for (two in hand each) goes to it, however late it comes back (no ThreadShare) */
  fixedShare?: boolean;
  /** a plain file's chunks are read on this thread (readFile.ts ReadHooks.inPlace) */
  inPlace?: boolean;
}

/**
 * ~10 lines of the bench transcript. Each batch starts its references afresh (its first line
 * carries all its strings), so larger batches cost less CPU (4 MiB: −0.15 s of ~1.7 on the
 * 204 MB transcript), but every batch in flight is held twice (bytes and records), and with
 * 4 MiB a second thread raised the peak RSS by ~30% against one, with 1 MiB by ~20% (issue 25).
 */
const DEFAULT_BATCH_BYTES = 1 << 20;

/**
 * With no parsing thread (`--threads 1`, a file under THREAD_MIN_BYTES, each file of `check`'s
 * pool) every batch is read here as soon as it is full, so nothing is gained by a large one:
 * 64 KiB batches (and 64 KiB reads) stay in the processor's cache and in the allocator's
 * reused pages, where each fresh 1 MiB buffer was mapped, faulted in and zeroed anew, and
 * held outside the heap until a collection let it go. `check` of a 4 MB session: peak RSS
 * 85 → 80 MiB, time the same; `check DIR` over 150 such sessions on 2 threads: 146 → 124 MiB,
 * wall 0.90 (docs/perf-log/2026-12-05-small-batches.md).
 */
const HERE_BATCH_BYTES = 64 << 10;

const allocBatch = (n: number): Uint8Array => Buffer.allocUnsafeSlow(n);

/**
 * Batch buffers come back from the threads (transferred) and are used again: a fresh 4 MiB
 * buffer costs its page faults on first write, which made copying the lines into batches
 * a tenth of the main thread's time.
 */
export class BufferPool {
  private readonly free: Uint8Array[] = [];

  constructor(private readonly size: number) {}

  take(atLeast: number): Uint8Array {
    if (atLeast <= this.size) {
      const b = this.free.pop();
      if (b !== undefined) return b;
    }
    // not zeroed: only the bytes written are ever read
    return Buffer.allocUnsafeSlow(Math.max(atLeast, this.size));
  }

  give(b: Uint8Array): void {
    if (b.byteLength === this.size && this.free.length < 8) this.free.push(b);
  }
}

/**
 * `pool`: the parsing threads, or null to read every batch on this thread (`--threads 1`),
 * with the snapshot scanner all the same.
 */
export async function readTranscriptThreaded(path: string, sink: ThreadedSink, pool: LinePool | null, options: ThreadedOptions = {}): Promise<void> {
  const batchBytes = options.batchBytes ?? (pool === null ? HERE_BATCH_BYTES : DEFAULT_BATCH_BYTES);
  const grow = !Number.isFinite(batchBytes);
  const buffers = new BufferPool(Math.max(1, Math.min(batchBytes, DEFAULT_BATCH_BYTES)));
  // two batches a thread (one parsed, one waiting) and two more: this thread reads those
  // itself while the engine waits for the threads' (see post)
  const maxInFlight = options.maxInFlight ?? 2 * (pool?.size ?? 0) + 2;
  let splitter: TranscriptSplitter<number> | null = null;
  let batch = new Batch(buffers.take(0), allocBatch);
  let seq = 0;
  /** per batch posted, resolved once it is taken in: the read pace waits on these */
  const taken: Promise<void>[] = [];
  let tail: Promise<void> = Promise.resolve();
  let failure: unknown = null;

  const intake = new BatchIntake(sink, buffers, () => splitter?.format === 'json-array');
  const throttle = new ThreadShare();
  // a fixed share (tests) starts the threads now; the judged one when they are wanted (ThreadShare.noteHere)
  const fixed = options.fixedShare === true || pool?.fixedShare === true;
  if (fixed) pool?.start();

  const post = (): void => {
    const b = batch;
    if (b.items.length === 0) return;
    batch = new Batch(buffers.take(0), allocBatch);
    let answer: Promise<LineBatchResult | ReadHere | null>;
    if (b.starts.length === 0 || !sink.wantsRecords())
      answer = Promise.resolve(null); // read here, in its turn
    else if (pool === null || !(fixed ? pool.hasQueueRoom : pool.hasRoom && throttle.allow())) {
      // Every thread has a batch (or they lag, or are not wanted): this one is read here,
      // now, while they work (the engine, which waits for their answers in order, would leave
      // this thread idle).
      const here = intake.readHere(b);
      throttle.noteHere(here.here);
      if (pool !== null && throttle.threadsWanted) pool.start();
      answer = Promise.resolve(here);
    } else {
      const request: LineBatch = {
        seq: seq++,
        bytes: b.bytes.subarray(0, b.used),
        starts: Int32Array.from(b.starts),
        ends: Int32Array.from(b.ends),
      };
      answer = pool.run(request);
      tail = tail.then(throttle.judge(answer));
    }
    tail = tail.then(async () => intake.takeIn(b, await answer));
    // a failure is kept and reported once reading stops (at the next pace, or the end)
    tail.catch((e: unknown) => (failure ??= e));
    answer.catch(() => {});
    taken.push(tail);
  };

  const decode = (bytes: Uint8Array, start: number, end: number): number => {
    const n = end - start;
    if (!batch.fits(n, grow)) {
      post();
      if (n > batch.bytes.length) batch.bytes = buffers.take(n);
    }
    batch.bytes.set(bytes.subarray(start, end), batch.used);
    batch.starts.push(batch.used);
    batch.used += n;
    batch.ends.push(batch.used);
    return batch.starts.length - 1;
  };

  const full = (): void => {
    if (batch.used >= batchBytes) post();
  };

  await readTranscript<number>(
    path,
    (text, line) => {
      if (typeof text === 'number') {
        batch.lines[text] = line;
        batch.items.push(text);
      } else batch.items.push({ line, error: text.error, structure: false });
      full();
    },
    (line, message) => batch.items.push({ line, error: message, structure: true }),
    decode,
    options.onProgress,
    options.split ?? {},
    {
      splitter: (s) => (splitter = s),
      // one batch a read: the pace then holds reading back batch by batch (4 MiB reads made
      // four batches at once, and their bytes were held meanwhile: ~10 MB of the peak RSS)
      chunkBytes: Number.isFinite(batchBytes) ? Math.max(64 << 10, batchBytes) : undefined,
      ...(options.inPlace === true ? { inPlace: true } : {}),
      pace: () => {
        if (failure !== null) throw failure;
        const wait = taken.length - maxInFlight;
        return wait >= 0 ? taken[wait]!.then(() => undefined) : undefined;
      },
    },
  );
  post();
  await tail;
  if (failure !== null) throw failure;
}
