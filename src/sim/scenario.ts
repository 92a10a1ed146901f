// The scenario generator: a simulated self-editing LLM agent loop that emits contract §2 wire
// messages, healthy by default, with faults switched on in turn windows. Tests, the relay's
// live demo, the committed samples and the benchmarks all use it, so it is seeded and fully
// deterministic (one PRNG, no clock), and pure TypeScript: it runs in Node, a Web Worker
// and the relay. Hashing is handed in, as for the engine.
//
// The loop, per turn (contract §1): new spans are appended; a model call may rewrite or summarise
// spans; every span is rescored; the lowest-scored spans are pruned to keep about `spans`
// live; the snapshot is the buffer at the END of the turn (contract §2). A healthy loop's
// harness is a correct one: rewrites recompute and rebind their scores and report
// spans_modified == scores_invalidated, the pruner refuses spans whose score is not bound to
// their text (seed 000's prune()), never evicts a parent a live span derives from, and halts
// while the verdict is freeze (contract §5). Each fault breaks exactly one of those promises.
//
// The generator keeps its own tally of the few contract §3/§4 quantities its behaviour depends on
// (tokens_total, mean, median, stdev, canary ranks, the freeze verdict), computed exactly as
// the engine does, so that a healthy loop provably stays clear of every threshold and a fault
// shows its signals inside its window and nowhere else.
import type { Sha256Hex } from '../core/analyse.ts';
import { resolveThresholds, type Thresholds } from '../core/config.ts';
import type { Signal } from '../core/signals.ts';
import { scoreStats } from '../core/stats.ts';
import type { Message, Rewrite, SessionHeader, Snapshot, Span } from '../core/wire.ts';
import { Rng } from './random.ts';

export type FaultKind =
  | 'stale_rewrite'
  | 'unbound_score'
  | 'underreported_rewrite'
  | 'fanin_orphans'
  | 'paraphrase_drift'
  | 'narrowing_scores'
  | 'sinking_canary'
  | 'prune_on_stale'
  | 'null_scores';

/** Active on turns from..to inclusive (turn numbers as emitted, not snapshot indices). */
export interface FaultWindow {
  fault: FaultKind;
  from: number;
  to: number;
}

export interface ScenarioOptions {
  seed: number;
  sessionId: string;
  title?: string;
  /** number of snapshots to emit (Infinity: an endless session, e.g. the relay's demo) */
  turns: number;
  /** target live buffer size (e.g. 40; bench uses 200) */
  spans: number;
  /** approximate characters per span text (default 120; bench uses ~400) */
  textChars?: number;
  /** mix some non-ASCII (é, —, 日本, emoji) into texts (default true) */
  nonAscii?: boolean;
  /** number of pinned canary spans (default 2, or spans − 1 when smaller; 0 = no canary) */
  pinned?: number;
  /** default []: a healthy loop */
  faults?: FaultWindow[];
  /** default 1 */
  startTurn?: number;
  /** default 1; >1 leaves gaps in turn numbers */
  turnGap?: number;
  /** emit a session header first (default true) */
  header?: boolean;
  config?: SessionHeader['config'];
  /** ISO time of turn startTurn (default '2026-11-11T10:00:00Z'); ts advances TURN_STEP_MS per turn number */
  startedAt?: string;
}

export const FAULT_KINDS: readonly FaultKind[] = [
  'stale_rewrite',
  'unbound_score',
  'underreported_rewrite',
  'fanin_orphans',
  'paraphrase_drift',
  'narrowing_scores',
  'sinking_canary',
  'prune_on_stale',
  'null_scores',
];

/**
 * The contract §4 signals each fault is built to make the engine emit inside its window, when it
 * is the only fault active (measured by src/sim/scenario.test.ts). Two need company:
 * relevance_collapse (and the freeze verdict) needs narrowing_scores and sinking_canary
 * together, and pruned_during_freeze needs prune_on_stale while that freeze is in force.
 */
export const FAULT_SIGNALS: Readonly<Record<FaultKind, readonly Signal[]>> = {
  stale_rewrite: ['stale_score', 'unreported_rewrite'],
  unbound_score: ['unbound_score'],
  underreported_rewrite: ['invalidation_shortfall', 'unreported_rewrite'],
  fanin_orphans: ['orphaned_parent'],
  paraphrase_drift: ['rewrite_repeat', 'poisoned_span', 'relevance_inflation', 'monotonic_drift'],
  narrowing_scores: ['spread_collapse'],
  sinking_canary: ['canary_inversion'],
  prune_on_stale: ['pruned_on_stale_score', 'unscored_span'],
  null_scores: ['unscored_span'],
};

/** One simulated turn is one second of wall time, so a live demo at a snapshot a second keeps `ts` on the clock. */
export const TURN_STEP_MS = 1000;

const DEFAULT_STARTED_AT = '2026-11-11T10:00:00Z';
/** contract §4 relevance_collapse compresses scores toward the scale's midpoint. */
const MIDPOINT = 0.5;
const SCORE_MAX = 0.99;
const SCORE_MIN = 0.01;
/** Mean spans appended per healthy turn; sets how fast relevance decays so the buffer turns over. */
const APPEND_RATE = 2.3;

type Role = 'system' | 'user' | 'assistant' | 'tool';
/** contract §4 score binding, as the engine will judge it. */
type Binding = 'bound' | 'unscored' | 'unbound' | 'stale';
type PruneReason = 'budget' | 'fault' | 'recovery';

interface SimSpan {
  readonly id: string;
  readonly role: Role;
  readonly pinned: boolean;
  text: string;
  /** sha256 of `text`, computed once per text: the only hashing the generator does. */
  digest: string;
  tokens: number;
  /** relevance the scorer gives this span's content when fresh; decays with age */
  base: number;
  /** snapshot index the span was created at */
  readonly born: number;
  /** decay time constant, in snapshots */
  readonly decay: number;
  /** the scorer's latest opinion, before any fault transform (for a frozen stale span, the kept old score) */
  raw: number;
  /** score on the wire: null when invalidated (contract §2) */
  score: number | null;
  nulled: boolean;
  /** stale_rewrite: the old score is kept, not rescored */
  frozen: boolean;
  /** text_sha256 on the wire */
  sha: string | null;
  rewriteCount: number;
  derivedFrom: readonly string[];
  /** the fault holding this span in a bad state; the harness repairs it when the fault ends */
  hold: FaultKind | null;
  /** null_scores: snapshot index at which the deferred recompute happens */
  recomputeAt: number;
  /** text and binding as last emitted; undefined before the span's first snapshot */
  emittedText: string | undefined;
  emittedBinding: Binding | undefined;
  doomed: PruneReason | null;
}

interface ReportPart {
  modified: string[];
  invalidated: string[];
  spansModified: number;
  scoresInvalidated: number;
}

interface Tally {
  tokens: number;
  nScored: number;
  mean: number | null;
  median: number | null;
  stdev: number | null;
  /** some pinned span scores strictly below the median (contract §4 canary_inversion) */
  inverted: boolean;
}

export function* simulateSession(opts: ScenarioOptions, sha256: Sha256Hex): Generator<Message> {
  const sim = new Simulator(opts, sha256);
  if (opts.header ?? true) yield sim.header();
  for (let i = 0; i < opts.turns; i++) yield sim.step(i);
}

/** How many turns demoFaultCycle's list covers: a day at one snapshot a second. */
export const DEMO_SCHEDULE_TURNS = 86_400;

/**
 * A schedule for the relay's live demo (a snapshot a second) that shows a newcomer, in its
 * first ~100 turns: a healthy stretch, stale scores (contract §1 seed 000), paraphrase drift,
 * fan-in orphans, and a relevance collapse (seed 002: narrowing scores and a sinking canary
 * together, so the verdict turns to freeze, while a broken pruner keeps pruning through it).
 * Each stretch is followed by healthy turns in which the harness repairs the damage. The cycle
 * repeats every `cycleTurns` turns up to DEMO_SCHEDULE_TURNS, after which the demo session
 * stays healthy.
 */
export function demoFaultCycle(cycleTurns = 100): FaultWindow[] {
  if (!Number.isInteger(cycleTurns) || cycleTurns < 50) throw new RangeError(`cycleTurns must be an integer ≥ 50, got ${cycleTurns}`);
  // Fractions of the cycle; at 100 turns: stale 13–24, drift 33–40, orphans 49–54,
  // narrowing 62–88, sinking 68–88, pruning through the freeze 74–88, healthy 89–100.
  const at = (f: number): number => 1 + Math.round(f * cycleTurns);
  const one: FaultWindow[] = [
    { fault: 'stale_rewrite', from: at(0.12), to: at(0.23) },
    { fault: 'paraphrase_drift', from: at(0.32), to: at(0.39) },
    { fault: 'fanin_orphans', from: at(0.48), to: at(0.53) },
    { fault: 'narrowing_scores', from: at(0.61), to: at(0.87) },
    { fault: 'sinking_canary', from: at(0.67), to: at(0.87) },
    { fault: 'prune_on_stale', from: at(0.73), to: at(0.87) },
  ];
  const out: FaultWindow[] = [];
  for (let offset = 0; offset < DEMO_SCHEDULE_TURNS; offset += cycleTurns) {
    for (const w of one) out.push({ fault: w.fault, from: w.from + offset, to: w.to + offset });
  }
  return out;
}

/**
 * Windows covering every FaultKind across turns 1..`turns` (startTurn 1, turnGap 1): a healthy
 * lead-in, then each single fault in its own stretch followed by healthy recovery turns, and
 * last the collapse trio together (narrowing + sinking canary → relevance_collapse and freeze;
 * prune_on_stale inside it → pruned_on_stale_score and pruned_during_freeze).
 */
export function allFaults(turns: number): FaultWindow[] {
  if (!Number.isInteger(turns) || turns < 60) throw new RangeError(`allFaults needs an integer ≥ 60 turns, got ${turns}`);
  const singles: FaultKind[] = ['stale_rewrite', 'unbound_score', 'underreported_rewrite', 'null_scores', 'fanin_orphans', 'paraphrase_drift'];
  const lead = Math.max(4, Math.round(turns * 0.06));
  const seg = Math.floor((turns - lead) / (singles.length + 1));
  const active = Math.max(4, Math.round(seg * 0.6));
  const out: FaultWindow[] = [];
  let start = lead + 1;
  for (const fault of singles) {
    out.push({ fault, from: start, to: start + active - 1 });
    start += seg;
  }
  // the collapse stretch runs longer: freeze needs two narrow snapshots and a sunk canary first
  const last = Math.min(turns - 3, start + Math.round(seg * 0.8) - 1);
  out.push({ fault: 'narrowing_scores', from: start, to: last });
  out.push({ fault: 'sinking_canary', from: start + 1, to: last });
  out.push({ fault: 'prune_on_stale', from: start + 3, to: last });
  return out;
}

// ---------------------------------------------------------------- schedule

/** Which faults are active at a turn. Turns only increase, so one sweep over the sorted windows suffices. */
class Schedule {
  private readonly windows: FaultWindow[];
  private next = 0;
  private open: FaultWindow[] = [];

  constructor(windows: readonly FaultWindow[]) {
    for (const w of windows) {
      if (!FAULT_KINDS.includes(w.fault)) throw new RangeError(`unknown fault ${JSON.stringify(w.fault)}`);
      if (!Number.isInteger(w.from) || !Number.isInteger(w.to) || w.from > w.to)
        throw new RangeError(`fault window ${w.fault} needs integers from ≤ to, got ${w.from}..${w.to}`);
    }
    this.windows = [...windows].sort((a, b) => a.from - b.from);
  }

  at(turn: number): Set<FaultKind> {
    while (this.next < this.windows.length && this.windows[this.next]!.from <= turn) this.open.push(this.windows[this.next++]!);
    this.open = this.open.filter((w) => w.to >= turn);
    return new Set(this.open.map((w) => w.fault));
  }
}

// ---------------------------------------------------------------- texts

const WORDS = (
  'the a and with for after before then must should not now again each every file module function user request response table row field ' +
  'value check fix update remove add keep parser config retry timeout cache schema migration endpoint token budget deploy rollback index ' +
  'query latency build test fixture branch commit review invoice customer report dataset column pipeline worker queue lock release version ' +
  'patch error warning log trace metric threshold window summary constraint deadline owner ticket bug feature flag plan step result'
).split(' ');
const NON_ASCII_WORDS = ['café', 'naïve', 'résumé', 'Zürich', 'façade', '—', '→', '日本語', 'データ', '東京', '🚀', '✅', '😀', 'µs', '±', '€'];
const TOOL_COMMANDS = [
  '$ npm test',
  '$ git diff --stat',
  '$ grep -rn TODO src',
  '$ curl -s /api/health',
  "$ psql -c 'select count(*) from orders'",
  '$ ls -la build',
];
const CANARIES_UNICODE = [
  'Pinned constraint: never run destructive commands outside the sandbox directory.',
  'Pinned constraint: the customer’s budget is 2 000 € — every plan must stay under it.',
  'Pinned constraint: answers cite the ticket id; 日本語 support is required.',
];
const CANARIES_ASCII = [
  'Pinned constraint: never run destructive commands outside the sandbox directory.',
  "Pinned constraint: the customer's budget is 2000 EUR - every plan must stay under it.",
  'Pinned constraint: answers cite the ticket id; Japanese support is required.',
];

// ---------------------------------------------------------------- the simulator

class Simulator {
  private readonly rng: Rng;
  private readonly th: Thresholds;
  private readonly schedule: Schedule;
  private readonly sessionId: string;
  private readonly target: number;
  private readonly textChars: number;
  private readonly nonAscii: boolean;
  private readonly pinnedCount: number;
  private readonly startTurn: number;
  private readonly turnGap: number;
  private readonly t0: number;
  private readonly tau: number;

  private spans: SimSpan[] = [];
  private nextId = 1;
  /** snapshots in a row each fault has been active; -1 when inactive */
  private readonly faultAge = new Map<FaultKind, number>(FAULT_KINDS.map((f) => [f, -1]));

  // per-turn scratch
  private index = 0;
  private active: ReadonlySet<FaultKind> = new Set();
  private report: ReportPart = emptyReport();
  private pruneOrder: SimSpan[] = [];
  private touched = new Set<SimSpan>();
  private driftRewrote = false;

  // carried from the previous snapshot, mirroring the engine's state (contract §4)
  private prev: Tally | null = null;
  private collapseStreak = 0;
  private prevFreeze = false;

  // fault state
  private inflation = 1;
  private driftTargets: SimSpan[] = [];
  private faninNow: string[] = [];
  private faninNext: string[] = [];

  constructor(
    private readonly opts: ScenarioOptions,
    private readonly sha256: Sha256Hex,
  ) {
    const need = (ok: boolean, what: string): void => {
      if (!ok) throw new RangeError(what);
    };
    need(opts.turns >= 0 && (Number.isInteger(opts.turns) || opts.turns === Infinity), `turns must be a whole number ≥ 0, got ${opts.turns}`);
    need(Number.isInteger(opts.spans) && opts.spans >= 1, `spans must be a whole number ≥ 1, got ${opts.spans}`);
    need(opts.sessionId.length > 0, 'sessionId must not be empty');
    this.textChars = opts.textChars ?? 120;
    need(Number.isFinite(this.textChars) && this.textChars >= 16, `textChars must be ≥ 16, got ${this.textChars}`);
    this.pinnedCount = opts.pinned ?? Math.min(2, opts.spans - 1);
    need(
      Number.isInteger(this.pinnedCount) && this.pinnedCount >= 0 && this.pinnedCount < opts.spans,
      `pinned must be a whole number from 0 to spans − 1, got ${this.pinnedCount}`,
    );
    this.startTurn = opts.startTurn ?? 1;
    this.turnGap = opts.turnGap ?? 1;
    need(Number.isInteger(this.startTurn), `startTurn must be an integer, got ${this.startTurn}`);
    need(Number.isInteger(this.turnGap) && this.turnGap >= 1, `turnGap must be a whole number ≥ 1, got ${this.turnGap}`);
    this.t0 = Date.parse(opts.startedAt ?? DEFAULT_STARTED_AT);
    need(Number.isFinite(this.t0), `startedAt is not an ISO time: ${String(opts.startedAt)}`);

    this.rng = new Rng(opts.seed);
    // The generator steers by the same thresholds the engine will apply to its header.
    this.th = resolveThresholds(opts.config, {});
    this.schedule = new Schedule(opts.faults ?? []);
    this.sessionId = opts.sessionId;
    this.target = opts.spans;
    this.nonAscii = opts.nonAscii ?? true;
    // A span lives about target/APPEND_RATE snapshots; decaying over a comparable time keeps
    // the score spread wide (seed 002: healthy scores span ~0.1–0.95) at any buffer size.
    this.tau = Math.max(4, this.target / APPEND_RATE / 1.2);
  }

  header(): SessionHeader {
    const h: SessionHeader = {
      type: 'session',
      session_id: this.sessionId,
      title: this.opts.title ?? `Simulated agent loop (seed ${this.opts.seed})`,
      started_at: isoSeconds(this.t0),
    };
    if (this.opts.config !== undefined) h.config = this.opts.config;
    return h;
  }

  step(i: number): Snapshot {
    const turn = this.startTurn + i * this.turnGap;
    this.index = i;
    this.active = this.schedule.at(turn);
    for (const f of FAULT_KINDS) this.faultAge.set(f, this.active.has(f) ? this.faultAge.get(f)! + 1 : -1);
    this.report = emptyReport();
    this.pruneOrder = [];
    this.touched = new Set();
    this.driftRewrote = false;

    this.recover();
    if (i === 0) this.seedBuffer();
    else this.append();
    this.rewrite();
    this.rescore();
    this.prune();
    this.finalize();
    if (!this.active.has('paraphrase_drift')) this.guardInflation();
    return this.emit(turn);
  }

  // ------------------------------------------------------------ turn phases

  /** The harness repairs what a fault left behind once the fault's window has closed. */
  private recover(): void {
    for (const span of this.spans) {
      const hold = span.hold;
      if (hold === null) continue;
      if (this.active.has(hold)) {
        // null_scores defers the recompute, it does not skip it (contract §2: null = awaiting recompute)
        if (hold === 'null_scores' && span.recomputeAt <= this.index) this.recompute(span);
        continue;
      }
      // contract §5: a poisoned span is dropped, not rescored; the rest are recomputed (seed 000)
      if (hold === 'paraphrase_drift' && span.rewriteCount > this.th.max_rewrites) continue; // dropped in prune()
      this.recompute(span);
    }
    if (!this.active.has('paraphrase_drift')) {
      this.inflation = 1;
      // poisoned targets stay excluded from everything until they are dropped
      this.driftTargets = this.driftTargets.filter((s) => s.hold === 'paraphrase_drift' && this.spans.includes(s));
    }
  }

  private recompute(span: SimSpan): void {
    span.hold = null;
    span.nulled = false;
    span.frozen = false;
    span.sha = span.digest;
    span.rewriteCount = 0;
  }

  private seedBuffer(): void {
    const canaries = this.nonAscii ? CANARIES_UNICODE : CANARIES_ASCII;
    for (let k = 0; k < this.pinnedCount; k++) {
      const text = canaries[k] ?? `Pinned constraint #${k + 1}: keep the ${this.rng.pick(WORDS)} ${this.rng.pick(WORDS)} invariant intact.`;
      this.spans.push(this.newSpan(`pin-${k + 1}`, 'system', text, 0.93, [], true));
    }
    const room = this.target - this.pinnedCount;
    if (room >= 1) this.spans.push(this.newSpan(this.freshId(), 'system', this.words(this.textChars * 1.2, 'You are a coding agent.'), 0.8, []));
    if (room >= 2) {
      const task = this.newSpan(this.freshId(), 'user', this.words(this.textChars, 'Task:'), 0.92, []);
      this.spans.push(task);
      if (room >= 3) this.spans.push(this.newSpan(this.freshId(), 'assistant', this.words(this.textChars * 1.3, 'Plan:'), 0.75, [task.id]));
    }
  }

  /** A turn's new spans: a user message and its answer, or a tool call and its output. */
  private append(): void {
    if (this.active.has('paraphrase_drift')) return; // the model spends the turn compressing its own context
    const rng = this.rng;
    const added: SimSpan[] = [];
    const live = this.liveCount();
    const rounds = live < this.target * 0.7 ? 2 : 1; // fill the buffer faster while it is young
    for (let r = 0; r < rounds; r++) {
      const kind = rng.next();
      if (kind < 0.5) {
        const user = this.newSpan(this.freshId(), 'user', this.words(this.textChars * rng.float(0.5, 1.2)), rng.float(0.5, 0.95), []);
        added.push(user);
        if (rng.chance(0.85))
          added.push(this.newSpan(this.freshId(), 'assistant', this.words(this.textChars * rng.float(0.8, 1.6)), rng.float(0.4, 0.9), [user.id]));
      } else if (kind < 0.85) {
        const call = this.newSpan(this.freshId(), 'assistant', this.words(this.textChars * rng.float(0.5, 1.0), 'Running:'), rng.float(0.35, 0.8), []);
        const output = this.newSpan(this.freshId(), 'tool', this.toolText(this.textChars * rng.float(0.6, 1.8)), rng.float(0.25, 0.8), [call.id]);
        added.push(call, output);
      } else {
        added.push(this.newSpan(this.freshId(), 'assistant', this.words(this.textChars * rng.float(0.6, 1.4), 'Note:'), rng.float(0.4, 0.9), []));
      }
    }
    if (this.active.has('unbound_score')) {
      // a scorer path that forgets the binding: a finite score, no text_sha256 (contract §4 unbound_score)
      let any = false;
      for (const span of added) {
        if (rng.chance(0.6) || (!any && span === added[added.length - 1])) {
          span.sha = rng.chance(0.5) ? null : '';
          span.hold = 'unbound_score';
          any = true;
        }
      }
    }
    this.spans.push(...added);
  }

  private rewrite(): void {
    if (this.index === 0) return;
    const rng = this.rng;
    const a = this.active;
    if (a.has('paraphrase_drift')) this.driftRewrite();
    else if (rng.chance(0.3)) {
      // a healthy rewrite: new text, fresh score bound to it, counts reported truthfully
      const spans = this.pickEligible(rng.pick([1, 1, 1, 2, 2, 3]));
      for (const span of spans) this.rewriteCorrectly(span, rng.chance(0.5) ? 'summary' : 'paraphrase');
      this.addReport(
        spans.map((s) => s.id),
        spans.length,
        spans.length,
      );
    }

    const staleAge = this.faultAge.get('stale_rewrite')!;
    if (a.has('stale_rewrite') && (staleAge === 0 || rng.chance(0.75))) {
      // seed 000's stale score: the text changes, the old score and its old hash stay
      const spans = this.pickEligible(rng.int(1, 2));
      for (const span of spans) {
        this.setText(span, this.rewrittenText(span, 'paraphrase'));
        span.frozen = true;
        span.rewriteCount++;
        span.hold = 'stale_rewrite';
      }
      // every other turn the model even reports the rewrite as invalidated, which it was not;
      // otherwise it reports nothing (contract §4 unreported_rewrite)
      if (spans.length > 0 && staleAge % 2 === 1)
        this.addReport(
          spans.map((s) => s.id),
          spans.length,
          spans.length,
        );
    }

    if (a.has('underreported_rewrite')) {
      // the texts and scores are right; the model's own report is not (contract §4, seed 000 signal 2 / condition b)
      const spans = this.pickEligible(rng.int(1, 3));
      for (const span of spans) this.rewriteCorrectly(span, 'paraphrase');
      const n = spans.length;
      if (n > 0) {
        const ids = spans.map((s) => s.id);
        if (this.faultAge.get('underreported_rewrite')! % 2 === 0) this.addReport(ids, n, n - 1, ids.slice(0, n - 1));
        else this.addReport(ids.slice(0, n - 1), n - 1, n - 1);
      }
    }

    if (a.has('null_scores')) {
      // a correct invalidation (seed 000's apply_rewrite: score absent, no binding) whose recompute is deferred
      const spans = this.pickEligible(rng.int(1, 2));
      for (const span of spans) {
        this.setText(span, this.rewrittenText(span, 'paraphrase'));
        span.nulled = true;
        span.sha = null;
        span.rewriteCount = 1;
        span.hold = 'null_scores';
        span.recomputeAt = this.index + rng.int(2, 3);
      }
      if (spans.length > 0)
        this.addReport(
          spans.map((s) => s.id),
          spans.length,
          spans.length,
        );
    }

    if (a.has('prune_on_stale')) {
      // the scorer invalidates its weakest spans and queues a recompute; next turn the broken
      // pruner ranks their null scores as 0 and evicts them before the recompute lands
      const candidates = this.eligible().filter((s) => !this.hasLiveChildren(s));
      candidates.sort((x, y) => x.raw - y.raw);
      for (const span of candidates.slice(0, rng.int(1, 2))) {
        span.nulled = true;
        span.hold = 'prune_on_stale';
        this.touched.add(span);
      }
    }

    if (a.has('fanin_orphans') && this.faultAge.get('fanin_orphans')! % 4 === 0) this.fanIn();
  }

  /** paraphrase_drift: the same spans rewritten every turn, self-scored, never recomputed by the harness. */
  private driftRewrite(): void {
    if (this.driftTargets.length === 0) {
      const candidates = this.eligible().filter((s) => !this.hasLiveChildren(s));
      const sorted = candidates.map((s) => s.raw).sort((x, y) => x - y);
      const mid = sorted[sorted.length >> 1] ?? 0;
      const upper = candidates.filter((s) => s.raw >= mid);
      const n = Math.min(upper.length, this.rng.chance(0.6) ? 1 : 2);
      for (let k = 0; k < n; k++) {
        const span = upper.splice(this.rng.int(0, upper.length - 1), 1)[0]!;
        this.driftTargets.push(span);
      }
    }
    const ids: string[] = [];
    for (const span of this.driftTargets) {
      const before = span.tokens;
      const next = this.words(Math.max(24, span.text.length * this.rng.float(0.8, 0.92)), 'In short:');
      this.setText(span, next === span.text ? next + '.' : next);
      // tokens must fall on a drift turn (contract §4 relevance_inflation)
      if (span.tokens >= before) span.tokens = Math.max(1, before - 1);
      span.sha = span.digest; // the model scores its own paraphrase, so the hash matches…
      span.rewriteCount++; // …but no recompute by the harness: paraphrase of a paraphrase
      span.hold = 'paraphrase_drift';
      this.touched.add(span);
      ids.push(span.id);
    }
    if (ids.length > 0) {
      this.addReport(ids, ids.length, ids.length);
      this.driftRewrote = true;
    }
  }

  /** fanin_orphans: a summary derived from several parents, whose parents the pruner then evicts. */
  private fanIn(): void {
    const rng = this.rng;
    const candidates = this.eligible().filter((s) => !this.hasLiveChildren(s));
    candidates.sort((x, y) => x.raw - y.raw);
    const parents = candidates.slice(0, rng.int(3, 4));
    if (parents.length < 2) return;
    for (const p of parents) this.touched.add(p);
    const ids = parents.map((p) => p.id);
    const summary = this.newSpan(this.freshId(), 'assistant', this.words(this.textChars * 0.9, `Summary of ${ids.join(', ')}:`), rng.float(0.75, 0.9), ids);
    this.spans.push(summary);
    // most parents go this turn, the last one the next
    this.faninNow.push(...ids.slice(0, -1));
    this.faninNext.push(ids[ids.length - 1]!);
  }

  private rescore(): void {
    for (const span of this.spans) {
      if (span.doomed !== null) continue;
      if (span.pinned) span.raw = clamp(round3(this.rng.normal(0.93, 0.015)), 0.85, SCORE_MAX);
      else if (!span.frozen && !span.nulled) span.raw = this.modelScore(span);
    }
  }

  private prune(): void {
    const a = this.active;
    const brokenPruner = a.has('prune_on_stale');
    // contract §5 freeze: a correct harness halts pruning; the broken pruner does not
    if (this.prevFreeze && !brokenPruner) return;

    if (brokenPruner) {
      // contract §4 pruned_on_stale_score: evict what was null, unbound or stale last snapshot
      for (const span of this.spans) {
        if (!span.pinned && span.doomed === null && span.emittedBinding !== undefined && span.emittedBinding !== 'bound' && !this.driftTargets.includes(span))
          this.doom(span, 'fault');
      }
    }
    if (a.has('fanin_orphans')) {
      const byId = new Map(this.spans.map((s) => [s.id, s]));
      for (const id of this.faninNow) {
        const span = byId.get(id);
        if (span !== undefined && span.doomed === null) this.doom(span, 'fault');
      }
    }
    this.faninNow = a.has('fanin_orphans') ? this.faninNext : [];
    this.faninNext = [];
    for (const span of this.spans) {
      if (span.doomed !== null) continue;
      if (span.hold === 'paraphrase_drift' && !a.has('paraphrase_drift')) this.doom(span, 'recovery'); // contract §5 drop
    }
    if (!a.has('fanin_orphans')) {
      // the harness evicts summaries whose sources are gone rather than keep citing them
      const live = new Set(this.spans.filter((s) => s.doomed === null).map((s) => s.id));
      for (const span of this.spans) {
        if (span.doomed === null && span.derivedFrom.some((p) => p !== span.id && !live.has(p))) this.doom(span, 'recovery');
      }
    }

    // budget: the lowest-scored spans go, children before the parents they derive from
    let live = this.liveCount();
    let forced = this.driftRewrote ? this.rng.int(1, 2) : 0; // drift compresses: tokens must fall
    const children = new Map<string, number>();
    for (const span of this.spans) {
      if (span.doomed !== null) continue;
      for (const p of span.derivedFrom) if (p !== span.id) children.set(p, (children.get(p) ?? 0) + 1);
    }
    while (live > this.target || forced > 0) {
      let best: SimSpan | null = null;
      for (const span of this.spans) {
        // not a span rewritten this turn: its new text would vanish before anyone saw it
        if (span.pinned || span.doomed !== null || span.emittedText === undefined || this.touched.has(span) || this.driftTargets.includes(span)) continue;
        if ((children.get(span.id) ?? 0) > 0) continue;
        // seed 000's prune(): refuse any span whose score is not bound to its text, now or last snapshot
        if (!brokenPruner && (bindingOf(span) !== 'bound' || span.emittedBinding !== 'bound')) continue;
        if (best === null || rankKey(span) < rankKey(best)) best = span;
      }
      if (best === null) break;
      this.doom(best, 'budget');
      for (const p of best.derivedFrom) if (p !== best.id) children.set(p, (children.get(p) ?? 1) - 1);
      live--;
      forced--;
    }
  }

  /** Turns each span's raw score into its score on the wire, applying the active score faults. Draws no randomness. */
  private finalize(): void {
    const a = this.active;
    const live = this.spans.filter((s) => s.doomed === null);
    const vals = live.map((s) => (s.nulled ? null : s.raw));

    if (a.has('paraphrase_drift') && this.driftRewrote) this.inflation = this.searchInflation(vals);
    if (this.inflation !== 1) mapFinite(vals, (v) => Math.min(SCORE_MAX, round3(v * this.inflation)));

    if (a.has('narrowing_scores')) {
      // seed 002 signal A: the distribution narrows toward the midpoint over a couple of turns
      const j = this.faultAge.get('narrowing_scores')!;
      const sd = stdevOf(vals);
      const goal = j === 0 ? sd * 0.55 : j === 1 ? this.th.spread_floor * 0.75 : this.th.spread_floor * 0.55;
      if (sd > goal && sd > 0) mapFinite(vals, (v) => round3(MIDPOINT + (v - MIDPOINT) * (goal / sd)));
    }

    const pinnedAt = live.flatMap((s, k) => (s.pinned && vals[k] !== null ? [k] : []));
    if (a.has('sinking_canary') && pinnedAt.length > 0) this.sink(live, vals, pinnedAt);
    else {
      // a healthy scorer keeps the canaries high (seed 002 condition of validity); keep them
      // at or above the median even when the rest of the buffer happens to score high
      for (let round = 0; round < 5; round++) {
        const median = medianOf(vals);
        if (median === null || !pinnedAt.some((k) => vals[k]! < median)) break;
        for (const k of pinnedAt) if (vals[k]! < median) vals[k] = Math.min(SCORE_MAX, round3(median + 0.05));
      }
    }

    if (!a.has('narrowing_scores') && !a.has('paraphrase_drift')) {
      // keep a healthy spread clear of spread_floor (seed 002: a healthy buffer scores ~0.1–0.95)
      for (let round = 0; round < 3; round++) {
        const n = vals.filter((v) => v !== null).length;
        const sd = stdevOf(vals);
        if (n < this.th.min_scored || sd >= this.th.spread_floor * 1.4) break;
        const unpinned = live.flatMap((s, k) => (!s.pinned && vals[k] !== null ? [vals[k]!] : []));
        const m = unpinned.reduce((x, y) => x + y, 0) / Math.max(1, unpinned.length);
        const factor = sd > 1e-6 ? (this.th.spread_floor * 2) / sd : 1;
        live.forEach((s, k) => {
          const v = vals[k];
          if (s.pinned || v === null || v === undefined) return;
          vals[k] = clamp(round3(sd > 1e-6 ? m + (v - m) * factor : SCORE_MIN + ((SCORE_MAX - SCORE_MIN) * k) / live.length), SCORE_MIN, SCORE_MAX - 0.05);
        });
      }
    }

    live.forEach((s, k) => {
      s.score = vals[k] ?? null;
    });
  }

  /** sinking_canary (seed 002 signal B): the pinned spans slide under the median. */
  private sink(live: SimSpan[], vals: (number | null)[], pinnedAt: number[]): void {
    const j = this.faultAge.get('sinking_canary')!;
    const unpinned = live.flatMap((s, k) => (!s.pinned && vals[k] !== null ? [vals[k]!] : [])).sort((x, y) => x - y);
    if (unpinned.length === 0) return;
    if (j === 0) {
      const mid = quantile(unpinned, 0.5);
      for (const k of pinnedAt) vals[k] = round3(mid + (vals[k]! - mid) * 0.4);
      return;
    }
    // just under the middle when the spread has collapsed, so the canary does not widen it again
    const q = quantile(unpinned, this.active.has('narrowing_scores') ? 0.35 : 0.2);
    pinnedAt.forEach((k, idx) => {
      vals[k] = clamp(round3(q - 0.004 * (idx + 1)), SCORE_MIN, SCORE_MAX);
    });
    for (let round = 0; round < 40; round++) {
      const median = medianOf(vals)!;
      if (pinnedAt.every((k) => vals[k]! < median)) break;
      for (const k of pinnedAt) if (vals[k]! >= median) vals[k] = clamp(round3(vals[k]! - 0.01), SCORE_MIN, SCORE_MAX);
    }
  }

  /**
   * paraphrase_drift's self-scoring: the least inflation factor at which the mean beats the
   * previous one by more than relevance_tolerance (contract §4 relevance_inflation). When even
   * doubling cannot get there (scores near the ceiling) the turn goes without inflation.
   */
  private searchInflation(vals: readonly (number | null)[]): number {
    const prevMean = this.prev?.mean ?? null;
    if (prevMean === null) return this.inflation;
    const goal = prevMean * (1 + this.th.relevance_tolerance) + 0.002;
    const meanAt = (g: number): number => {
      let sum = 0;
      let n = 0;
      for (const v of vals) {
        if (v === null) continue;
        sum += Math.min(SCORE_MAX, round3(v * g));
        n++;
      }
      return n === 0 ? 0 : sum / n;
    };
    let lo = this.inflation;
    let hi = this.inflation * 2;
    if (meanAt(lo) >= goal) return lo;
    if (meanAt(hi) < goal) return this.inflation;
    for (let k = 0; k < 30; k++) {
      const mid = (lo + hi) / 2;
      if (meanAt(mid) >= goal) hi = mid;
      else lo = mid;
    }
    return hi;
  }

  /**
   * A correct loop is not to look like a drifting one: on a rewrite turn where tokens fell and
   * the mean rose beyond relevance_tolerance (contract §4 relevance_inflation), put back the
   * lowest-scored budget prunes (last pruned first, so no child outlives its parent) and, if
   * that is not enough, let a low-relevance tool log land this turn so tokens do not fall.
   */
  private guardInflation(): void {
    const prev = this.prev;
    if (prev === null || prev.mean === null || !this.isRewriteTurn()) return;
    const limit = prev.mean * (1 + this.th.relevance_tolerance);
    const trips = (): boolean => {
      const t = this.tally();
      return t.mean !== null && t.tokens < prev.tokens && t.mean > limit;
    };
    if (!trips()) return;
    for (let k = this.pruneOrder.length - 1; k >= 0 && trips(); k--) {
      const span = this.pruneOrder[k]!;
      if (span.doomed !== 'budget') continue;
      span.doomed = null;
      this.pruneOrder.splice(k, 1);
      this.finalize();
    }
    if (!trips()) return;
    const deficit = prev.tokens - this.tally().tokens;
    const log = this.newSpan(this.freshId(), 'tool', this.toolText(Math.max(this.textChars * 0.5, 4 * (deficit + 4))), 0.15, []);
    log.raw = this.modelScore(log);
    this.spans.push(log);
    this.finalize();
  }

  private emit(turn: number): Snapshot {
    const spans: Span[] = [];
    const kept: SimSpan[] = [];
    for (const s of this.spans) {
      if (s.doomed !== null) continue;
      kept.push(s);
      const out: Span = { span_id: s.id, text: s.text, tokens: s.tokens, score: s.score, text_sha256: s.sha };
      // contract §2 defaults (rewrite_count 0, derived_from [], pinned false) are left out to keep transcripts small
      if (s.rewriteCount > 0) out.rewrite_count = s.rewriteCount;
      if (s.derivedFrom.length > 0) out.derived_from = [...s.derivedFrom];
      if (s.pinned) out.pinned = true;
      out.role = s.role;
      spans.push(out);
      s.emittedText = s.text;
      s.emittedBinding = bindingOf(s);
    }
    this.spans = kept;

    const snap: Snapshot = { type: 'snapshot', session_id: this.sessionId, turn, ts: isoSeconds(this.t0 + (turn - this.startTurn) * TURN_STEP_MS), spans };
    const r = this.report;
    if (r.spansModified > 0 || r.scoresInvalidated > 0) {
      const rewrite: Rewrite = { spans_modified: r.spansModified, scores_invalidated: r.scoresInvalidated };
      if (r.modified.length > 0) rewrite.modified_span_ids = r.modified;
      if (r.invalidated.length > 0) rewrite.invalidated_span_ids = r.invalidated;
      snap.rewrite = rewrite;
    }
    if (this.pruneOrder.length > 0) snap.pruned = this.pruneOrder.map((s) => s.id);

    // the engine's view of this snapshot, for the next turn's decisions (contract §4 spread_collapse, §5 freeze)
    const t = this.tally();
    const narrow = t.stdev !== null && t.nScored >= this.th.min_scored && t.stdev < this.th.spread_floor;
    this.collapseStreak = narrow ? this.collapseStreak + 1 : 0;
    this.prevFreeze = narrow && this.collapseStreak >= this.th.collapse_turns && t.inverted;
    this.prev = t;
    return snap;
  }

  // ------------------------------------------------------------ helpers

  /** contract §3 over the spans that will be emitted, with their wire scores. */
  private tally(): Tally {
    let tokens = 0;
    const scores: number[] = [];
    const pinned: number[] = [];
    for (const s of this.spans) {
      if (s.doomed !== null) continue;
      tokens += s.tokens;
      if (s.score !== null) {
        scores.push(s.score);
        if (s.pinned) pinned.push(s.score);
      }
    }
    const stats = scoreStats(Float64Array.from(scores));
    const median = stats?.median ?? null;
    return {
      tokens,
      nScored: scores.length,
      mean: stats?.mean ?? null,
      median,
      stdev: stats?.stdev ?? null,
      inverted: median !== null && pinned.some((p) => p < median),
    };
  }

  private isRewriteTurn(): boolean {
    if (this.report.spansModified > 0) return true;
    return this.spans.some((s) => s.doomed === null && s.emittedText !== undefined && s.emittedText !== s.text);
  }

  private modelScore(span: SimSpan): number {
    const age = this.index - span.born;
    const v = 0.03 + (span.base - 0.03) * Math.exp(-age / span.decay) + this.rng.normal(0, 0.012);
    return clamp(round3(v), SCORE_MIN, SCORE_MAX - 0.02);
  }

  /** Spans a rewrite fault may take: seen in a snapshot, unpinned, in good standing, not yet touched this turn. */
  private eligible(): SimSpan[] {
    return this.spans.filter(
      (s) =>
        !s.pinned &&
        s.doomed === null &&
        s.hold === null &&
        s.emittedText !== undefined &&
        s.emittedBinding === 'bound' &&
        !this.touched.has(s) &&
        !this.driftTargets.includes(s),
    );
  }

  private pickEligible(n: number): SimSpan[] {
    const pool = this.eligible();
    const out: SimSpan[] = [];
    while (out.length < n && pool.length > 0) out.push(pool.splice(this.rng.int(0, pool.length - 1), 1)[0]!);
    for (const s of out) this.touched.add(s);
    return out;
  }

  private hasLiveChildren(span: SimSpan): boolean {
    return this.spans.some((s) => s.doomed === null && s !== span && s.derivedFrom.includes(span.id));
  }

  private liveCount(): number {
    let n = 0;
    for (const s of this.spans) if (s.doomed === null) n++;
    return n;
  }

  private doom(span: SimSpan, why: PruneReason): void {
    span.doomed = why;
    this.pruneOrder.push(span);
  }

  private rewriteCorrectly(span: SimSpan, kind: 'summary' | 'paraphrase'): void {
    this.setText(span, this.rewrittenText(span, kind));
    span.base = clamp(span.base + this.rng.float(-0.05, 0.06), 0.2, 0.95);
    span.sha = span.digest;
    span.rewriteCount = 0; // recomputed this turn (contract §2: rewrites since the last recompute)
    // seed 000's apply_rewrite records the span itself as a source; contract §4 exempts self-citation
    if (!span.derivedFrom.includes(span.id)) span.derivedFrom = [...span.derivedFrom, span.id];
  }

  private rewrittenText(span: SimSpan, kind: 'summary' | 'paraphrase'): string {
    const len = span.text.length * (kind === 'summary' ? this.rng.float(0.45, 0.7) : this.rng.float(0.85, 1.1));
    const text = kind === 'summary' ? this.words(Math.max(24, len), 'Summary:') : span.role === 'tool' ? this.toolText(len) : this.words(len);
    return text === span.text ? text + ' (rev)' : text;
  }

  private addReport(modified: string[], spansModified: number, scoresInvalidated: number, invalidated: string[] = modified): void {
    this.report.modified.push(...modified);
    this.report.invalidated.push(...invalidated);
    this.report.spansModified += spansModified;
    this.report.scoresInvalidated += scoresInvalidated;
  }

  private freshId(): string {
    return `m${this.nextId++}`;
  }

  private newSpan(id: string, role: Role, text: string, base: number, derivedFrom: readonly string[], pinned = false): SimSpan {
    const digest = this.sha256(text);
    const span: SimSpan = {
      id,
      role,
      pinned,
      text,
      digest,
      tokens: this.tokensOf(text),
      base,
      born: this.index,
      decay: this.tau * this.rng.float(0.6, 1.4),
      raw: base,
      score: base,
      nulled: false,
      frozen: false,
      sha: digest,
      rewriteCount: 0,
      derivedFrom,
      hold: null,
      recomputeAt: 0,
      emittedText: undefined,
      emittedBinding: undefined,
      doomed: null,
    };
    return span;
  }

  private setText(span: SimSpan, text: string): void {
    span.text = text;
    span.digest = this.sha256(text);
    span.tokens = this.tokensOf(text);
    this.touched.add(span);
  }

  /** contract §2 tokens, given explicitly: about a token per four code points, as a tokenizer would vary. */
  private tokensOf(text: string): number {
    let codePoints = text.length;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff) codePoints--;
    }
    return Math.max(1, Math.round((codePoints / 4) * this.rng.float(0.9, 1.15)));
  }

  /** Whole words until about `chars` long: never cuts a surrogate pair, so every text is well-formed UTF-16 (contract §2). */
  private words(chars: number, lead?: string): string {
    const rng = this.rng;
    const parts: string[] = [];
    let len = 0;
    let sentence = 0;
    let capital = lead === undefined || lead.endsWith('.');
    if (lead !== undefined) {
      parts.push(lead);
      len += lead.length;
    }
    while (len < chars) {
      let w = this.nonAscii && rng.chance(0.08) ? rng.pick(NON_ASCII_WORDS) : rng.pick(WORDS);
      if (capital) w = w.charAt(0).toUpperCase() + w.slice(1);
      capital = false;
      sentence++;
      if (sentence >= 6 && rng.chance(0.25)) {
        capital = rng.chance(0.8);
        w += capital ? '.' : ';';
        sentence = 0;
      }
      parts.push(w);
      len += w.length + 1;
    }
    const text = parts.join(' ');
    return /[.;]$/.test(text) ? text : text + '.';
  }

  private toolText(chars: number): string {
    const cmd = this.rng.pick(TOOL_COMMANDS);
    return this.words(Math.max(cmd.length + 8, chars), `${cmd} ${this.nonAscii ? '→' : '->'}`);
  }
}

// ---------------------------------------------------------------- small pure helpers

function emptyReport(): ReportPart {
  return { modified: [], invalidated: [], spansModified: 0, scoresInvalidated: 0 };
}

/** contract §4 binding, decided exactly as the engine decides it. */
function bindingOf(s: SimSpan): Binding {
  if (s.sha !== null && s.sha !== '' && s.sha !== s.digest) return 'stale';
  if (s.nulled) return 'unscored';
  return s.sha === null || s.sha === '' ? 'unbound' : 'bound';
}

/** The broken pruner of prune_on_stale ranks a null score as 0, the classic bug. */
function rankKey(s: SimSpan): number {
  return s.nulled ? -1 : s.raw;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}

function mapFinite(vals: (number | null)[], f: (v: number) => number): void {
  for (let k = 0; k < vals.length; k++) {
    const v = vals[k];
    if (v !== null && v !== undefined) vals[k] = f(v);
  }
}

function finite(vals: readonly (number | null)[]): number[] {
  const out: number[] = [];
  for (const v of vals) if (v !== null) out.push(v);
  return out;
}

/** Population stdev (contract §3). */
function stdevOf(vals: readonly (number | null)[]): number {
  const xs = finite(vals);
  if (xs.length === 0) return 0;
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) * (b - m), 0) / xs.length);
}

/** contract §4: the median of an even count is the mean of the middle two. */
function medianOf(vals: readonly (number | null)[]): number | null {
  const xs = finite(vals).sort((a, b) => a - b);
  if (xs.length === 0) return null;
  const mid = xs.length >> 1;
  return xs.length % 2 === 1 ? xs[mid]! : (xs[mid - 1]! + xs[mid]!) / 2;
}

/** Nearest-rank quantile of an ascending list. */
function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.floor(q * sorted.length)))]!;
}

function isoSeconds(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.endsWith('.000Z') ? iso.slice(0, -5) + 'Z' : iso;
}
