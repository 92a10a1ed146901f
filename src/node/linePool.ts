// `check`'s parsing threads (lineWorker.ts): batches of lines posted to whichever thread has
// the fewest in hand, each batch's bytes transferred there and back (no copy). A thread that
// stops before answering fails the whole run: a report missing its lines must not be printed.
import { Worker } from 'node:worker_threads';
import type { LineBatch, LineBatchResult, LineWorkerData } from './lineWorker.ts';
import { lineWorkerUrl } from './lineWorkerCode.ts';

interface Pending {
  resolve: (r: LineBatchResult) => void;
  reject: (e: Error) => void;
}

interface Thread {
  worker: Worker;
  pending: Map<number, Pending>;
}

/**
 * A thread's young generation: what it parses is garbage by the next line, so a small one
 * costs few extra scavenges, and the default (up to ~48 MB) was most of what a thread added
 * to the process's peak RSS (issue 25: at most 20% over one thread; 4 MB: −25 MB of ~60).
 */
const YOUNG_GENERATION_MB = 4;

/** tests only (test/cli/threads.test.ts): the first thread exits when it receives batch N (0-based) */
const STOP_ENV = 'CONTEXT_HEALTH_TEST_STOP_THREAD_AT';

export class LinePool {
  private readonly threads: Thread[] = [];
  private failure: Error | null = null;
  private closing = false;
  /** the threads, once asked for (`start`), are started when their code is found (lineWorkerCode.ts); batches wait for it */
  private started: Promise<void> | null = null;

  /**
   * tests: with a thread told to stop at its batch N, every batch the threads can hold goes
   * to them from the first (a fixed share, threadShare.ts), so that thread does get batch N
   */
  readonly fixedShare = process.env[STOP_ENV] !== undefined;

  constructor(readonly size: number) {}

  /** Starts the threads (once; until then no batch is given them: hasRoom is false). */
  start(): void {
    this.started ??= lineWorkerUrl().then((url) => this.spawn(url));
  }

  private spawn(url: URL): void {
    if (this.closing) return;
    const stopAt = process.env[STOP_ENV];
    for (let i = 0; i < this.size; i++) {
      const data: LineWorkerData = i === 0 && stopAt !== undefined ? { stopAt: Number(stopAt) } : {};
      const worker = new Worker(url, { workerData: data, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
      const thread: Thread = { worker, pending: new Map() };
      const member = i;
      worker.on('message', (m: LineBatchResult | 'ready') => {
        if (m === 'ready') {
          this.ready++;
          return;
        }
        const p = thread.pending.get(m.seq);
        thread.pending.delete(m.seq);
        p?.resolve({ ...m, member });
      });
      worker.on('error', (e) => this.fail(thread, `a parsing thread failed (${e.message})`));
      worker.on('exit', (code) => {
        if (!this.closing) this.fail(thread, `a parsing thread stopped (exit code ${code}) before every line was read`);
      });
      this.threads.push(thread);
    }
  }

  /** batches given to run() and not answered yet (those waiting for the threads to start too) */
  private posted = 0;

  /**
   * Whether a thread is free to start on a batch posted now: fewer batches posted than
   * threads ready. When not, the caller does better to read it itself: the main thread reads a
   * batch with the snapshot scanner about as fast as it takes a thread's records in, and a
   * batch queued behind another would only make the engine wait (threadedRead.ts).
   */
  get hasRoom(): boolean {
    return this.posted < this.ready;
  }

  /**
   * Room for a batch to wait behind the one a thread parses, ready or not (tests: a fixed
   * share, threadShare.ts: every thread gets batches from the first, as many as it can hold).
   */
  get hasQueueRoom(): boolean {
    return this.posted < 2 * this.size;
  }

  /**
   * threads started and waiting for work: until one is, the caller reads the batch itself
   * (a thread takes ~0.1 s to start, and the engine would wait for its first batch meanwhile)
   */
  private ready = 0;

  /** The batch's records; its bytes are unusable here until they come back in the result. */
  async run(batch: LineBatch): Promise<LineBatchResult> {
    this.posted++;
    try {
      return await this.post(batch);
    } finally {
      this.posted--;
    }
  }

  private async post(batch: LineBatch): Promise<LineBatchResult> {
    this.start();
    await this.started;
    if (this.failure !== null) throw this.failure;
    let thread = this.threads[0]!;
    for (const t of this.threads) if (t.pending.size < thread.pending.size) thread = t;
    return new Promise((resolve, reject) => {
      thread.pending.set(batch.seq, { resolve, reject });
      thread.worker.postMessage(batch, [batch.bytes.buffer as ArrayBuffer, batch.starts.buffer as ArrayBuffer, batch.ends.buffer as ArrayBuffer]);
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.started;
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }

  private fail(thread: Thread, message: string): void {
    const e = (this.failure ??= new Error(message));
    for (const p of thread.pending.values()) p.reject(e);
    thread.pending.clear();
  }
}
