// The simulated agent loop itself (contract §1), one snapshot per step; src/sim/scenario.ts
// is its entry point and documents what it models.
//
// A turn runs in fixed phases: recover (the harness repairs what a closed fault window left),
// append (or the seeded buffer on the first snapshot), rewrite, rescore, prune, finalize
// (raw scores to wire scores), the inflation guard, emit. The simulator itself is the correct
// harness; each fault is a strategy (src/sim/faults/) whose hooks it runs in those phases while
// the fault is active, in RUN_ORDER, and whose suspended guards it skips. The strategies see it
// only as a SimContext (src/sim/faults/strategy.ts).
//
// The simulator keeps its own tally of the few contract §3/§4 quantities its behaviour depends
// on (tokens_total, mean, median, stdev, canary ranks, the freeze verdict), computed exactly
// as the engine does, so that a healthy loop provably stays clear of every threshold and a
// fault shows its signals inside its window and nowhere else.
import type { Sha256Hex } from '../core/analyse.ts';
import { resolveThresholds, type Thresholds } from '../core/config.ts';
import type { Rewrite, SessionHeader, Snapshot, Span } from '../core/wire.ts';
import { FAULTS, RUN_ORDER } from './faults/index.ts';
import type { FaultHooks, HarnessGuard, RewriteKind, ScoreDraft, SimContext } from './faults/strategy.ts';
import { clamp, round3, SCORE_MAX, SCORE_MIN } from './numeric.ts';
import { FAULT_KINDS, TURN_STEP_MS, type FaultKind, type ScenarioOptions } from './options.ts';
import { Rng } from './random.ts';
import { Schedule } from './schedule.ts';
import { keepCanariesUp, keepSpreadWide } from './scoreGuards.ts';
import { bindingOf, rankKey, tallyOf, type PruneReason, type Role, type SimSpan, type Tally } from './simSpan.ts';
import { TextWriter } from './text.ts';
import { appendAll } from '../core/arrays.ts';

const DEFAULT_STARTED_AT = '2026-11-11T10:00:00Z';
/** Mean spans appended per healthy turn; sets how fast relevance decays so the buffer turns over. */
const APPEND_RATE = 2.3;

interface ReportPart {
  modified: string[];
  invalidated: string[];
  spansModified: number;
  scoresInvalidated: number;
}

const emptyReport = (): ReportPart => ({ modified: [], invalidated: [], spansModified: 0, scoresInvalidated: 0 });

/** A fault's hooks for this session, with its kind. */
interface Running {
  readonly kind: FaultKind;
  readonly hooks: FaultHooks;
}

export class Simulator implements SimContext {
  readonly rng: Rng;
  readonly th: Thresholds;
  readonly text: TextWriter;
  readonly textChars: number;
  private readonly schedule: Schedule;
  private readonly sessionId: string;
  private readonly target: number;
  private readonly pinnedCount: number;
  private readonly startTurn: number;
  private readonly turnGap: number;
  private readonly t0: number;
  private readonly tau: number;

  private buffer: SimSpan[] = [];
  private nextId = 1;
  /** snapshots in a row each fault has been active; -1 when inactive */
  private readonly faultAge = new Map<FaultKind, number>(FAULT_KINDS.map((f) => [f, -1]));
  /** every fault's hooks, in RUN_ORDER */
  private readonly running: readonly Running[];
  private readonly holdsOut: readonly ((span: SimSpan) => boolean)[];
  private readonly hooksOf: ReadonlyMap<FaultKind, FaultHooks>;

  // per-turn scratch
  private turnIndex = 0;
  private active: ReadonlySet<FaultKind> = new Set();
  private on: readonly FaultHooks[] = [];
  private off: readonly FaultHooks[] = [];
  private suspendedGuards: ReadonlySet<HarnessGuard> = new Set();
  private report: ReportPart = emptyReport();
  private pruneOrder: SimSpan[] = [];
  private touched = new Set<SimSpan>();
  private forced = 0;

  // carried from the previous snapshot, mirroring the engine's state (contract §4)
  private prevTally: Tally | null = null;
  private collapseStreak = 0;
  private prevFreeze = false;

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
    this.text = new TextWriter(this.rng, opts.nonAscii ?? true);
    // The generator steers by the same thresholds the engine will apply to its header.
    this.th = resolveThresholds(opts.config, {});
    this.schedule = new Schedule(opts.faults ?? []);
    this.sessionId = opts.sessionId;
    this.target = opts.spans;
    // A span lives about target/APPEND_RATE snapshots; decaying over a comparable time keeps
    // the score spread wide (seed 002: healthy scores span ~0.1–0.95) at any buffer size.
    this.tau = Math.max(4, this.target / APPEND_RATE / 1.2);

    this.running = RUN_ORDER.map((kind) => ({ kind, hooks: FAULTS[kind].start(this) }));
    this.hooksOf = new Map(this.running.map((r) => [r.kind, r.hooks]));
    this.holdsOut = this.running.flatMap((r) => (r.hooks.holdsOut === undefined ? [] : [r.hooks.holdsOut]));
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
    this.turnIndex = i;
    this.active = this.schedule.at(turn);
    for (const f of FAULT_KINDS) this.faultAge.set(f, this.active.has(f) ? this.faultAge.get(f)! + 1 : -1);
    this.on = this.running.filter((r) => this.active.has(r.kind)).map((r) => r.hooks);
    this.off = this.running.filter((r) => !this.active.has(r.kind)).map((r) => r.hooks);
    this.suspendedGuards = new Set([...this.active].flatMap((f) => FAULTS[f].suspends ?? []));
    this.report = emptyReport();
    this.pruneOrder = [];
    this.touched = new Set();
    this.forced = 0;

    this.recover();
    if (i === 0) this.seedBuffer();
    else this.append();
    this.rewrite();
    this.rescore();
    this.prune();
    this.finalize();
    if (!this.suspended('inflation_guard')) this.guardInflation();
    return this.emit(turn);
  }

  // ------------------------------------------------------------ turn phases

  /** The harness repairs what a fault left behind once the fault's window has closed. */
  private recover(): void {
    for (const span of this.buffer) {
      const hold = span.hold;
      if (hold === null) continue;
      const active = this.active.has(hold);
      const keep = this.hooksOf.get(hold)!.keepHold?.(span, active) ?? active;
      // contract §5 / seed 000: what is not kept is recomputed
      if (!keep) recompute(span);
    }
    for (const hooks of this.off) hooks.recover?.();
  }

  private seedBuffer(): void {
    for (let k = 0; k < this.pinnedCount; k++) this.buffer.push(this.newSpan(`pin-${k + 1}`, 'system', this.text.canary(k), 0.93, [], true));
    const room = this.target - this.pinnedCount;
    if (room >= 1) this.buffer.push(this.newSpan(this.freshId(), 'system', this.text.words(this.textChars * 1.2, 'You are a coding agent.'), 0.8, []));
    if (room >= 2) {
      const task = this.newSpan(this.freshId(), 'user', this.text.words(this.textChars, 'Task:'), 0.92, []);
      this.buffer.push(task);
      if (room >= 3) this.buffer.push(this.newSpan(this.freshId(), 'assistant', this.text.words(this.textChars * 1.3, 'Plan:'), 0.75, [task.id]));
    }
  }

  /** A turn's new spans: a user message and its answer, or a tool call and its output. */
  private append(): void {
    if (this.suspended('append')) return;
    const rng = this.rng;
    const text = this.text;
    const chars = this.textChars;
    const added: SimSpan[] = [];
    const rounds = this.liveCount() < this.target * 0.7 ? 2 : 1; // fill the buffer faster while it is young
    for (let r = 0; r < rounds; r++) {
      const kind = rng.next();
      if (kind < 0.5) {
        const user = this.newSpan(this.freshId(), 'user', text.words(chars * rng.float(0.5, 1.2)), rng.float(0.5, 0.95), []);
        added.push(user);
        if (rng.chance(0.85)) added.push(this.newSpan(this.freshId(), 'assistant', text.words(chars * rng.float(0.8, 1.6)), rng.float(0.4, 0.9), [user.id]));
      } else if (kind < 0.85) {
        const call = this.newSpan(this.freshId(), 'assistant', text.words(chars * rng.float(0.5, 1.0), 'Running:'), rng.float(0.35, 0.8), []);
        const output = this.newSpan(this.freshId(), 'tool', text.toolText(chars * rng.float(0.6, 1.8)), rng.float(0.25, 0.8), [call.id]);
        added.push(call, output);
      } else {
        added.push(this.newSpan(this.freshId(), 'assistant', text.words(chars * rng.float(0.6, 1.4), 'Note:'), rng.float(0.4, 0.9), []));
      }
    }
    for (const hooks of this.on) hooks.append?.(added);
    appendAll(this.buffer, added);
  }

  private rewrite(): void {
    if (this.turnIndex === 0) return;
    const rng = this.rng;
    if (!this.suspended('healthy_rewrite') && rng.chance(0.3)) {
      // a healthy rewrite: new text, fresh score bound to it, counts reported truthfully
      const spans = this.pickEligible(rng.pick([1, 1, 1, 2, 2, 3]));
      for (const span of spans) this.rewriteCorrectly(span, rng.chance(0.5) ? 'summary' : 'paraphrase');
      this.addReport(
        spans.map((s) => s.id),
        spans.length,
        spans.length,
      );
    }
    for (const hooks of this.on) hooks.rewrite?.();
  }

  private rescore(): void {
    for (const span of this.buffer) {
      if (span.doomed !== null) continue;
      if (span.pinned) span.raw = clamp(round3(this.rng.normal(0.93, 0.015)), 0.85, SCORE_MAX);
      else if (!span.frozen && !span.nulled) span.raw = this.modelScore(span);
    }
  }

  private prune(): void {
    // contract §5 freeze: a correct harness halts pruning
    if (this.prevFreeze && !this.suspended('freeze_halt')) return;
    for (const hooks of this.on) hooks.prune?.();
    for (const hooks of this.off) hooks.recoverPrune?.();
    if (!this.suspended('orphan_eviction')) {
      // the harness evicts summaries whose sources are gone rather than keep citing them
      const live = new Set(this.buffer.filter((s) => s.doomed === null).map((s) => s.id));
      for (const span of this.buffer) {
        if (span.doomed === null && span.derivedFrom.some((p) => p !== span.id && !live.has(p))) this.doom(span, 'recovery');
      }
    }
    this.pruneBudget();
  }

  /** The lowest-scored spans go until the buffer is back to its target size, children before the parents they derive from. */
  private pruneBudget(): void {
    const boundOnly = !this.suspended('bound_only_pruning');
    let live = this.liveCount();
    let forced = this.forced;
    const children = new Map<string, number>();
    for (const span of this.buffer) {
      if (span.doomed !== null) continue;
      for (const p of span.derivedFrom) if (p !== span.id) children.set(p, (children.get(p) ?? 0) + 1);
    }
    while (live > this.target || forced > 0) {
      let best: SimSpan | null = null;
      for (const span of this.buffer) {
        // not a span rewritten this turn: its new text would vanish before anyone saw it
        if (span.pinned || span.doomed !== null || span.emittedText === undefined || this.touched.has(span) || this.heldOut(span)) continue;
        if ((children.get(span.id) ?? 0) > 0) continue;
        // seed 000's prune(): refuse any span whose score is not bound to its text, now or last snapshot
        if (boundOnly && (bindingOf(span) !== 'bound' || span.emittedBinding !== 'bound')) continue;
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
    const live = this.buffer.filter((s) => s.doomed === null);
    const vals = live.map((s) => (s.nulled ? null : s.raw));
    const draft: ScoreDraft = { live, vals, pinnedAt: live.flatMap((s, k) => (s.pinned && vals[k] !== null ? [k] : [])) };
    for (const hooks of this.on) hooks.finalize?.(draft);
    if (!this.suspended('canary_floor')) keepCanariesUp(draft);
    if (!this.suspended('spread_floor')) keepSpreadWide(draft, this.th);
    live.forEach((s, k) => {
      s.score = vals[k] ?? null;
    });
  }

  /**
   * A correct loop is not to look like a drifting one: on a rewrite turn where tokens fell and
   * the mean rose beyond relevance_tolerance (contract §4 relevance_inflation), put back the
   * lowest-scored budget prunes (last pruned first, so no child outlives its parent) and, if
   * that is not enough, let a low-relevance tool log land this turn so tokens do not fall.
   */
  private guardInflation(): void {
    const prev = this.prevTally;
    if (prev === null || prev.mean === null || !this.isRewriteTurn()) return;
    const limit = prev.mean * (1 + this.th.relevance_tolerance);
    const trips = (): boolean => {
      const t = tallyOf(this.buffer);
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
    const deficit = prev.tokens - tallyOf(this.buffer).tokens;
    const log = this.newSpan(this.freshId(), 'tool', this.text.toolText(Math.max(this.textChars * 0.5, 4 * (deficit + 4))), 0.15, []);
    log.raw = this.modelScore(log);
    this.buffer.push(log);
    this.finalize();
  }

  private emit(turn: number): Snapshot {
    const spans: Span[] = [];
    const kept: SimSpan[] = [];
    for (const s of this.buffer) {
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
    this.buffer = kept;

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
    const t = tallyOf(this.buffer);
    const narrow = t.stdev !== null && t.nScored >= this.th.min_scored && t.stdev < this.th.spread_floor;
    this.collapseStreak = narrow ? this.collapseStreak + 1 : 0;
    this.prevFreeze = narrow && this.collapseStreak >= this.th.collapse_turns && t.inverted;
    this.prevTally = t;
    return snap;
  }

  // ------------------------------------------------------------ SimContext (src/sim/faults/strategy.ts)

  get index(): number {
    return this.turnIndex;
  }

  get prev(): Tally | null {
    return this.prevTally;
  }

  get spans(): readonly SimSpan[] {
    return this.buffer;
  }

  isActive(kind: FaultKind): boolean {
    return this.active.has(kind);
  }

  age(kind: FaultKind): number {
    return this.faultAge.get(kind)!;
  }

  eligible(): SimSpan[] {
    return this.buffer.filter(
      (s) =>
        !s.pinned &&
        s.doomed === null &&
        s.hold === null &&
        s.emittedText !== undefined &&
        s.emittedBinding === 'bound' &&
        !this.touched.has(s) &&
        !this.heldOut(s),
    );
  }

  pickEligible(n: number): SimSpan[] {
    const pool = this.eligible();
    const out: SimSpan[] = [];
    while (out.length < n && pool.length > 0) out.push(pool.splice(this.rng.int(0, pool.length - 1), 1)[0]!);
    for (const s of out) this.touched.add(s);
    return out;
  }

  hasLiveChildren(span: SimSpan): boolean {
    return this.buffer.some((s) => s.doomed === null && s !== span && s.derivedFrom.includes(span.id));
  }

  heldOut(span: SimSpan): boolean {
    return this.holdsOut.some((holds) => holds(span));
  }

  touch(span: SimSpan): void {
    this.touched.add(span);
  }

  setText(span: SimSpan, text: string): void {
    span.text = text;
    span.digest = this.sha256(text);
    span.tokens = this.text.tokensOf(text);
    this.touched.add(span);
  }

  rewrittenText(span: SimSpan, kind: RewriteKind): string {
    const rng = this.rng;
    const len = span.text.length * (kind === 'summary' ? rng.float(0.45, 0.7) : rng.float(0.85, 1.1));
    const text = kind === 'summary' ? this.text.words(Math.max(24, len), 'Summary:') : span.role === 'tool' ? this.text.toolText(len) : this.text.words(len);
    return text === span.text ? text + ' (rev)' : text;
  }

  rewriteCorrectly(span: SimSpan, kind: RewriteKind): void {
    this.setText(span, this.rewrittenText(span, kind));
    span.base = clamp(span.base + this.rng.float(-0.05, 0.06), 0.2, 0.95);
    span.sha = span.digest;
    span.rewriteCount = 0; // recomputed this turn (contract §2: rewrites since the last recompute)
    // seed 000's apply_rewrite records the span itself as a source; contract §4 exempts self-citation
    if (!span.derivedFrom.includes(span.id)) span.derivedFrom = [...span.derivedFrom, span.id];
  }

  addReport(modified: string[], spansModified: number, scoresInvalidated: number, invalidated: string[] = modified): void {
    appendAll(this.report.modified, modified);
    appendAll(this.report.invalidated, invalidated);
    this.report.spansModified += spansModified;
    this.report.scoresInvalidated += scoresInvalidated;
  }

  addSpan(role: Role, text: string, base: number, derivedFrom: readonly string[]): SimSpan {
    const span = this.newSpan(this.freshId(), role, text, base, derivedFrom);
    this.buffer.push(span);
    return span;
  }

  doom(span: SimSpan, why: PruneReason): void {
    span.doomed = why;
    this.pruneOrder.push(span);
  }

  forcePrunes(n: number): void {
    this.forced += n;
  }

  // ------------------------------------------------------------ helpers

  private suspended(guard: HarnessGuard): boolean {
    return this.suspendedGuards.has(guard);
  }

  private isRewriteTurn(): boolean {
    if (this.report.spansModified > 0) return true;
    return this.buffer.some((s) => s.doomed === null && s.emittedText !== undefined && s.emittedText !== s.text);
  }

  private modelScore(span: SimSpan): number {
    const age = this.turnIndex - span.born;
    const v = 0.03 + (span.base - 0.03) * Math.exp(-age / span.decay) + this.rng.normal(0, 0.012);
    return clamp(round3(v), SCORE_MIN, SCORE_MAX - 0.02);
  }

  private liveCount(): number {
    let n = 0;
    for (const s of this.buffer) if (s.doomed === null) n++;
    return n;
  }

  private freshId(): string {
    return `m${this.nextId++}`;
  }

  private newSpan(id: string, role: Role, text: string, base: number, derivedFrom: readonly string[], pinned = false): SimSpan {
    const digest = this.sha256(text);
    return {
      id,
      role,
      pinned,
      text,
      digest,
      tokens: this.text.tokensOf(text),
      base,
      born: this.turnIndex,
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
  }
}

/** The harness's recompute: the score is rebound to the current text and the fault's hold is released. */
function recompute(span: SimSpan): void {
  span.hold = null;
  span.nulled = false;
  span.frozen = false;
  span.sha = span.digest;
  span.rewriteCount = 0;
}

function isoSeconds(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.endsWith('.000Z') ? iso.slice(0, -5) + 'Z' : iso;
}
