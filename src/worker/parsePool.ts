// The analysis Worker's parsing Workers (parseWorker.ts; docs/dashboard.md "Parsing
// Workers"): batches of lines posted to whichever has the fewest in hand, each batch's bytes
// transferred there and back (no copy). A Worker that fails (an error event: it threw, or
// its code did not load) fails every batch it holds and every one after: the load then ends
// as failed, never with a partial result shown as whole.
import { WORKER_READY, type ParseBatch, type ParsedBatch, type ParseFailure } from './parseBatch.ts';

/** The part of a Worker the pool uses (tests give an in-process stand-in). */
export interface PoolWorker {
  postMessage(message: ParseBatch, transfer: Transferable[]): void;
  addEventListener(type: 'message', listener: (ev: MessageEvent<ParsedBatch | ParseFailure | typeof WORKER_READY>) => void): void;
  addEventListener(type: 'error' | 'messageerror', listener: (ev: Event) => void): void;
  terminate(): void;
}

/** A parsing Worker stopped: the lines it held were never read. */
export class ParseWorkerFailure extends Error {}

interface Pending {
  resolve: (r: ParsedBatch) => void;
  reject: (e: Error) => void;
}

interface Member {
  worker: PoolWorker;
  pending: Map<number, Pending>;
  /** the load the Worker was last given a batch of (ParseBatch.fresh) */
  load: object | null;
}

export class ParsePool {
  private readonly members: Member[] = [];
  private failure: ParseWorkerFailure | null = null;
  /** batches given to run() and not answered yet */
  private posted = 0;

  constructor(
    readonly size: number,
    private readonly create: () => PoolWorker,
  ) {}

  /** Whether the Workers were started (`start`). */
  get started(): boolean {
    return this.members.length > 0;
  }

  /**
   * Starts the Workers (once; until then no batch is given them: hasRoom is false). A load
   * whose lines the snapshot scanner reads does without them (ThreadShare.noteHere).
   */
  start(): void {
    if (this.started || this.failure !== null) return;
    const create = this.create;
    for (let i = 0; i < this.size; i++) {
      const index = i;
      const member: Member = { worker: create(), pending: new Map(), load: null };
      member.worker.addEventListener('message', (ev) => {
        const m = ev.data;
        if (m === WORKER_READY) {
          this.ready++;
          return;
        }
        const p = member.pending.get(m.seq);
        member.pending.delete(m.seq);
        if ('failure' in m) this.fail(`a parsing Worker could not parse (${m.failure})`);
        else p?.resolve({ ...m, member: index });
      });
      member.worker.addEventListener('error', (ev) => {
        // ours to report (as the load's failure), not the analysis Worker's uncaught error
        ev.preventDefault();
        const message = (ev as { message?: unknown }).message;
        const detail = typeof message === 'string' && message !== '' ? message : 'it stopped';
        this.fail(`a parsing Worker failed (${detail})`);
      });
      member.worker.addEventListener('messageerror', () => this.fail('a parsing Worker sent a message that could not be read'));
      this.members.push(member);
    }
  }

  /** Why the pool can no longer be used, if it cannot. */
  get failed(): Error | null {
    return this.failure;
  }

  /**
   * Whether a Worker is free to start on a batch posted now: fewer batches in hand than
   * Workers ready. When not, the analysis Worker reads it itself (pooledLines.ts): a batch queued
   * behind another would only make the engine wait.
   */
  get hasRoom(): boolean {
    return this.posted < this.ready;
  }

  /**
   * Room for a batch to wait behind the one a Worker parses, ready or not (tests: a fixed
   * share, threadShare.ts: every Worker gets batches from the first, as many as it can hold).
   */
  get hasQueueRoom(): boolean {
    return this.posted < 2 * this.size;
  }

  /** Workers started and able to parse (until one is, the analysis Worker reads every batch itself) */
  private ready = 0;

  /** numbers the batches of every load the pool serves: a load replaced mid-file may still have some in hand */
  private seq = 0;

  /**
   * The batch's records; its buffers are unusable here until they come back in the result.
   * `load` names the read the batch is of: each Worker's batches of one load are to be taken
   * in in the order they were posted (ParseBatch.fresh).
   */
  async run(lines: Omit<ParseBatch, 'seq' | 'fresh'>, load: object): Promise<ParsedBatch> {
    this.start();
    if (this.failure !== null) throw this.failure;
    let member = this.members[0]!;
    for (const m of this.members) if (m.pending.size < member.pending.size) member = m;
    const batch: ParseBatch = { ...lines, seq: this.seq++, fresh: member.load !== load };
    member.load = load;
    this.posted++;
    try {
      return await new Promise<ParsedBatch>((resolve, reject) => {
        member.pending.set(batch.seq, { resolve, reject });
        member.worker.postMessage(batch, [batch.bytes.buffer as ArrayBuffer, batch.starts.buffer as ArrayBuffer, batch.ends.buffer as ArrayBuffer]);
      });
    } finally {
      this.posted--;
    }
  }

  close(): void {
    for (const m of this.members) m.worker.terminate();
    this.fail('the parsing Workers were stopped');
  }

  private fail(message: string): void {
    const e = (this.failure ??= new ParseWorkerFailure(message));
    // every batch in hand anywhere: the pool is not used again, and a load waits on them in order
    for (const m of this.members) {
      for (const p of m.pending.values()) p.reject(e);
      m.pending.clear();
    }
  }
}
