// The relay's analysis threads (docs/relay.md "Analysis"): the Engines of the sessions run
// on worker threads, so the relay's main thread only stores, fans out and acknowledges. Each
// session is owned by one thread (a hash of its id), which analyses its lines in the order
// they were posted and answers in that order: a session's results come back in seq order.
// The main thread keeps everything else (SessionHealth's rings, verdict memory, summaries).
//
// A thread that dies is replaced; the sessions it owned are re-read from the store into the
// new thread's engines (warm-up lines, no answers) up to the last line it had answered, then
// the lines it had not answered are posted again: no acknowledgement is lost and later
// verdicts are those of an engine that saw every line (contract §7).
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { quoted } from '../quoted.ts';
import type { AnalysisAnswer, AnalysisRequest, ThreadMemory } from './analysisWorker.ts';

/** a line that was in flight on this many threads that died is answered with an error instead of being posted again */
const MAX_TRIES = 2;

/** One stored line of a session, as the store gives it back for a warm-up. */
export interface StoredLine {
  seq: number;
  bytes: Uint8Array;
}

/** Lines 1..upTo of a session, in seq order, from the store. */
export type ReplaySource = (sessionId: string, upTo: number) => AsyncIterable<StoredLine>;

interface Request {
  st: SessionState;
  seq: number;
  /** the stored line as the caller gave it: each post transfers a copy, so it can be posted again to a replacement thread */
  bytes: Uint8Array;
  tries: number;
  resolve: (a: AnalysisAnswer) => void;
}

interface SessionState {
  id: string;
  thread: number;
  /** the last seq the owning thread answered */
  done: number;
  /** while a replacement thread warms up: this session's lines, posted once it is done */
  holding: Request[] | null;
  /** recoveries begun; a recovery overtaken by a newer one stops */
  generation: number;
  /** the highest seq posted to the owning thread */
  posted: number;
  /** when its last line came (ms) */
  lastLineAt: number;
  /** idle: its engine was dropped from the thread, and is warmed up from the log on its next line */
  parked: boolean;
}

/** a session idle this long has its engine parked (--analysis-idle) */
export const DEFAULT_PARK_IDLE_MS = 5 * 60_000;

/** the analysis threads' young generation (V8's default is 16 MiB semi-spaces on 64-bit) */
const YOUNG_GENERATION_MB = 192;

export function defaultAnalysisThreads(): number {
  // one thread leaves the main thread its core for ingest and fan-out (bench/relay.ts)
  return os.availableParallelism() >= 2 ? 1 : 0;
}

/** 32-bit FNV-1a of the session id: which thread owns it */
function hashOf(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

class AnalysisThread {
  worker: Worker;
  /** posted (or batched) and not answered yet, oldest first */
  fifo: Request[] = [];
  head = 0;
  batch: AnalysisRequest[] = [];
  transfers: ArrayBuffer[] = [];
  scheduled = false;
  /** active time of the threads that died, for the CPU figures */
  pastActiveMs = 0;
  /** tests and benches: memory queries waiting for their answer, in order */
  readonly heapQueries: ((m: ThreadMemory) => void)[] = [];
  /** resolves once the current worker has loaded the engine */
  ready: Promise<void> = Promise.resolve();

  constructor(
    private readonly onExit: (t: AnalysisThread, code: number) => void,
    private readonly onError: (e: Error) => void,
  ) {
    this.worker = this.spawn();
  }

  spawn(): Worker {
    // a young generation large enough to hold a round of every session's last snapshot: the
    // engines keep each session's previous turn until its next one, which the default size
    // copied from scavenge to scavenge (a quarter of the thread's time; bench/analysisLine.ts)
    const worker = new Worker(new URL('./analysisWorker.mjs', import.meta.url), { resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    worker.unref();
    let loaded: () => void = () => {};
    this.ready = new Promise((resolve) => (loaded = resolve));
    worker.on('exit', () => loaded()); // a thread that never loads is replaced ('exit' below)
    worker.on('message', (answers: AnalysisAnswer[] | 'ready' | ThreadMemory) => {
      if (answers === 'ready') {
        loaded();
        return;
      }
      if (!Array.isArray(answers)) {
        for (const r of this.heapQueries.splice(0, 1)) r(answers);
        return;
      }
      if (worker !== this.worker) return;
      for (const a of answers) {
        const r = this.fifo[this.head];
        if (r === undefined) break;
        this.fifo[this.head++] = undefined as unknown as Request;
        if (r.st.done < r.seq) r.st.done = r.seq;
        r.resolve(a);
      }
      if (this.head === this.fifo.length) {
        this.fifo = [];
        this.head = 0;
      } else if (this.head > 1024) {
        this.fifo = this.fifo.slice(this.head);
        this.head = 0;
      }
    });
    worker.on('error', (e) => this.onError(e));
    worker.on('exit', (code) => {
      if (worker === this.worker) this.onExit(this, code);
    });
    return worker;
  }

  /**
   * One line (or a drop) for this thread: posted with the others of this turn of the event
   * loop. A line's bytes are copied here and the copy transferred (a Buffer may be a view
   * into a larger pooled one; the caller's bytes stay whole for a replacement thread).
   */
  post(req: AnalysisRequest, answered: Request | null): void {
    if (answered !== null) this.fifo.push(answered);
    if ('b' in req) {
      const copy = new Uint8Array(req.b);
      this.transfers.push(copy.buffer);
      req = { ...req, b: copy };
    }
    this.batch.push(req);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const batch = this.batch;
      const transfers = this.transfers;
      this.batch = [];
      this.transfers = [];
      if (batch.length > 0) this.worker.postMessage(batch, transfers);
    });
  }

  /** The unanswered requests, oldest first, taken away (the thread died); the batch not posted yet is dropped with them. */
  takePending(): Request[] {
    const out = this.fifo.slice(this.head);
    this.fifo = [];
    this.head = 0;
    this.batch = [];
    this.transfers = [];
    return out;
  }

  activeMs(): number {
    return this.pastActiveMs + this.worker.performance.eventLoopUtilization().active;
  }
}

export class AnalysisThreads {
  private readonly threads: AnalysisThread[] = [];
  private readonly sessions = new Map<string, SessionState>();
  private closed = false;
  /** threads that died and were replaced */
  restarts = 0;

  private readonly parkTimer: NodeJS.Timeout | null;

  /**
   * `idleMs`: a session that received no line for this long is parked: its engine (which
   * holds the session's last snapshot, texts included: about its size in memory) is dropped
   * from its thread and warmed up again from the stored log on its next line, so memory
   * follows the sessions in use, not every session ever held (Infinity: never).
   */
  constructor(
    count: number,
    private readonly replay: ReplaySource,
    private readonly log: (line: string) => void,
    private readonly idleMs = DEFAULT_PARK_IDLE_MS,
  ) {
    this.parkTimer = Number.isFinite(idleMs) ? setInterval(() => this.parkIdle(Date.now()), Math.max(10, Math.min(10_000, idleMs / 4))) : null;
    this.parkTimer?.unref();
    for (let i = 0; i < count; i++) {
      // an uncaught error ends the thread: its 'exit' follows, where it is replaced
      this.threads.push(
        new AnalysisThread(
          (t, code) => this.died(t, code),
          (e) => log(`analysis thread ${i} failed: ${e.message}`),
        ),
      );
    }
  }

  get size(): number {
    return this.threads.length;
  }

  /**
   * Analyses the line stored as `seq` of `sessionId` on the session's thread. Lines of one
   * session must come in seq order; their answers resolve in that order. Never rejects.
   */
  line(sessionId: string, seq: number, bytes: Uint8Array): Promise<AnalysisAnswer> {
    let st = this.sessions.get(sessionId);
    if (st === undefined) {
      st = { id: sessionId, thread: hashOf(sessionId) % this.threads.length, done: 0, holding: null, generation: 0, posted: 0, lastLineAt: 0, parked: false };
      this.sessions.set(sessionId, st);
    }
    const owner = st;
    owner.lastLineAt = Date.now();
    return new Promise((resolve) => {
      if (this.closed) {
        resolve({ o: null, ms: 0 });
        return;
      }
      const req: Request = { st: owner, seq, bytes, tries: 0, resolve };
      if (owner.holding !== null) owner.holding.push(req);
      else if (owner.parked) {
        // back from idle: the engine is rebuilt from the log (no answers), then this line goes
        owner.parked = false;
        owner.holding = [req];
        void this.recover(owner, ++owner.generation, this.threads[owner.thread]!);
      } else this.submit(req);
    });
  }

  /** The session was deleted: its thread drops its engine (a later line begins a new one). */
  drop(sessionId: string): void {
    const st = this.sessions.get(sessionId);
    if (st === undefined) return;
    this.sessions.delete(sessionId);
    st.generation++;
    for (const r of st.holding?.splice(0) ?? []) r.resolve({ o: null, ms: 0 });
    st.holding = null;
    this.threads[st.thread]!.post({ s: sessionId, drop: true }, null);
  }

  /** Resolves once every analysis thread has loaded the engine (serve prints its address then). */
  async ready(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.ready));
  }

  /** CPU time the analysis threads spent (their event loops' active time), ms */
  activeMs(): number {
    let ms = 0;
    for (const t of this.threads) ms += t.activeMs();
    return ms;
  }

  /** Tests: ends thread `i` as a crash would (it is replaced, its sessions re-read). */
  terminateForTest(i: number): Promise<number> {
    return this.threads[i]!.worker.terminate();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.parkTimer !== null) clearInterval(this.parkTimer);
    await Promise.all(
      this.threads.map((t) => {
        t.worker.removeAllListeners('exit');
        for (const r of t.takePending()) r.resolve({ o: null, ms: 0 });
        return t.worker.terminate();
      }),
    );
    for (const st of this.sessions.values()) for (const r of st.holding?.splice(0) ?? []) r.resolve({ o: null, ms: 0 });
  }

  private submit(req: Request): void {
    if (req.st.posted < req.seq) req.st.posted = req.seq;
    this.threads[req.st.thread]!.post({ s: req.st.id, q: req.seq, b: req.bytes, w: false }, req);
  }

  /** Parks the sessions idle for idleMs with nothing in flight (every line posted is answered). */
  private parkIdle(now: number): void {
    for (const st of this.sessions.values()) {
      if (st.parked || st.holding !== null || st.posted !== st.done || now - st.lastLineAt < this.idleMs) continue;
      st.parked = true;
      this.threads[st.thread]!.post({ s: st.id, drop: true }, null);
    }
  }

  /** Sessions whose engine is parked (tests, /api/health). */
  get parkedCount(): number {
    let n = 0;
    for (const st of this.sessions.values()) if (st.parked) n++;
    return n;
  }

  /** Tests: thread i's heap in use after a full garbage collection, bytes. */
  async heapUsedForTest(i: number): Promise<number> {
    return (await this.memoryOf(i)).heap;
  }

  /** Tests and benches: thread i's own memory, after a full garbage collection unless `collect` is false. */
  memoryOf(i: number, collect = true): Promise<ThreadMemory> {
    const t = this.threads[i]!;
    return new Promise((resolve) => {
      t.heapQueries.push(resolve);
      t.post({ heap: true, collect }, null);
    });
  }

  private died(t: AnalysisThread, code: number): void {
    if (this.closed) return;
    const index = this.threads.indexOf(t);
    this.restarts++;
    const pending = t.takePending();
    try {
      t.pastActiveMs += t.worker.performance.eventLoopUtilization().active;
    } catch {
      // a dead worker may no longer report it
    }
    this.log(`analysis thread ${index} exited (code ${code}) with ${pending.length} lines unanswered; starting another and re-reading its sessions`);
    t.worker = t.spawn();
    const bySession = new Map<SessionState, Request[]>();
    for (const r of pending) {
      if (this.sessions.get(r.st.id) !== r.st) {
        r.resolve({ o: null, ms: 0 }); // deleted meanwhile
        continue;
      }
      if (++r.tries >= MAX_TRIES) {
        r.resolve({ o: { k: 'error', message: `analysis threads died ${r.tries} times while analysing it` }, ms: 0 });
        continue;
      }
      let list = bySession.get(r.st);
      if (list === undefined) bySession.set(r.st, (list = []));
      list.push(r);
    }
    for (const st of this.sessions.values()) {
      // a parked session has no engine to rebuild: its next line warms one up
      if (st.thread !== index || st.parked) continue;
      // lines not answered come before those held by a recovery already under way
      st.holding = [...(bySession.get(st) ?? []), ...(st.holding ?? [])];
      void this.recover(st, ++st.generation, t);
    }
  }

  /** Warms the replacement thread's engine for `st` up to its last answered line, then posts what was held. */
  private async recover(st: SessionState, generation: number, t: AnalysisThread): Promise<void> {
    const current = (): boolean => this.sessions.get(st.id) === st && st.generation === generation && !this.closed;
    try {
      for await (const line of this.replay(st.id, st.done)) {
        if (!current()) return;
        if (line.seq > st.done) break;
        t.post({ s: st.id, q: line.seq, b: line.bytes, w: true }, null);
      }
    } catch (e) {
      // its later verdicts come from an engine that missed some lines: said once, here
      this.log(`could not re-read ${quoted(st.id)} for a replacement analysis thread: ${(e as Error).message}`);
    }
    if (!current()) return;
    const held = st.holding ?? [];
    st.holding = null;
    for (const r of held) this.submit(r);
  }
}
