// One session as the relay's analysis sees it (docs/relay.md "Analysis"): the same Engine
// the CLI and the Worker run (contract §4–§5), fed each stored message in seq order, and
// what the overview and the alerts need, kept in fixed-size rings so that memory per
// session depends on the live buffer (the engine's previous snapshot), not on the number
// of turns.
import type { Engine } from '../../core/engine.ts';
import { SEVERITY_RANK, SIGNALS, type Severity, type Signal } from '../../core/signals.ts';
import type { AckVerdict, ContextSummary, LastCompaction, SessionStatus, SessionSummary } from '../../protocol/relay.ts';
import type { ParsedMessage } from '../sessionGate.ts';
import { analyseLine, newSessionEngine, type LineOutcome, type TurnDigest } from './sessionEngine.ts';
import { shownTitle } from '../quoted.ts';

/** turns `worst_recent` looks at */
export const RECENT_WINDOW = 20;
/** points per sparkline */
export const SERIES = 120;
/** verdicts remembered per session, to answer a retried message (a duplicate) with its verdict */
export const VERDICT_MEMORY = 64;
/** spreads of the first turns kept for baseline-relative alert rules */
export const BASELINE_MAX_TURNS = 200;
/** turns the rate is measured over */
const RATE_WINDOW = 20;
/** a session with a message this recent is live; without one for ENDED_AFTER_MS it is ended */
export const LIVE_WITHIN_MS = 30_000;
export const ENDED_AFTER_MS = 10 * 60_000;

const SEVERITY_NAMES: readonly Severity[] = ['info', 'warning', 'fault'];
const SIGNAL_INDEX = new Map<string, number>(SIGNALS.map((s, i) => [s, i]));

/** What one analysed snapshot was, for the alert rules. */
export interface TurnEvent {
  health: SessionHealth;
  seq: number;
  /** what the relay keeps of the turn (TurnResult's fields the rules read, wherever the engine ran) */
  result: TurnDigest;
  verdict: AckVerdict;
  /** false while a restarted relay re-reads a stored log: nothing is new, alerts must not fire */
  live: boolean;
}

/** A fixed-length ring of numbers, oldest first when read. */
class Ring {
  private readonly values: Float64Array;
  private count = 0;

  constructor(readonly size: number) {
    this.values = new Float64Array(size);
  }

  push(v: number): void {
    this.values[this.count % this.size] = v;
    this.count++;
  }

  get length(): number {
    return Math.min(this.count, this.size);
  }

  /** i-th newest (0 = the last pushed) */
  back(i: number): number {
    return this.values[(this.count - 1 - i) % this.size]!;
  }

  toArray(): number[] {
    const n = this.length;
    const out = new Array<number>(n);
    for (let i = 0; i < n; i++) out[i] = this.back(n - 1 - i);
    return out;
  }
}

export class SessionHealth {
  title: string | null = null;
  /** an imported agent's transcript (LineOutcome header `imported`) */
  imported = false;
  /** the header's `source` and `project` (an imported agent's session) */
  agent: string | null = null;
  project: string | null = null;
  /** contract §8.9: the out-of-scope session's headline and figures at its last turn */
  context: ContextSummary | null = null;
  turns = 0;
  lastTurn: number | null = null;
  verdict: AckVerdict | null = null;
  lastFault: { signal: string; turn: number } | null = null;
  /** contract §8.3: the last compaction as the engine's audit last stood (TurnDigest.compaction) */
  lastCompaction: LastCompaction | null = null;
  /** ms of the last message stored (the log's mtime after a restart) */
  updatedAt: number;
  /** false while a restarted relay re-reads this session's log */
  analysed = true;
  readonly counts = new Int32Array(SIGNALS.length);
  /** per turn: the worst severity's rank (info 0, warning 1, fault 2), −1 when nothing fired */
  private readonly worst = new Ring(RECENT_WINDOW);
  private readonly worstTurns = new Ring(RECENT_WINDOW);
  private readonly spread = new Ring(SERIES);
  private readonly canary = new Ring(SERIES);
  private readonly times = new Ring(RATE_WINDOW);
  /** the spreads of the first BASELINE_MAX_TURNS snapshots (NaN where undefined) */
  private readonly baseline = new Float64Array(BASELINE_MAX_TURNS);
  private readonly verdicts: ({ seq: number; verdict: AckVerdict } | undefined)[] = new Array(VERDICT_MEMORY);
  /** created on the first message analysed on this thread (none when analysis threads hold the engines) */
  private engine: Engine | null = null;

  constructor(
    readonly sessionId: string,
    now: number,
  ) {
    this.updatedAt = now;
  }

  /**
   * One stored message (its log line), analysed by this session's own Engine on this
   * thread (--analysis-threads 0). `at`: when it was stored (live) or NaN (re-read after a
   * restart: the snapshot's own `ts` is used for the rate then). Returns the turn and its
   * verdict for a snapshot, null for a header; an error string when the engine refused what
   * the relay stored (should not happen: both run contract §2 validation).
   */
  ingest(seq: number, bytes: Uint8Array, at: number, parsed?: ParsedMessage): { result: TurnDigest; verdict: AckVerdict } | null | string {
    this.engine ??= newSessionEngine();
    return this.record(seq, analyseLine(this.engine, seq, bytes, parsed), at);
  }

  /** What the engine made of the message stored as `seq` (here or on an analysis thread), noted as ingest() says. */
  record(seq: number, out: LineOutcome, at: number): { result: TurnDigest; verdict: AckVerdict } | null | string {
    if (out === null) return null;
    switch (out.k) {
      case 'header':
        this.title = shownTitle(out.title);
        this.imported = out.imported;
        this.agent = out.agent;
        this.project = out.project;
        return null;
      case 'error':
        return out.message;
      case 'turn': {
        const when = Number.isNaN(at) ? out.ts : at;
        return { result: out.turn, verdict: this.note(seq, out.turn, when) };
      }
    }
  }

  private note(seq: number, r: TurnDigest, when: number): AckVerdict {
    const signals: Signal[] = [];
    let worst = -1;
    for (const f of r.findings) {
      // findings come in contract §4.1 order, a signal's findings together
      if (signals[signals.length - 1] !== f.signal) signals.push(f.signal);
      this.counts[SIGNAL_INDEX.get(f.signal)!]!++;
      worst = Math.max(worst, SEVERITY_RANK[f.severity]);
      if (f.severity === 'fault') this.lastFault = { signal: f.signal, turn: r.turn };
    }
    const verdict: AckVerdict = { ...r.verdict, signals };
    const spread = r.metrics.stdev_score ?? Number.NaN;
    const canary = r.canary;
    if (this.turns < BASELINE_MAX_TURNS) this.baseline[this.turns] = spread;
    this.turns++;
    this.lastTurn = r.turn;
    this.verdict = verdict;
    this.worst.push(worst);
    this.worstTurns.push(r.turn);
    this.spread.push(spread);
    this.canary.push(canary);
    if (Number.isFinite(when)) this.times.push(when);
    this.verdicts[seq % VERDICT_MEMORY] = { seq, verdict };
    if (r.compaction !== undefined) this.lastCompaction = r.compaction;
    this.context = r.context ?? null;
    return verdict;
  }

  /** The verdict given to the snapshot stored as `seq`, when it is among the last VERDICT_MEMORY. */
  verdictOf(seq: number): AckVerdict | null {
    const v = this.verdicts[seq % VERDICT_MEMORY];
    return v !== undefined && v.seq === seq ? v.verdict : null;
  }

  /** The median spread of the first `turns` snapshots (those with a spread); null until that many were seen. */
  baselineSpread(turns: number): number | null {
    const k = Math.min(turns, BASELINE_MAX_TURNS);
    if (this.turns < k) return null;
    const vals: number[] = [];
    for (let i = 0; i < k; i++) if (!Number.isNaN(this.baseline[i]!)) vals.push(this.baseline[i]!);
    if (vals.length === 0) return null;
    vals.sort((a, b) => a - b);
    const mid = vals.length >> 1;
    return vals.length % 2 === 1 ? vals[mid]! : (vals[mid - 1]! + vals[mid]!) / 2;
  }

  status(now: number): SessionStatus {
    const age = now - this.updatedAt;
    return age <= LIVE_WITHIN_MS ? 'live' : age <= ENDED_AFTER_MS ? 'idle' : 'ended';
  }

  summary(now: number): SessionSummary {
    let worst = -1;
    let worstTurn: number | null = null;
    for (let i = 0; i < this.worst.length; i++) {
      const w = this.worst.back(i);
      // newest first: the latest turn of the worst severity
      if (w > worst) {
        worst = w;
        worstTurn = this.worstTurns.back(i);
      }
    }
    const counts: Record<string, number> = {};
    for (let i = 0; i < SIGNALS.length; i++) if (this.counts[i]! > 0) counts[SIGNALS[i]!] = this.counts[i]!;
    let rate: number | null = null;
    const n = this.times.length;
    const status = this.status(now);
    // a rate means the agent's pace: only while live, and never for a transcript read by an adapter
    if (n >= 2 && status === 'live' && !this.imported) {
      const span = this.times.back(0) - this.times.back(n - 1);
      rate = span > 0 ? Math.round(((n - 1) / span) * 60_000 * 10) / 10 : null;
    }
    const finite = (v: number): number | null => (Number.isFinite(v) ? Math.round(v * 1e4) / 1e4 : null);
    return {
      session_id: this.sessionId,
      title: this.title,
      status,
      imported: this.imported,
      turns: this.turns,
      last_turn: this.lastTurn,
      verdict: this.verdict,
      worst_recent: worst < 0 ? null : SEVERITY_NAMES[worst]!,
      worst_recent_turn: worst < 0 ? null : worstTurn,
      window: RECENT_WINDOW,
      last_fault: this.lastFault,
      counts,
      rate_per_min: rate,
      spread: this.spread.toArray().map(finite),
      canary_rank: this.canary.toArray().map(finite),
      updated_at: new Date(this.updatedAt).toISOString(),
      analysed: this.analysed,
      last_compaction: this.lastCompaction,
      agent: this.agent,
      project: this.project,
      context: this.context,
    };
  }
}
