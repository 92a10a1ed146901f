// The relay's analysis of every session (docs/relay.md "Analysis"): each message is
// analysed right after it is stored, in seq order, by the session's own SessionHealth;
// a restarted relay re-reads the stored logs in the background (chunk by chunk, so the
// event loop keeps serving), and a message arriving for a session not yet re-read waits
// for that session only (its re-reading starts at once). The acknowledgement carries the
// verdict (contract §7): it is computed synchronously after the append, or, during the
// re-reading, once the session has caught up.
import type { AckVerdict, SessionSummary } from '../../client/relayApi.ts';
import { quoted } from '../quoted.ts';
import type { ParsedMessage } from '../sessionGate.ts';
import { readChunks, type SessionLogStore } from '../store.ts';
import { SessionHealth, type TurnEvent } from './sessionHealth.ts';

export type VerdictAnswer = AckVerdict | null | Promise<AckVerdict | null>;

interface Waiting {
  seq: number;
  bytes: Buffer;
  at: number;
  resolve: (v: AckVerdict | null) => void;
}

export interface Entry {
  health: SessionHealth;
  /** set while the stored log is being re-read; live messages wait in `waiting` */
  rebuild: Promise<void> | null;
  /** re-reading not started yet (a restarted relay's session) */
  pending: boolean;
  waiting: Waiting[];
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

  constructor(
    private readonly store: SessionLogStore,
    private readonly log: (line: string) => void,
  ) {}

  listen(l: AnalysisListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Starts re-reading every stored session (after the store opened); resolves when all are done. */
  start(): Promise<void> {
    for (const s of this.store.byRecency()) {
      const health = new SessionHealth(s.id, s.updatedAt);
      health.analysed = false;
      health.title = s.header?.title ?? null;
      this.entries.set(s.id, { health, rebuild: null, pending: true, waiting: [] });
    }
    this.counters.rebuilding = this.entries.size;
    const ids = [...this.entries.keys()];
    this.rebuilt = (async () => {
      for (const id of ids) await this.ensureRebuilt(id);
    })();
    return this.rebuilt;
  }

  /** Stops following the store (the Redis analysis listens to other relays). */
  close(): void {}

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
    if (e.pending || e.rebuild !== null) return this.ensureRebuilt(sessionId).then(() => e.health.verdictOf(seq));
    return e.health.verdictOf(seq);
  }

  forget(sessionId: string): void {
    const e = this.entries.get(sessionId);
    if (e === undefined) return;
    this.entries.delete(sessionId);
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

  protected apply(e: Entry, seq: number, bytes: Buffer, at: number, live: boolean, parsed?: ParsedMessage): AckVerdict | null {
    const t0 = performance.now();
    const out = e.health.ingest(seq, bytes, at, parsed);
    if (live) {
      this.counters.analysed++;
      this.counters.analysis_ms += performance.now() - t0;
    }
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
      for (const w of e.waiting.splice(0)) w.resolve(this.entries.get(sessionId) === e ? this.apply(e, w.seq, w.bytes, w.at, true) : null);
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
    const end = session.size;
    const upTo = session.lastSeq - e.waiting.length;
    let seq = 0;
    let carry: Buffer | null = null;
    try {
      for await (const chunk of readChunks(session.file, 0, end)) {
        if (this.entries.get(sessionId) !== e) return; // deleted meanwhile
        const buf: Buffer = carry === null ? chunk : Buffer.concat([carry, chunk]);
        let start = 0;
        for (;;) {
          const nl = buf.indexOf(0x0a, start);
          if (nl === -1) break;
          seq++;
          if (seq <= upTo) this.apply(e, seq, buf.subarray(start, nl), Number.NaN, false);
          start = nl + 1;
        }
        carry = start < buf.length ? Buffer.from(buf.subarray(start)) : null;
      }
    } catch (err) {
      this.log(`could not re-read ${quoted(sessionId)} for analysis: ${(err as Error).message}`);
    }
  }
}
