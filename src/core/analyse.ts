// One snapshot of one session in, its metrics (contract §3), findings (contract §4) and verdict
// (contract §5) out. The state carried from turn to turn is exactly what the detectors need:
// the previous snapshot's spans (text, hash, score binding), the streak counters, and the
// ids ever seen pruned.
import type { Thresholds } from './config.ts';
import { judgeText, SurvivingText, type AuditItem } from './compactionAudit.ts';
import { CompactionLedger, readArchived, readCompaction, type CompactionMark, type CompactionTurn } from './compactions.ts';
import { notApplicable, type DetectorScope } from './scope.ts';
import { compositionKind, MILLION, modelWindow, type ContextWindow } from './composition.ts';
import { SEVERITY, type Action, type Finding, type Signal, type Verdict } from './signals.ts';
import { rankOf, scoreStats } from './stats.ts';
import { SpanTable } from './spanTable.ts';
import { recomputeSet } from './verdict.ts';
import type { Snapshot } from './wire.ts';

/** sha256 of the UTF-8 bytes of `text`, as 64 lowercase hex digits. Handed in: node:crypto or a browser hash. */
export type Sha256Hex = (text: string) => string;

/** contract §4 score binding of one span. */
export const Binding = {
  Bound: 0,
  /** score is null: invalidated, awaiting recompute */
  Unscored: 1,
  /** finite score, no text_sha256 */
  Unbound: 2,
  /** text_sha256 set and ≠ sha256(text) */
  Stale: 3,
} as const;
export type Binding = (typeof Binding)[keyof typeof Binding];

export interface CanaryMetric {
  span_id: string;
  score: number;
  rank: number;
  below_median: boolean;
}

export interface TurnMetrics {
  turn: number;
  n_spans: number;
  n_scored: number;
  tokens_total: number;
  /** true when some span had no `tokens` and its count was estimated (contract §2). */
  tokens_estimated: boolean;
  mean_score: number | null;
  median_score: number | null;
  stdev_score: number | null;
  /** 10th and 90th percentile of the finite scores (nearest rank), for the distribution band. */
  p10_score: number | null;
  p90_score: number | null;
  canaries: CanaryMetric[];
  orphan_edges: number;
  spans_modified: number;
  scores_invalidated: number;
  texts_changed: number;
  /** contract §8.7: tokens by kind of span, summing to tokens_total; only for sessions whose spans say their kind */
  tokens_by_kind?: Record<string, number>;
}

export interface SpanCheck {
  binding: Binding;
  /** sha256 of the text, when it was computed (only spans that carry a text_sha256). */
  digest: string | undefined;
  textChanged: boolean;
}

export interface TurnResult {
  sessionId: string;
  turn: number;
  metrics: TurnMetrics;
  findings: Finding[];
  verdict: Verdict;
  /** Per span, in snapshot order. */
  checks: SpanCheck[];
  /**
   * Per span, in snapshot order: the index in the session's previous snapshot of the span
   * with the same id and the same text, or −1 (new, or its text changed). The engine's
   * replay fingerprint reuses that span's text hash.
   */
  sameTextAt: Int32Array;
  /** contract §8.3: the compaction that took effect at this turn and the refetches it reported, or null */
  compaction: CompactionTurn | null;
  /** contract §8.7: the session's context window as known at this turn, or null */
  contextWindow: ContextWindow | null;
}

/**
 * What the next turn needs of this one. The span columns and checks are this turn's own (no
 * copy, no object per span).
 */
interface PrevTurn {
  turn: number;
  spans: SpanTable;
  checks: readonly SpanCheck[];
  /** per index, contract §2 estimate of the text when the span had no `tokens` (NaN otherwise); null when none had */
  estimates: Float64Array | null;
  tokensTotal: number;
  mean: number | null;
  action: Action;
}

/** Everything one session carries from one snapshot to the next. */
export class SessionAnalysis {
  private prev: PrevTurn | null = null;
  /** rewrite turns in a row (non-rewrite turns skipped) on which relevance_inflation held */
  private inflationStreak = 0;
  /** snapshots in a row on which the spread_collapse condition held */
  private collapseStreak = 0;
  private inNoCanaryRun = false;
  /** every id ever listed in `pruned`, to say whether an orphan's parent was pruned */
  private readonly everPruned = new Set<string>();
  /** contract §8.2: ids the session's snapshots declared archived (the agent's transcript holds them) */
  private readonly archived = new Set<string>();
  /** contract §8.3: the session's compactions */
  readonly compactions = new CompactionLedger();
  /** contract §8.1: which detectors apply (the engine sets it from the session header) */
  scope: DetectorScope = 'all';
  /** contract §8.7: the header's `context_window` and `--context-window`, tried after the model table */
  headerWindow: number | null = null;
  optionWindow: number | null = null;
  private window: ContextWindow | null = null;
  private inPressureRun = false;
  /** contract §8.7: null until the first snapshot says whether the session's spans carry kinds */
  private composition: boolean | null = null;

  constructor(
    readonly sessionId: string,
    public thresholds: Thresholds,
    private readonly sha256: Sha256Hex,
    /** most pruned ids remembered (oldest forgotten first); only orphaned_parent's message reads them */
    private readonly prunedMemory = Number.POSITIVE_INFINITY,
  ) {}

  get lastTurn(): number | null {
    return this.prev === null ? null : this.prev.turn;
  }

  /**
   * `table`: the snapshot's spans column by column, as validation wrote them (with the id →
   * index map it built to find duplicate ids); built here when not given. One map per turn
   * serves validation, the lookups of the next turn, orphans and the recompute list.
   */
  analyse(snap: Snapshot, table: SpanTable = SpanTable.of(snap.spans)): TurnResult {
    const th = this.thresholds;
    const turn = snap.turn;
    const n = table.length;
    const prev = this.prev;
    const index = table.index;
    const declaredArchived = readArchived(snap);
    for (const id of declaredArchived) this.archived.add(id);
    const scan = scanSpans(table, prev, this.sha256, th.max_rewrites, this.archived);
    const {
      checks,
      estimates,
      nScored,
      tokensTotal,
      textsChanged,
      unbound,
      stale,
      unscored,
      changed,
      repeat,
      poisoned,
      pinnedScored,
      orphanCiters,
      missingParents,
    } = scan;

    // contract §3 statistics over finite scores
    const sorted = scan.scores.subarray(0, nScored);
    const stats = scoreStats(sorted);
    const mean = stats?.mean ?? null;
    const median = stats?.median ?? null;

    const canaries: CanaryMetric[] = [];
    const inverted: string[] = [];
    for (const k of pinnedScored) {
      const id = table.ids[k]!;
      const s = table.scores[k]!;
      const below = median !== null && s < median;
      canaries.push({ span_id: id, score: s, rank: rankOf(s, sorted), below_median: below });
      if (below) inverted.push(id);
    }

    const rewrite = snap.rewrite;
    const spansModified = rewrite?.spans_modified ?? 0;
    const scoresInvalidated = rewrite?.scores_invalidated ?? 0;
    const pruned = snap.pruned ?? [];

    const findings: Finding[] = [];
    // contract §8.1: a signal outside the session's scope is not evaluated, so it never reaches the verdict either
    const skipped = notApplicable(this.scope);
    const applies = (signal: Signal): boolean => skipped[signal] === undefined;
    const emit = (signal: Signal, spanIds: string[], message: string): void => {
      if (applies(signal)) findings.push({ turn, signal, severity: SEVERITY[signal], span_ids: spanIds, message });
    };

    if (unbound.length > 0) {
      emit(
        'unbound_score',
        unbound,
        `${count(unbound, 'span')} ${verb(unbound, 'carries', 'carry')} a score with no text_sha256 binding (${idList(unbound)}): the score cannot be tied to the text it was computed on`,
      );
    }
    if (stale.length > 0) {
      emit(
        'stale_score',
        stale,
        `${count(stale, 'span')} ${verb(stale, 'carries', 'carry')} a score bound to other text (${idList(stale)}): text_sha256 does not match sha256 of the current text`,
      );
    }
    if (unscored.length > 0) {
      emit(
        'unscored_span',
        unscored,
        `${count(unscored, 'span')} ${verb(unscored, 'has', 'have')} a null score, invalidated and awaiting recompute (${idList(unscored)})`,
      );
    }
    const shortfall = spansModified > 0 && scoresInvalidated < spansModified;
    if (shortfall) {
      emit(
        'invalidation_shortfall',
        rewrite?.modified_span_ids ?? [],
        `the rewrite reported ${spansModified} spans modified but only ${scoresInvalidated} scores invalidated: pruning would act on stale scores`,
      );
    }
    const unreported = prev !== null && textsChanged > spansModified;
    if (unreported) {
      emit(
        'unreported_rewrite',
        changed,
        `${textsChanged} span texts changed since turn ${prev.turn} but the rewrite reported ${spansModified} modified (${idList(changed)}): the model's own report cannot be trusted`,
      );
    }

    // contract §4 relevance_inflation / monotonic_drift
    const rewriteTurn = spansModified > 0 || textsChanged > 0;
    let inflation = false;
    if (prev !== null && rewriteTurn && mean !== null && prev.mean !== null) {
      inflation = tokensTotal < prev.tokensTotal && mean > prev.mean * (1 + th.relevance_tolerance);
    }
    if (rewriteTurn) this.inflationStreak = inflation ? this.inflationStreak + 1 : 0;
    if (inflation) {
      emit(
        'relevance_inflation',
        [],
        `tokens fell from ${prev!.tokensTotal} to ${tokensTotal} while mean relevance rose from ${fmt(prev!.mean!)} to ${fmt(mean!)} (more than ${pct(th.relevance_tolerance)}): a compression artifact, not a quality gain`,
      );
      // monotonic_drift: turns without a rewrite neither extend nor break the run
      if (this.inflationStreak >= th.drift_turns) {
        emit(
          'monotonic_drift',
          [],
          `mean relevance has risen while tokens fell on ${this.inflationStreak} rewrite turns in a row (threshold ${th.drift_turns}): scores are drifting, not improving`,
        );
      }
    }

    if (orphanCiters.length > 0) {
      const parts = [...missingParents].map(
        (p) => `${JSON.stringify(p)}${this.everPruned.has(p) || pruned.includes(p) ? ' (pruned earlier)' : ' (never seen pruned)'}`,
      );
      emit(
        'orphaned_parent',
        orphanCiters,
        `${count(orphanCiters, 'live span')} ${verb(orphanCiters, 'derives', 'derive')} from missing parents ${parts.join(', ')}`,
      );
    }
    if (repeat.length > 0) {
      emit(
        'rewrite_repeat',
        repeat,
        `${count(repeat, 'span')} rewritten ${th.max_rewrites} times without a recompute (${idList(repeat)}): a rewrite of a rewrite`,
      );
    }
    if (poisoned.length > 0) {
      emit(
        'poisoned_span',
        poisoned,
        `${count(poisoned, 'span')} rewritten more than ${th.max_rewrites} times without a recompute (${idList(poisoned)}): paraphrase of a paraphrase; drop, do not rescore`,
      );
    }

    // contract §4 spread_collapse / canary_inversion / relevance_collapse (seed 002)
    const narrow = stats !== null && nScored >= th.min_scored && stats.stdev < th.spread_floor;
    this.collapseStreak = narrow ? this.collapseStreak + 1 : 0;
    const spreadCollapse = narrow && this.collapseStreak >= th.collapse_turns;
    if (spreadCollapse) {
      emit(
        'spread_collapse',
        [],
        `score stdev ${fmt(stats.stdev)} below the floor ${th.spread_floor} over ${nScored} scored spans for ${this.collapseStreak} snapshots in a row`,
      );
    }
    if (inverted.length > 0) {
      emit('canary_inversion', inverted, `pinned ${count(inverted, 'span')} scored below the median ${fmt(median!)} (${idList(inverted)})`);
    }
    const collapse = spreadCollapse && inverted.length > 0 && applies('relevance_collapse');
    if (collapse) {
      emit('relevance_collapse', inverted, `spread collapsed and pinned canaries sank below the median: the scorer has collapsed; freeze pruning`);
    }
    const noCanary = pinnedScored.length === 0 && applies('no_canary');
    if (noCanary && !this.inNoCanaryRun) {
      emit('no_canary', [], `no pinned span carries a finite score, so relevance collapse cannot be detected from here on`);
    }
    this.inNoCanaryRun = noCanary;

    // contract §4 pruning signals, judged against the previous snapshot
    if (prev !== null && pruned.length > 0) {
      const onStale = pruned.filter((id) => {
        const j = prev.spans.index.get(id);
        const b = j === undefined ? undefined : prev.checks[j]!.binding;
        return b === Binding.Unscored || b === Binding.Unbound || b === Binding.Stale;
      });
      if (onStale.length > 0) {
        emit(
          'pruned_on_stale_score',
          onStale,
          `${count(onStale, 'span')} pruned although at turn ${prev.turn} their scores were null, unbound or stale (${idList(onStale)})`,
        );
      }
      if (prev.action === 'freeze') {
        emit('pruned_during_freeze', [...pruned], `${count(pruned, 'span')} pruned although turn ${prev.turn}'s verdict was freeze (${idList(pruned)})`);
      }
    }
    for (const id of pruned) this.everPruned.add(id);
    // a Set iterates in insertion order: the first ids are the oldest
    while (this.everPruned.size > this.prunedMemory) this.everPruned.delete(this.everPruned.values().next().value!);

    // contract §5 verdict
    let action: Action = 'prune_ok';
    let recompute: string[] = [];
    const staleScores = applies('stale_score') && (unscored.length + unbound.length + stale.length > 0 || shortfall || unreported);
    if (collapse) action = 'freeze';
    else if (staleScores) {
      action = 'recompute';
      const seeds = new Set<string>([...unscored, ...unbound, ...stale]);
      if (shortfall || unreported) {
        for (const id of changed) seeds.add(id);
        for (const id of rewrite?.modified_span_ids ?? []) if (index.has(id)) seeds.add(id);
      }
      recompute = recomputeSet(table, seeds);
    }
    const verdict: Verdict = { turn, action, prune_safe: action === 'prune_ok', recompute, drop: applies('poisoned_span') ? poisoned : [] };

    // contract §8.7 pressure: the first turn of each run at or above the threshold share of the window
    const window = this.resolveWindow(snap, tokensTotal);
    const full = window !== null && tokensTotal >= th.pressure_threshold * window.tokens;
    if (full && !this.inPressureRun) {
      emit(
        'context_pressure',
        [],
        `the context holds ${tokensTotal} tokens, ${pct(tokensTotal / window.tokens)} of the ${window.tokens}-token window (threshold ${pct(th.pressure_threshold)}): a compaction is near`,
      );
    }
    this.inPressureRun = full;

    // contract §8.3 compactions: declared by the snapshot, or a native rewrite into archived parents
    const mark = readCompaction(snap) ?? (declaredArchived.length > 0 && prev !== null ? nativeRewrite(table, prev, this.archived) : null);
    const compaction = this.compactions.observe(
      snap,
      mark,
      mark === null ? '' : summaryText(table, mark),
      prev?.tokensTotal ?? null,
      tokensTotal,
      th.compaction_loss_min,
    );
    if (compaction !== null) {
      const r = compaction.record;
      if (r !== null)
        emit(
          'compaction',
          r.summary_span_ids.filter((id) => index.has(id)),
          compactionMessage(r.kind, r.tokens_before, r.tokens_after, r.spans_replaced, r.items),
        );
      for (const loss of compaction.losses) {
        emit(
          'compaction_loss',
          [],
          `${count(loss.items, 'item')} the compaction at turn ${loss.record.turn} lost ${verb(loss.items, 'was', 'were')} gone back for (${loss.items
            .slice(0, 5)
            .map((it) => `${it.kind} ${JSON.stringify(it.text.length > 80 ? `${it.text.slice(0, 79)}…` : it.text)} at turn ${it.refetched_at}`)
            .join(', ')}${loss.items.length > 5 ? ` and ${loss.items.length - 5} more` : ''}): the summary dropped something the agent needed`,
        );
      }
    }

    const metrics: TurnMetrics = {
      turn,
      n_spans: n,
      n_scored: nScored,
      tokens_total: tokensTotal,
      tokens_estimated: estimates !== null,
      mean_score: mean,
      median_score: median,
      stdev_score: stats?.stdev ?? null,
      p10_score: nScored > 0 ? sorted[Math.min(nScored - 1, Math.floor(0.1 * nScored))]! : null,
      p90_score: nScored > 0 ? sorted[Math.min(nScored - 1, Math.floor(0.9 * nScored))]! : null,
      canaries,
      orphan_edges: scan.orphanEdges,
      spans_modified: spansModified,
      scores_invalidated: scoresInvalidated,
      texts_changed: textsChanged,
    };
    this.composition ??= scopeIsImported(this.scope) || snap.spans.some((s) => s.label !== undefined);
    if (this.composition) metrics.tokens_by_kind = tokensByKind(table, snap, estimates);

    this.prev = { turn, spans: table, checks, estimates, tokensTotal, mean, action };
    return { sessionId: this.sessionId, turn, metrics, findings, verdict, checks, sameTextAt: scan.sameTextAt, compaction, contextWindow: window };
  }

  /**
   * contract §8.7: the window from the model table (the snapshot's `model`), else the header's
   * `context_window`, else `--context-window`. A call past a 200,000-token model's window
   * shows the 1M-token variant is in use.
   */
  private resolveWindow(snap: Snapshot, tokensTotal: number): ContextWindow | null {
    const model = typeof snap.model === 'string' ? snap.model : null;
    const fromModel = model === null ? null : modelWindow(model);
    if (fromModel !== null && (this.window === null || this.window.source !== 'model')) this.window = { tokens: fromModel, source: 'model', model: model! };
    if (this.window === null && this.headerWindow !== null) this.window = { tokens: this.headerWindow, source: 'header' };
    if (this.window === null && this.optionWindow !== null) this.window = { tokens: this.optionWindow, source: 'option' };
    if (this.window?.source === 'model' && this.window.tokens < MILLION && tokensTotal > this.window.tokens) this.window = { ...this.window, tokens: MILLION };
    return this.window;
  }
}

/** What one pass over a snapshot's spans finds: the per-span half of the analysis. */
interface SpanScan {
  checks: SpanCheck[];
  sameTextAt: Int32Array;
  /** per index, contract §2 estimate when the span had no `tokens` (NaN otherwise); null when every span had them */
  estimates: Float64Array | null;
  /** the finite scores, in its first nScored entries */
  scores: Float64Array;
  nScored: number;
  tokensTotal: number;
  textsChanged: number;
  unbound: string[];
  stale: string[];
  unscored: string[];
  changed: string[];
  repeat: string[];
  poisoned: string[];
  /** indices of the pinned spans with a finite score */
  pinnedScored: number[];
  /** contract §4 orphaned_parent: the citing spans, their missing parents, and the distinct (citing span, missing parent) pairs */
  orphanCiters: string[];
  missingParents: Set<string>;
  orphanEdges: number;
}

// What scanSpans notes of each span, one bit each; collectLists makes the lists from them.
const STALE = 1;
const UNBOUND = 2;
const UNSCORED = 4;
const CHANGED = 8;
const REPEAT = 16;
const POISONED = 32;
/** a parent named in derived_from is not live */
const ORPHAN = 64;
const PINNED_SCORED = 128;
// Binding's values as plain constants: `Binding.Stale` is a property read, which V8 wants to have seen run
const BOUND: Binding = Binding.Bound;
const NULL_SCORE: Binding = Binding.Unscored;
const NO_HASH: Binding = Binding.Unbound;
const STALE_HASH: Binding = Binding.Stale;

/**
 * The per-span loop, kept apart from the turn-level findings, and with no branch that runs
 * only on some spans of some turns: V8 throws away a function's optimised code when code
 * it has never run is first run, and recompiles it. Together with the findings (a signal's
 * first finding comes mid-run) and pushing to the lists itself (a first stale span, orphan
 * or poisoned span mid-run), this loop went back to unoptimised code nine times in a
 * 2,000-turn run and took ~230 ms of compiling (--trace-opt). It notes what it finds in
 * `flags`, the same store on every span; collectLists, small, makes the lists.
 */
function scanSpans(table: SpanTable, prev: PrevTurn | null, sha256: Sha256Hex, maxRewrites: number, archived: ReadonlySet<string>): SpanScan {
  const { ids, texts, index } = table;
  const n = ids.length;
  const checks: SpanCheck[] = new Array(n);
  const sameTextAt = new Int32Array(n);
  const flags = new Uint8Array(n);
  let estimates: Float64Array | null = null;
  const scores = new Float64Array(n);
  let nScored = 0;
  let tokensTotal = 0;
  let textsChanged = 0;

  const prevIds = prev?.spans.ids;
  const prevTexts = prev?.spans.texts;
  const prevChecks = prev?.checks;
  // where the previous snapshot's span of the next id is expected: the same order, shifted by what was pruned
  let cursor = 0;
  for (let i = 0; i < n; i++) {
    const id = ids[i]!;
    const text = texts[i]!;
    let j = -1;
    if (prev !== null) {
      j = cursor < prevIds!.length && prevIds![cursor] === id ? cursor : (prev.spans.index.get(id) ?? -1);
      if (j >= 0) cursor = j + 1;
    }
    const sameText = j >= 0 && prevTexts![j] === text;
    const textChanged = j >= 0 && !sameText;
    sameTextAt[i] = sameText ? j : -1;

    let tokens = table.tokens[i]!;
    if (Number.isNaN(tokens)) {
      // contract §2: absent → ceil(code points / 4); an unchanged text reuses its estimate, not a count the harness sent last turn
      const before = sameText && prev!.estimates !== null ? prev!.estimates[j]! : Number.NaN;
      tokens = Number.isNaN(before) ? estimateTokens(text) : before;
      estimates ??= new Float64Array(n).fill(Number.NaN);
      estimates[i] = tokens;
    }
    tokensTotal += tokens;

    const score = table.scores[i]!;
    const scoreIsNull = Number.isNaN(score);
    const claimed = table.claims[i]!;
    let binding: Binding;
    let digest: string | undefined;
    if (claimed !== null && claimed !== '') {
      // Do not rehash a text already hashed last turn: most spans of most turns are unchanged.
      digest = sameText ? prevChecks![j]!.digest : undefined;
      digest ??= sha256(text);
      binding = digest !== claimed ? STALE_HASH : scoreIsNull ? NULL_SCORE : BOUND;
    } else {
      binding = scoreIsNull ? NULL_SCORE : NO_HASH;
    }
    if (!scoreIsNull) scores[nScored++] = score;
    const rewrites = table.rewrites[i]! || 0; // NaN (absent) → 0
    let orphan = false;
    const parents = table.parents[i];
    if (parents !== undefined) {
      for (let k = 0; k < parents.length; k++) {
        const parent = parents[k]!;
        orphan ||= parent !== id && !index.has(parent) && !archived.has(parent);
      }
    }
    flags[i] =
      (binding === STALE_HASH ? STALE : binding === NO_HASH ? UNBOUND : 0) |
      (textChanged ? CHANGED : 0) |
      (scoreIsNull ? UNSCORED : table.pinned[i] === 1 ? PINNED_SCORED : 0) |
      (rewrites === maxRewrites ? REPEAT : rewrites > maxRewrites ? POISONED : 0) |
      (orphan ? ORPHAN : 0);
    textsChanged += textChanged ? 1 : 0;

    checks[i] = { binding, digest, textChanged };
  }
  const lists = collectLists(table, flags, archived);
  return {
    checks,
    sameTextAt,
    estimates,
    scores,
    nScored,
    tokensTotal,
    textsChanged,
    unbound: lists.unbound,
    stale: lists.stale,
    unscored: lists.unscored,
    changed: lists.changed,
    repeat: lists.repeat,
    poisoned: lists.poisoned,
    pinnedScored: lists.pinnedScored,
    orphanCiters: lists.orphanCiters,
    missingParents: lists.missingParents,
    orphanEdges: lists.orphanEdges,
  };
}

type SpanLists = Pick<
  SpanScan,
  'unbound' | 'stale' | 'unscored' | 'changed' | 'repeat' | 'poisoned' | 'pinnedScored' | 'orphanCiters' | 'missingParents' | 'orphanEdges'
>;

/** scanSpans' lists, in snapshot order, from its flags. */
function collectLists(table: SpanTable, flags: Uint8Array, archived: ReadonlySet<string>): SpanLists {
  const { ids, index } = table;
  const lists: SpanLists = {
    unbound: [],
    stale: [],
    unscored: [],
    changed: [],
    repeat: [],
    poisoned: [],
    pinnedScored: [],
    orphanCiters: [],
    missingParents: new Set(),
    orphanEdges: 0,
  };
  for (let i = 0; i < flags.length; i++) {
    const f = flags[i]!;
    if (f === 0) continue;
    const id = ids[i]!;
    if (f & STALE) lists.stale.push(id);
    if (f & UNBOUND) lists.unbound.push(id);
    if (f & UNSCORED) lists.unscored.push(id);
    if (f & CHANGED) lists.changed.push(id);
    if (f & REPEAT) lists.repeat.push(id);
    if (f & POISONED) lists.poisoned.push(id);
    if (f & PINNED_SCORED) lists.pinnedScored.push(i);
    if (f & ORPHAN) {
      // contract §4 orphaned_parent: distinct (citing span, missing parent) pairs
      const missingHere = new Set<string>();
      for (const parent of table.parents[i]!) if (parent !== id && !index.has(parent) && !archived.has(parent)) missingHere.add(parent);
      lists.orphanEdges += missingHere.size;
      lists.orphanCiters.push(id);
      for (const p of missingHere) lists.missingParents.add(p);
    }
  }
  return lists;
}

/** contract §2: absent tokens → ceil(code points / 4). */
export function estimateTokens(text: string): number {
  let codePoints = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) codePoints--;
  }
  return Math.ceil(codePoints / 4);
}

function count(list: readonly unknown[], noun: string): string {
  return `${list.length} ${noun}${list.length === 1 ? '' : 's'}`;
}

function verb(list: readonly unknown[], singular: string, plural: string): string {
  return list.length === 1 ? singular : plural;
}

function idList(ids: readonly string[]): string {
  const shown = ids
    .slice(0, 5)
    .map((id) => JSON.stringify(id))
    .join(', ');
  return ids.length > 5 ? `${shown} and ${ids.length - 5} more` : shown;
}

function fmt(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(3);
}

function pct(x: number): string {
  return `${+(x * 100).toFixed(2)}%`;
}

/**
 * contract §8.3 native rewrite: a span new at this turn that derives from two or more spans
 * live at the previous turn, gone now and declared archived. Its items are the replaced
 * user prompts (role `user`), judged by the `user_prompt` rule against this turn's text.
 */
function nativeRewrite(table: SpanTable, prev: PrevTurn, archived: ReadonlySet<string>): CompactionMark | null {
  const replaced = new Set<string>();
  const summary: string[] = [];
  for (let i = 0; i < table.length; i++) {
    const id = table.ids[i]!;
    const parents = table.parents[i];
    if (parents === undefined || prev.spans.index.has(id)) continue;
    const gone = parents.filter((p) => p !== id && !table.index.has(p) && prev.spans.index.has(p) && archived.has(p));
    if (new Set(gone).size < 2) continue;
    summary.push(id);
    for (const p of gone) replaced.add(p);
  }
  if (summary.length === 0) return null;
  const surviving = new SurvivingText(table.texts.join('\n'));
  const items: AuditItem[] = [];
  for (const id of replaced) {
    const j = prev.spans.index.get(id)!;
    if (prev.spans.roles[j] !== 'user') continue;
    const text = prev.spans.texts[j]!;
    items.push({ kind: 'user_prompt', text, status: judgeText(text, surviving), from_turn: prev.turn, span_id: id });
  }
  return { kind: 'rewrite', trigger: null, preTokens: null, replaced: [...replaced], summary, items, carried: [] };
}

/** The summary spans' texts, joined (contract §8.3 `summary_text`). */
function summaryText(table: SpanTable, mark: CompactionMark): string {
  const texts: string[] = [];
  for (const id of mark.summary) {
    const i = table.index.get(id);
    if (i !== undefined) texts.push(table.texts[i]!);
  }
  return texts.join('\n');
}

function compactionMessage(kind: string, before: number | null, after: number, replaced: number, items: readonly AuditItem[]): string {
  const tokens = before === null ? `${after} tokens after it` : `${before} → ${after} tokens`;
  const lost = items.filter((it) => it.status === 'lost').length;
  const audit = items.length === 0 ? '' : `; ${lost} of ${count(items, 'load-bearing item')} lost`;
  return `${kind === 'compact' ? 'compaction' : kind}: ${tokens}, ${count(new Array<number>(replaced), 'span')} replaced${audit}`;
}

function scopeIsImported(scope: DetectorScope): boolean {
  return scope === 'reference';
}

/** contract §8.7: each span's tokens (sent, or the §2.3 estimate) added up by its kind. */
function tokensByKind(table: SpanTable, snap: Snapshot, estimates: Float64Array | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (let i = 0; i < table.length; i++) {
    const sent = table.tokens[i]!;
    const tokens = Number.isNaN(sent) ? estimates![i]! : sent;
    const span = snap.spans[i]!;
    const kind = compositionKind(table.roles[i], span.kind, span.tool);
    out[kind] = (out[kind] ?? 0) + tokens;
  }
  return out;
}
