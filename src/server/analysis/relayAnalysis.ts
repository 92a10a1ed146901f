// The relay's analysis of every session (docs/relay.md "Analysis"): each message is
// analysed right after it is stored, in seq order, by the session's own SessionHealth;
// a restarted relay re-reads the stored logs in the background (chunk by chunk, so the
// event loop keeps serving), and a message arriving for a session not yet re-read waits
// for that session only (its re-reading starts at once). The acknowledgement carries the
// verdict (contract §7): it is computed synchronously after the append, or, during the
// re-reading, once the session has caught up. With analysis threads (analysisThreads.ts)
// the sessions' Engines run there and the verdict is a Promise of the thread's answer; the
// rest (SessionHealth's rings, verdict memory, summaries, the listeners) stays here.
import type { AckVerdict, SessionSummary } from '../../protocol/relay.ts';
import { quoted, shownTitle } from '../quoted.ts';
import type { ParsedMessage } from '../sessionGate.ts';
import type { SessionStore } from '../sessionStore.ts';
import type { SessionLogStore } from '../store.ts';
import { AnalysisThreads, type StoredLine } from './analysisThreads.ts';
import { SessionHealth, type TurnEvent } from './sessionHealth.ts';

export type VerdictAnswer = AckVerdict | null | Promise<AckVerdict | null>;

interface Waiting {
  seq: number;
  bytes: Buffer;
  at: number;
  resolve: (v: VerdictAnswer) => void;
  /** a retry of a message stored before: answered with its verdict in its place in line, not analysed */
  retry?: true;
}

export interface Entry {
  health: SessionHealth;
  /** set while the stored log is being re-read; live messages wait in `waiting` */
  rebuild: Promise<void> | null;
  /** re-reading not started yet (a restarted relay's session) */
  pending: boolean;
  waiting: Waiting[];
  /** with analysis threads: the answer to the last line posted (a duplicate's verdict waits for it) */
  tail?: Promise<AckVerdict | null>;
}

export interface AnalysisListener {
  /** a snapshot was analysed (also while re-reading after a restart: `event.live` false) */
  turn?(event: TurnEvent): void;
  /** a session's summary changed */
  changed?(sessionId: string): void;
  removed?(sessionId: string): void;
}

export class RelayAnalysis {
  protected readonly entries = new Map<string, Entry>();
  protected readonly listeners = new Set<AnalysisListener>();
  protected rebuilt: Promise<void> = Promise.resolve();
  /** analysis time of live messages, for /api/health */
  readonly counters = { analysed: 0, analysis_ms: 0, errors: 0, rebuilding: 0 };
  /** null: the Engines run on the main thread (analysisThreads 0) */
  readonly threads: AnalysisThreads | null;

  /**
   * `threads`: analysis threads holding the sessions' Engines (0: this thread); `parkIdleMs`:
   * how long a session may be idle before its engine is parked (analysisThreads.ts)
   */
  constructor(
    private readonly store: SessionLogStore,
    private readonly log: (line: string) => void,
    threads = 0,
    parkIdleMs?: number,
  ) {
    this.threads = threads > 0 ? new AnalysisThreads(threads, (id, upTo) => this.storedLines(id, upTo), log, parkIdleMs) : null;
  }

  listen(l: AnalysisListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Starts re-reading every stored session (after the store opened); resolves when all are done. */
  start(): Promise<void> {
    for (const s of this.store.byRecency()) {
      const health = new SessionHealth(s.id, s.updatedAt);
      health.analysed = false;
      health.title = shownTitle(s.header?.title);
      this.entries.set(s.id, { health, rebuild: null, pending: true, waiting: [] });
    }
    this.counters.rebuilding = this.entries.size;
    const ids = [...this.entries.keys()];
    this.rebuilt = (async () => {
      for (const id of ids) await this.ensureRebuilt(id);
    })();
    return this.rebuilt;
  }

  /** Stops following the store (the Redis analysis listens to other relays) and ends the analysis threads. */
  close(): void {
    void this.threads?.close();
  }

  /** The counters for /api/health, with the analysis threads' CPU time. */
  stats(): Record<string, number> {
    return this.threads === null
      ? { ...this.counters }
      : { ...this.counters, threads: this.threads.size, threads_active_ms: Math.round(this.threads.activeMs()), threads_restarted: this.threads.restarts };
  }

  /** Resolves once every session stored at start has been re-read. */
  whenRebuilt(): Promise<void> {
    return this.rebuilt;
  }

  /** A message was just stored as `seq` of `sessionId`: its verdict (null for a header). */
  stored(sessionId: string, seq: number, bytes: Buffer, parsed?: ParsedMessage): VerdictAnswer {
    let e = this.entries.get(sessionId);
    const now = Date.now();
    if (e === undefined) {
      e = { health: new SessionHealth(sessionId, now), rebuild: null, pending: false, waiting: [] };
      this.entries.set(sessionId, e);
    }
    e.health.updatedAt = now;
    if (e.pending || e.rebuild !== null) {
      const entry = e;
      return new Promise((resolve) => {
        entry.waiting.push({ seq, bytes, at: now, resolve });
        void this.ensureRebuilt(sessionId);
      });
    }
    return this.apply(e, seq, bytes, now, true, parsed);
  }

  /** The verdict of an already stored message (a retry), when it is still remembered. */
  duplicate(sessionId: string, seq: number): VerdictAnswer {
    const e = this.entries.get(sessionId);
    if (e === undefined) return null;
    if (e.pending || e.rebuild !== null) {
      // answered in line with the messages waiting for the re-reading: after them, more than
      // VERDICT_MEMORY later verdicts could have pushed its own out of the memory
      const entry = e;
      return new Promise((resolve) => {
        entry.waiting.push({ seq, bytes: Buffer.alloc(0), at: 0, resolve, retry: true });
        void this.ensureRebuilt(sessionId);
      });
    }
    return this.afterInFlight(e, () => e.health.verdictOf(seq));
  }

  /** `f` once the lines posted to the analysis threads for this session are answered. */
  protected afterInFlight(e: Entry, f: () => AckVerdict | null): VerdictAnswer {
    return e.tail === undefined ? f() : e.tail.then(f);
  }

  forget(sessionId: string): void {
    const e = this.entries.get(sessionId);
    if (e === undefined) return;
    this.entries.delete(sessionId);
    this.threads?.drop(sessionId);
    for (const w of e.waiting.splice(0)) w.resolve(null);
    for (const l of this.listeners) l.removed?.(sessionId);
  }

  health(sessionId: string): SessionHealth | undefined {
    return this.entries.get(sessionId)?.health;
  }

  /** Every session's status now (live, idle, ended), without building summaries. */
  statuses(now = Date.now()): [string, string][] {
    return [...this.entries.values()].map((e) => [e.health.sessionId, e.health.status(now)]);
  }

  summaries(now = Date.now()): SessionSummary[] {
    return [...this.entries.values()].map((e) => e.health.summary(now));
  }

  protected apply(e: Entry, seq: number, bytes: Uint8Array, at: number, live: boolean, parsed?: ParsedMessage): VerdictAnswer {
    if (this.threads !== null) {
      // the engine's work is the thread's: the value the relay parsed is not sent (cloning it costs more than parsing)
      const id = e.health.sessionId;
      const answer = this.threads.line(id, seq, bytes).then((a) => {
        if (this.entries.get(id) !== e) return null; // deleted meanwhile
        if (live) {
          this.counters.analysed++;
          this.counters.analysis_ms += a.ms;
        }
        return this.noted(e, seq, e.health.record(seq, a.o, at), live);
      });
      e.tail = answer;
      return answer;
    }
    const t0 = performance.now();
    const out = e.health.ingest(seq, bytes, at, parsed);
    if (live) {
      this.counters.analysed++;
      this.counters.analysis_ms += performance.now() - t0;
    }
    return this.noted(e, seq, out, live);
  }

  /** What the engine made of a line, noted: the error logged, the turn announced to the listeners. */
  private noted(e: Entry, seq: number, out: ReturnType<SessionHealth['record']>, live: boolean): AckVerdict | null {
    if (typeof out === 'string') {
      this.counters.errors++;
      this.log(`analysis of ${quoted(e.health.sessionId)} seq ${seq}: ${out}`);
      return null;
    }
    if (out !== null) {
      const event: TurnEvent = { health: e.health, seq, result: out.result, verdict: out.verdict, live };
      for (const l of this.listeners) l.turn?.(event);
    }
    if (live) for (const l of this.listeners) l.changed?.(e.health.sessionId);
    return out === null ? null : out.verdict;
  }

  /** Lines 1..upTo of a session as stored (the Redis analysis reads its stream). */
  protected storedLines(sessionId: string, upTo: number): AsyncIterable<StoredLine> {
    return logLines(this.store, sessionId, upTo);
  }

  private ensureRebuilt(sessionId: string): Promise<void> {
    const e = this.entries.get(sessionId);
    if (e === undefined) return Promise.resolve();
    if (e.rebuild !== null) return e.rebuild;
    if (!e.pending) return Promise.resolve();
    e.pending = false;
    e.rebuild = this.reread(sessionId, e).finally(() => {
      e.rebuild = null;
      e.health.analysed = true;
      this.counters.rebuilding--;
      // what arrived meanwhile, in seq order
      for (const w of e.waiting.splice(0)) {
        if (this.entries.get(sessionId) !== e) w.resolve(null);
        // a retry of a re-read message: its verdict is known now; of one stored since the restart: once that is answered
        else if (w.retry === true) w.resolve(e.health.verdictOf(w.seq) ?? this.afterInFlight(e, () => e.health.verdictOf(w.seq)));
        else w.resolve(this.apply(e, w.seq, w.bytes, w.at, true));
      }
      for (const l of this.listeners) l.changed?.(sessionId);
    });
    return e.rebuild;
  }

  /** Feeds the engine the log as it was when re-reading began; later messages wait in `waiting`. */
  private async reread(sessionId: string, e: Entry): Promise<void> {
    const session = this.store.get(sessionId);
    if (session === undefined) return;
    // every message stored since the relay started is queued in `waiting` (the log's last
    // lines): the log is re-read up to the one before them
    const upTo = session.lastSeq - e.waiting.filter((w) => w.retry !== true).length;
    // with analysis threads: one page's lines in flight while the next is read, not the whole log
    let previous: VerdictAnswer = null;
    let last: VerdictAnswer = null;
    try {
      for await (const page of this.store.read(sessionId, 1, upTo)) {
        if (this.entries.get(sessionId) !== e) return; // deleted meanwhile
        for (const line of page) last = this.apply(e, line.seq, line.bytes, Number.NaN, false);
        if (previous instanceof Promise) await previous;
        previous = last;
      }
      // the session counts as re-read (and its waiting messages go) once every line is answered
      if (last instanceof Promise) await last;
    } catch (err) {
      this.log(`could not re-read ${quoted(sessionId)} for analysis: ${(err as Error).message}`);
    }
  }
}

/** Lines 1..upTo of a stored log (a replacement analysis thread's warm-up). */
export async function* logLines(store: SessionStore, sessionId: string, upTo: number): AsyncGenerator<StoredLine> {
  for await (const page of store.read(sessionId, 1, upTo)) yield* page;
}
