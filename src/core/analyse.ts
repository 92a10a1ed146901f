// One snapshot of one session in, its metrics (contract §3), findings (contract §4) and verdict
// (contract §5) out. The state carried from turn to turn is exactly what the detectors need:
// the previous snapshot's spans (text, hash, score binding), the streak counters, and the
// ids ever seen pruned.
import type { Thresholds } from './config.ts';
import { judgeItems, type AuditItem } from './compactionAudit.ts';
import { CompactionLedger, readArchived, readCompaction, type CompactionMark, type CompactionTurn } from './compactions.ts';
import { notApplicable, type DetectorScope } from './scope.ts';
import { DETECTORS, newDetectorState, type DetectorState, type TurnFacts } from './detectors.ts';
import { compositionKind, MILLION, modelWindow, type ContextWindow } from './composition.ts';
import { SEVERITY, type Action, type Finding, type Signal, type Verdict } from './signals.ts';
import { rankOf, scoreStats } from './stats.ts';
import { SpanTable } from './spanTable.ts';
import { scanSpans, type PrevSpans, type Sha256Hex, type SpanCheck } from './spanScan.ts';
import { grownTo } from './arrays.ts';

export { Binding, estimateTokens, type Sha256Hex, type SpanCheck } from './spanScan.ts';
import { recomputeSet } from './verdict.ts';
import type { Snapshot } from './wire.ts';

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
interface PrevTurn extends PrevSpans {
  turn: number;
  tokensTotal: number;
  mean: number | null;
  action: Action;
}

/** Everything one session carries from one snapshot to the next. */
export class SessionAnalysis {
  private prev: PrevTurn | null = null;
  /** the detectors' streaks and memories (detectors.ts) */
  private readonly detectorState: DetectorState = newDetectorState();
  /** contract §8.2: ids the session's snapshots declared archived (the agent's transcript holds them) */
  private readonly archived = new Set<string>();
  /** derived_from lists whose parents are all archived (scanSpans' settledParents) */
  private readonly settledParents = new WeakMap<readonly string[], number>();
  /** contract §8.3: the session's compactions */
  readonly compactions = new CompactionLedger();
  /** contract §8.1: which detectors apply (the engine sets it from the session header) */
  scope: DetectorScope = 'all';
  /** contract §8.7: the header's `context_window` and `--context-window`, tried after the model table */
  headerWindow: number | null = null;
  optionWindow: number | null = null;
  private contextWindow: ContextWindow | null = null;
  /** the window came from an Anthropic model, whose 1M-token variant a bigger call reveals */
  private oneMillionVariant = false;
  /**
   * contract §8.7: null until the first snapshot says whether the session's spans carry kinds;
   * false from the start where the caller reads no per-span figure (EngineOptions.readsSpanFigures)
   */
  composition: boolean | null = null;
  /** contract §8.7: the session's kinds, numbered (tokensByKind) */
  private kindTally: KindTally | null = null;

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
    const scan = scanSpans(table, prev, this.sha256, th.max_rewrites, this.archived, this.settledParents, this.scope === 'all');
    const { checks, estimates, nScored, tokensTotal, textsChanged, unbound, stale, unscored, changed, poisoned, pinnedScored } = scan;

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
    const contextWindow = this.resolveWindow(snap, tokensTotal);

    // contract §4, §8: the detectors in the table's order; one outside the scope (§8.1) is not run
    const skipped = notApplicable(this.scope);
    const fired = new Set<Signal>();
    const facts: TurnFacts = {
      turn,
      th,
      scan,
      index,
      stats,
      mean,
      median,
      inverted,
      spansModified,
      scoresInvalidated,
      modifiedSpanIds: rewrite?.modified_span_ids ?? [],
      pruned,
      prev,
      compaction,
      contextWindow,
      fired,
    };
    const findings: Finding[] = [];
    for (const d of DETECTORS) {
      if (skipped[d.signal] !== undefined) continue;
      const e = d.run(facts, this.detectorState);
      if (e === null) continue;
      fired.add(d.signal);
      findings.push({ turn, signal: d.signal, severity: SEVERITY[d.signal], span_ids: e.spanIds, message: e.message });
    }
    const everPruned = this.detectorState.everPruned;
    for (const id of pruned) everPruned.add(id);
    // a Set iterates in insertion order: the first ids are the oldest
    while (everPruned.size > this.prunedMemory) everPruned.delete(everPruned.values().next().value!);

    // contract §5 verdict, from what fired
    const shortfall = fired.has('invalidation_shortfall');
    const unreported = fired.has('unreported_rewrite');
    let action: Action = 'prune_ok';
    let recompute: string[] = [];
    if (fired.has('relevance_collapse')) action = 'freeze';
    else if (fired.has('unscored_span') || fired.has('unbound_score') || fired.has('stale_score') || shortfall || unreported) {
      action = 'recompute';
      const seeds = new Set<string>([...unscored, ...unbound, ...stale]);
      if (shortfall || unreported) {
        for (const id of changed) seeds.add(id);
        for (const id of rewrite?.modified_span_ids ?? []) if (index.has(id)) seeds.add(id);
      }
      recompute = recomputeSet(table, seeds);
    }
    const verdict: Verdict = { turn, action, prune_safe: action === 'prune_ok', recompute, drop: fired.has('poisoned_span') ? poisoned : [] };

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
    this.composition ??= this.scope === 'reference' || snap.spans.some((s) => s.label !== undefined);
    if (this.composition)
      metrics.tokens_by_kind = tokensByKind(table, snap, estimates, (this.kindTally ??= new KindTally()), prev?.spans ?? null, scan.sameTextAt);

    this.prev = { turn, spans: table, checks, estimates, tokensTotal, mean, action };
    return { sessionId: this.sessionId, turn, metrics, findings, verdict, checks, sameTextAt: scan.sameTextAt, compaction, contextWindow };
  }

  /**
   * contract §8.7: the window from the model table (the snapshot's `model`), else the header's
   * `context_window`, else `--context-window`. A call past a 200,000-token model's window
   * shows the 1M-token variant is in use.
   */
  private resolveWindow(snap: Snapshot, tokensTotal: number): ContextWindow | null {
    const model = typeof snap.model === 'string' ? snap.model : null;
    const found = model === null ? null : modelWindow(model);
    // an OpenAI entry yields to the agent's own figure (contract §8.7)
    const fromModel = found !== null && found.fallback && this.headerWindow !== null ? null : found;
    if (fromModel !== null && (this.contextWindow === null || this.contextWindow.source !== 'model')) {
      this.contextWindow = { tokens: fromModel.tokens, source: 'model', model: model! };
      this.oneMillionVariant = fromModel.oneMillionVariant;
    }
    if (this.contextWindow === null && this.headerWindow !== null) this.contextWindow = { tokens: this.headerWindow, source: 'header' };
    if (this.contextWindow === null && this.optionWindow !== null) this.contextWindow = { tokens: this.optionWindow, source: 'option' };
    if (this.oneMillionVariant && this.contextWindow?.source === 'model' && this.contextWindow.tokens < MILLION && tokensTotal > this.contextWindow.tokens)
      this.contextWindow = { ...this.contextWindow, tokens: MILLION };
    return this.contextWindow;
  }
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
  const items: AuditItem[] = [];
  for (const id of replaced) {
    const j = prev.spans.index.get(id)!;
    if (prev.spans.roles[j] !== 'user') continue;
    items.push({ kind: 'user_prompt', text: prev.spans.texts[j]!, status: 'lost', from_turn: prev.turn, span_id: id });
  }
  // one index over this turn's text for every item (docs/security.md "Linear time")
  const { statuses } = judgeItems(table.texts.join('\n'), items);
  items.forEach((it, i) => (it.status = statuses[i]!));
  return { kind: 'rewrite', trigger: null, preTokens: null, replaced: [...replaced], summary, summaryState: null, items, carried: [], carriedNotFollowed: 0 };
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

/**
 * contract §8.7: each span's tokens (sent, or the §2.3 estimate) added up by its kind, the
 * kinds in the order the spans first show them. A session's kinds are numbered once
 * (`KindTally`), so a turn adds into an array, not into an object keyed by strings, and a
 * span whose role, kind and tool are last turn's (most, most turns) reuses its kind's
 * number without building the kind's name again.
 */
function tokensByKind(
  table: SpanTable,
  snap: Snapshot,
  estimates: Float64Array | null,
  tally: KindTally,
  prev: SpanTable | null,
  sameTextAt: Int32Array,
): Record<string, number> {
  const n = table.length;
  const slots = new Int32Array(n);
  // what the next turn compares its spans with
  const kinds = new Array<unknown>(n);
  const tools = new Array<unknown>(n);
  const { raw } = tally;
  tally.beginTurn();
  for (let i = 0; i < n; i++) {
    const sent = table.tokens[i]!;
    const tokens = Number.isNaN(sent) ? estimates![i]! : sent;
    const span = snap.spans[i]!;
    const role = table.roles[i];
    const kind = (kinds[i] = span.kind);
    const tool = (tools[i] = span.tool);
    const j = sameTextAt[i]!;
    let slot: number;
    if (j >= 0 && prev !== null && prev.roles[j] === role && raw.kinds[j] === kind && raw.tools[j] === tool) slot = raw.slots[j]!;
    else slot = tally.slotOf(compositionKind(role, kind, tool));
    slots[i] = slot;
    tally.add(slot, tokens);
  }
  tally.raw = { kinds, tools, slots };
  return tally.result();
}

/** A session's span kinds (contract §8.7), numbered in order of first sight, and one turn's sums by number. */
class KindTally {
  private readonly numbers = new Map<string, number>();
  private readonly names: string[] = [];
  private sums = new Float64Array(8);
  /** this turn's kinds, by number, in the order the spans first showed them */
  private order: number[] = [];
  private seen = new Uint8Array(8);
  /** last turn's spans: their raw kind and tool (by index) and the number each was tallied under */
  raw: { kinds: readonly unknown[]; tools: readonly unknown[]; slots: Int32Array } = { kinds: [], tools: [], slots: new Int32Array(0) };

  slotOf(name: string): number {
    let slot = this.numbers.get(name);
    if (slot === undefined) {
      slot = this.names.length;
      this.numbers.set(name, slot);
      this.names.push(name);
      this.sums = grownTo(this.sums, slot + 1);
      this.seen = grownTo(this.seen, slot + 1);
    }
    return slot;
  }

  beginTurn(): void {
    for (const slot of this.order) {
      this.sums[slot] = 0;
      this.seen[slot] = 0;
    }
    this.order = [];
  }

  add(slot: number, tokens: number): void {
    // a slot's sum is 0 until its first span of a turn (beginTurn put last turn's back to 0)
    if (this.seen[slot] === 0) {
      this.seen[slot] = 1;
      this.order.push(slot);
    }
    this.sums[slot] = this.sums[slot]! + tokens;
  }

  /** The turn's sums as the object the contract names, its keys in the order the spans showed them. */
  result(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const slot of this.order) out[this.names[slot]!] = this.sums[slot]!;
    return out;
  }
}
