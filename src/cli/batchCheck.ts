// `check` over several files and folders (docs/contract.md §6.1 "Many files", issue 37): the
// files are read by a pool of threads, one file each at a time (batchWorker.ts), and printed
// in the order of the arguments and then by path. A thread's answer that comes before its
// turn is held; no thread is given a file more than WINDOW places ahead of the next one to be
// printed, so memory holds a few files' answers at once, never the folder's.
import os from 'node:os';
import v8 from 'node:v8';
import type { Writable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { escapeControls } from '../core/terminalText.ts';
import { batchFiles } from './batchFiles.ts';
import { batchTable, unreadableRow, type BatchRow } from './batchRows.ts';
import type { BatchAnswer, BatchJob, BatchWorkerData } from './batchWorker.ts';
import { writeAll } from './output.ts';

export interface BatchOptions extends BatchWorkerData {
  /** threads in the pool (default: the machine's cores), never more than the files */
  threads?: number;
}

/**
 * A thread's young generation, smaller than check's parsing threads' 4 MB (src/node/linePool.ts):
 * what a file's turns allocate is garbage by the next turn, and the default (up to ~48 MB per
 * thread) is what the pool added to the peak RSS. Four sessions of 4 MB on 2 threads: 228 MB
 * with the default, 168-172 MB with 4 MB, against 115 MB for one of them alone
 * (docs/perf-log/2026-12-03-batch.md). V8 makes each semi-space a third of this, rounded up to
 * a power of two and at least 1 MB on 64-bit Node (Heap::ConfigureHeap), so 4 gave 2 MB
 * semi-spaces and 1 to 3 give 1 MB: 106 against 110 MiB over the generated folder, for 1.03 of
 * the time (farm-bench, 6 pairs; docs/perf-log/2026-12-06-young-generation.md).
 */
const YOUNG_GENERATION_MB = 2;

/**
 * How far V8 lets a heap grow past what its last full collection kept, in percent (V8's own
 * default is a factor of up to 4 for a heap that allocates fast). A thread's live heap
 * between two files is ~15 MiB, and a file's turns are garbage by the next turn; with the
 * default factor each thread's heap grew to several times that before a full collection, and
 * over a folder the pool's RSS climbed past that of two of its largest files at once. 50%:
 * 20 files of 0.5-4 MB on 2 threads, peak RSS 190-201 → 143-152 MiB, for 12 → 31 full collections and ~5% more CPU
 * (docs/perf-log/2026-12-03-incremental.md). V8 reads the flag at each collection, so it
 * holds for the pool's threads and the main thread alike; it is set only for a batch.
 */
const HEAP_GROWING_PERCENT = 50;

/**
 * The pool's threads optimise their hot functions themselves, not on V8's platform threads
 * (`--no-concurrent-recompilation`, set with HEAP_GROWING_PERCENT, so for the threads made after
 * it; the main thread keeps its own). With two threads busy on two cores, the background
 * compiles only competed with them, and their memory came back to the process late. Over 150
 * generated sessions on 2 threads: peak RSS 121 → 117 MiB, wall 0.95, CPU 0.96 (farm-bench, 8
 * pairs; docs/perf-log/2026-12-06-collector.md).
 * For the same reason each thread scavenges its young generation alone (`--no-parallel-scavenge`,
 * read at each scavenge, so the main thread's few take it too): a parallel scavenge of a 1 MB
 * semi-space woke V8's platform threads to share under a millisecond's work, and they had no
 * core free (futex calls over the generated folder: 76,600 → 57,900). Wall 0.95, CPU 0.97, peak
 * RSS the same (6 pairs, every pair faster; docs/perf-log/2026-12-06-young-generation.md).
 */
const POOL_V8_FLAGS = '--no-concurrent-recompilation --no-parallel-scavenge';

/** How many files past the next one to print may be given out: per thread, its own and one more. */
const WINDOW_PER_THREAD = 2;

interface Member {
  worker: Worker;
  job: BatchJob | null;
  /** stopped (an error, then an exit, come for one thread: its file is lost once) */
  gone: boolean;
  /** its code loaded: a thread that stops before is not replaced (the next would stop too) */
  ready: boolean;
}

/**
 * Runs the batch and returns the exit status: the worst over the files that could be read
 * (0 nothing reached --fail-on, 1 something did), 2 only when none could be (contract §6.1).
 */
export async function runBatch(args: readonly string[], options: BatchOptions, out: Writable, err: Writable): Promise<number> {
  const { files, skipped } = await batchFiles(args);
  if (files.length === 0) {
    // the arguments may come from a glob over the agents' folders: their names are shown escaped
    await writeAll(err, `${escapeControls(`context-health: no transcript found in ${args.join(', ')} (${skipped} other files skipped)`)}\n`);
    return 2;
  }
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT} ${POOL_V8_FLAGS}`);
  const size = Math.max(1, Math.min(files.length, Math.floor(options.threads ?? os.availableParallelism())));
  const window = size * WINDOW_PER_THREAD;
  const data: BatchWorkerData = { check: options.check, json: options.json, failOn: options.failOn };
  const held = new Map<number, BatchAnswer>();
  const rows: BatchRow[] = [];
  let nextOut = 0;
  let nextJob = 0;
  let worst = -1;
  let readable = false;
  let failure: Error | null = null;

  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  let writing = Promise.resolve();

  const members: Member[] = [];
  const give = (m: Member): void => {
    for (;;) {
      if (nextJob >= files.length || nextJob >= nextOut + window) {
        m.job = null;
        return;
      }
      const { file, error, regular, raw, conversation } = files[nextJob]!;
      const job: BatchJob = {
        index: nextJob,
        file,
        ...(regular === undefined ? {} : { regular }),
        ...(raw === undefined ? {} : { raw }),
        ...(conversation === undefined ? {} : { conversation }),
      };
      nextJob++;
      // a folder that could not be listed is its line at once: no thread reads it
      if (error !== undefined) {
        received(lostAnswer(job, error, options.json));
        continue;
      }
      m.job = job;
      m.worker.postMessage(job);
      return;
    }
  };
  const print = async (a: BatchAnswer): Promise<void> => {
    if (a.status < 2) {
      readable = true;
      worst = Math.max(worst, a.status);
    }
    if (options.json) {
      for (const piece of a.json ?? []) await writeAll(out, piece);
      // one note, one line: a newline in a file's name is shown escaped too, or it would forge a line of its own (docs/security.md "Terminal output")
      if (a.note !== undefined) await writeAll(err, `${escapeControls(`context-health: ${a.note}`)}\n`);
    } else if (a.row !== undefined) rows.push(a.row);
  };
  const received = (a: BatchAnswer): void => {
    held.set(a.index, a);
    // in order: every answer from nextOut on that has come is printed, then more files go out
    writing = writing.then(async () => {
      while (held.has(nextOut)) {
        const next = held.get(nextOut)!;
        held.delete(nextOut);
        nextOut++;
        await print(next);
      }
      for (const m of members) if (m.job === null) give(m);
      if (nextOut === files.length) finish();
    });
    writing.catch((e: unknown) => {
      failure = e as Error;
      finish();
    });
  };
  const spawn = (): Member => {
    const worker = new Worker(new URL('./batchWorker.mjs', import.meta.url), {
      workerData: { batch: true, data },
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    });
    const m: Member = { worker, job: null, gone: false, ready: false };
    worker.on('message', (msg: BatchAnswer | 'ready') => {
      if (msg === 'ready') {
        m.ready = true;
        give(m);
        return;
      }
      m.job = null;
      received(msg);
      give(m);
    });
    // a thread that dies (out of memory, a crash) loses only its file: that file's line says so, and a new thread takes its place
    const lost = (why: string): void => {
      if (m.gone) return;
      m.gone = true;
      if (!m.ready) {
        failure = new Error(`a thread of the file pool could not start (${why})`);
        finish();
        return;
      }
      const job = m.job;
      m.job = null;
      const i = members.indexOf(m);
      if (i >= 0) members.splice(i, 1);
      if (job !== null) received(lostAnswer(job, why, options.json));
      if (nextJob < files.length || members.some((x) => x.job !== null)) members.push(spawn());
    };
    worker.on('error', (e) => lost(`the thread reading it failed (${e.message})`));
    worker.on('exit', (code) => {
      if (!closing) lost(`the thread reading it stopped (exit code ${code})`);
    });
    return m;
  };
  let closing = false;
  for (let i = 0; i < size; i++) members.push(spawn());
  await done;
  closing = true;
  await Promise.all(members.map((m) => m.worker.terminate()));
  if (failure !== null) throw failure;
  if (!options.json) await writeAll(out, batchTable(rows, skipped));
  else if (skipped > 0) await writeAll(err, `context-health: ${skipped} other file${skipped === 1 ? '' : 's'} in the folders skipped (not transcripts)\n`);
  return readable ? worst : 2;
}

function lostAnswer(job: BatchJob, why: string, json: boolean): BatchAnswer {
  return {
    index: job.index,
    status: 2,
    note: `cannot read ${job.file}: ${why}`,
    ...(json ? { json: [JSON.stringify({ file: job.file, error: why }) + '\n'] } : { row: unreadableRow(job.file, why) }),
  };
}
