// The relay's analysis over the Redis store (docs/scale-out.md "Analysis and alerts on
// several relays"). Every relay analyses every session, each from the session's stream in
// stream order with the same Engine: the same input in the same order gives every relay the
// same state, so whichever relay acknowledges a snapshot gives the same verdict (contract
// §7), and every relay's overview and alerts see every session.
//
// - A relay that stores a message first catches its analysis of that session up to it
//   (XRANGE from the last seq it analysed), then analyses the message: the ack's verdict is
//   that turn's even when the session's earlier messages went through another relay (a
//   load balancer moved the harness, or the relay it used was killed).
// - Messages stored by other relays are followed from ch:events (`appended`, with the seq)
//   and, for what Pub/Sub may lose (a reconnect), a sweep of the session list every few
//   seconds; a deleted session is forgotten the same ways.
// - At start the relay reads every stream in the background, as the file store re-reads its
//   logs: what was stored before it started is analysed with alerts off (nothing fires twice).
// - With analysis threads the Engines run there as for the file store (RelayAnalysis.apply):
//   a catch-up waits for the answers to its lines before it counts as done.
import type { AckVerdict } from '../../protocol/relay.ts';
import { quoted } from '../quoted.ts';
import { bytesOf, key, PAGE, seqOf, SESSIONS, type Entry as StreamEntry, type RedisBackend } from '../redisStore.ts';
import type { ParsedMessage } from '../sessionGate.ts';
import type { SessionLogStore } from '../store.ts';
import type { StoredLine } from './analysisThreads.ts';
import { logLines, RelayAnalysis, type Entry, type VerdictAnswer } from './relayAnalysis.ts';
import { SessionHealth } from './sessionHealth.ts';

/** how often the session list is compared with what this relay analysed */
export const RECONCILE_MS = 5000;
/** longest the analysis of followed messages holds the event loop before letting I/O (dashboards, acks) run */
const SLICE_MS = 4;

interface Follow {
  /** the last seq analysed */
  seq: number;
  /**
   * messages up to this seq were stored before this relay followed the session: analysed with
   * alerts off (Infinity: up to wherever the first catch-up ends)
   */
  liveAfter: number;
  /** the session list's score (updated_at, ms) when last looked at */
  score: number;
  /** the catch-up under way: one at a time per session, so messages are analysed in seq order */
  chain: Promise<void> | null;
}

export class RedisAnalysis extends RelayAnalysis {
  private readonly follows = new Map<string, Follow>();
  private stopEvents: () => void = () => {};
  private timer: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> | null = null;

  constructor(
    store: SessionLogStore,
    private readonly backend: RedisBackend,
    private readonly logLine: (line: string) => void,
    private readonly reconcileMs = RECONCILE_MS,
    threads = 0,
    parkIdleMs?: number,
  ) {
    super(store, logLine, threads, parkIdleMs);
  }

  override start(): Promise<void> {
    this.stopEvents = this.backend.onEvent(
      (e) => {
        if (e.k === 'appended') void this.follow(e.s, e.q, e.q - 1);
        else if (e.k === 'deleted') this.forget(e.s);
      },
      () => void this.reconcile(false),
    );
    this.rebuilt = this.reconcile(true);
    this.timer = setInterval(() => void this.reconcile(false), this.reconcileMs);
    this.timer.unref();
    return this.rebuilt;
  }

  override close(): void {
    super.close();
    this.stopEvents();
    if (this.timer !== null) clearInterval(this.timer);
  }

  override stored(sessionId: string, seq: number, bytes: Buffer, parsed?: ParsedMessage): VerdictAnswer {
    let f = this.follows.get(sessionId);
    // seq 1 again: the session was deleted (through a relay whose notice has not come) and begun anew
    if (f !== undefined && seq === 1 && f.seq >= 1) {
      this.forget(sessionId);
      f = undefined;
    }
    // a session first seen through a message this relay stored: what came before it is not new
    f ??= this.create(sessionId, seq - 1, Date.now());
    const e = this.entries.get(sessionId)!;
    if (f.chain === null && f.seq === seq - 1) return this.applyOne(e, f, seq, bytes, parsed);
    return this.follow(sessionId, seq, seq - 1).then(() => this.verdictOf(sessionId, seq));
  }

  override duplicate(sessionId: string, seq: number): VerdictAnswer {
    const f = this.follows.get(sessionId);
    const e = this.entries.get(sessionId);
    if (f !== undefined && e !== undefined && f.chain === null && f.seq >= seq) return this.afterInFlight(e, () => this.verdictOf(sessionId, seq));
    return this.follow(sessionId, seq, Number.POSITIVE_INFINITY).then(() => this.verdictOf(sessionId, seq));
  }

  override forget(sessionId: string): void {
    this.follows.delete(sessionId);
    super.forget(sessionId);
  }

  /** Stream entries 1..upTo (a replacement analysis thread's warm-up). */
  protected override storedLines(sessionId: string, upTo: number): AsyncIterable<StoredLine> {
    return logLines(this.backend.store, sessionId, upTo);
  }

  private verdictOf(sessionId: string, seq: number): AckVerdict | null {
    return this.entries.get(sessionId)?.health.verdictOf(seq) ?? null;
  }

  private create(sessionId: string, liveAfter: number, updatedAt: number): Follow {
    const health = new SessionHealth(sessionId, updatedAt);
    this.entries.set(sessionId, { health, rebuild: null, pending: false, waiting: [] });
    const f: Follow = { seq: 0, liveAfter, score: updatedAt, chain: null };
    this.follows.set(sessionId, f);
    return f;
  }

  private applyOne(e: Entry, f: Follow, seq: number, bytes: Buffer, parsed?: ParsedMessage): VerdictAnswer {
    const live = seq > f.liveAfter;
    f.seq = seq;
    if (live) e.health.updatedAt = Date.now();
    return this.apply(e, seq, bytes, live ? Date.now() : Number.NaN, live, parsed);
  }

  /**
   * Analyses the session's stream up to `upTo` (null: to its end), after any catch-up under
   * way. `liveAfter`, for a session not followed yet: what is older is analysed with alerts off
   * (a rule never fires on what other relays had analysed before this one learnt of it).
   */
  private follow(sessionId: string, upTo: number | null, liveAfter: number): Promise<void> {
    let f = this.follows.get(sessionId);
    f ??= this.create(sessionId, liveAfter, Date.now());
    if (upTo !== null && f.chain === null && f.seq >= upTo) return Promise.resolve();
    const own = f;
    const run = (own.chain ?? Promise.resolve()).then(() => this.catchUp(sessionId, own, upTo));
    own.chain = run;
    void run.finally(() => {
      if (own.chain === run) own.chain = null;
    });
    return run;
  }

  private async catchUp(sessionId: string, f: Follow, upTo: number | null): Promise<void> {
    const e = this.entries.get(sessionId);
    if (e === undefined || this.follows.get(sessionId) !== f) return;
    let quiet = 0;
    try {
      for (;;) {
        if (upTo !== null && f.seq >= upTo) break;
        const end = upTo === null ? '+' : `${upTo}-0`;
        const page = (await this.backend.redis.xrangeBuffer(key(sessionId, 'log'), `${f.seq + 1}-0`, end, 'COUNT', PAGE)) as StreamEntry[];
        if (this.follows.get(sessionId) !== f) return; // deleted meanwhile
        let sliceStart = performance.now();
        for (const entry of page) {
          if (performance.now() - sliceStart > SLICE_MS) {
            // following other relays' sessions is background work: the dashboards' live
            // messages and this relay's acks go first
            await new Promise((r) => setImmediate(r));
            if (this.follows.get(sessionId) !== f) return;
            sliceStart = performance.now();
          }
          const seq = seqOf(entry);
          if (seq <= f.seq) continue;
          if (seq <= f.liveAfter) quiet++;
          void this.applyOne(e, f, seq, bytesOf(entry)); // answered below (e.tail)
        }
        // with analysis threads: a page's lines answered before the next is read (and before the catch-up counts as done)
        if (e.tail !== undefined) await e.tail;
        if (page.length < PAGE) break;
      }
      if (f.liveAfter === Number.POSITIVE_INFINITY) f.liveAfter = f.seq;
    } catch (err) {
      this.counters.errors++;
      this.logLine(`could not read ${quoted(sessionId)} from Redis for analysis: ${(err as Error).message}`);
    }
    // messages analysed with alerts off are not announced one by one: once, here
    if (quiet > 0) for (const l of this.listeners) l.changed?.(sessionId);
  }

  /**
   * Compares the session list with what this relay analysed: new or updated sessions are
   * caught up, deleted ones forgotten. `initial`: at start, where every stored message is
   * analysed with alerts off and the overview marks the session as not yet analysed.
   */
  private reconcile(initial: boolean): Promise<void> {
    if (this.sweeping !== null) return this.sweeping;
    const run = (async () => {
      const known = new Set(this.follows.keys());
      let flat: string[];
      try {
        flat = await this.backend.redis.zrange(SESSIONS, '0', '-1', 'WITHSCORES');
      } catch (err) {
        this.logLine(`could not read the session list from Redis for analysis: ${(err as Error).message}`);
        return;
      }
      const listed = new Map<string, number>();
      for (let i = 0; i + 1 < flat.length; i += 2) listed.set(flat[i]!, Number(flat[i + 1]));
      for (const id of known) if (!listed.has(id) && this.follows.has(id)) this.forget(id);
      const fresh = [...listed.keys()].filter((id) => !this.follows.has(id));
      const lasts = initial ? await Promise.all(fresh.map((id) => this.backend.redis.hget(key(id, 'meta'), 'last_seq').catch(() => null))) : [];
      const rebuilding: string[] = [];
      fresh.forEach((id, i) => {
        if (this.follows.has(id)) return; // a message came for it meanwhile
        // after start: sessions another relay created while this one missed the notices; what they hold is not new to them
        const f = this.create(id, initial ? Number(lasts[i] ?? 0) : Number.POSITIVE_INFINITY, listed.get(id)!);
        if (initial) {
          this.entries.get(id)!.health.analysed = false;
          rebuilding.push(id);
        }
        f.score = -1; // caught up below
      });
      this.counters.rebuilding += rebuilding.length;
      for (const [id, score] of listed) {
        const f = this.follows.get(id);
        if (f === undefined || f.score === score) continue;
        f.score = score;
        const done = this.follow(id, null, 0);
        const e = this.entries.get(id)!;
        if (!e.health.analysed) {
          await done;
          e.health.analysed = true;
          this.counters.rebuilding--;
          for (const l of this.listeners) l.changed?.(id);
        }
      }
    })();
    this.sweeping = run.finally(() => {
      this.sweeping = null;
    });
    return this.sweeping;
  }
}
