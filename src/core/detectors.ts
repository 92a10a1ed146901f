// contract §4 and §8 detectors as one table, run in this order on every turn (so a turn's
// findings are listed in signals.ts's order). Each entry is a named function of the turn's
// facts (the span scan, its statistics, the previous turn, the thresholds, the signals that
// already fired this turn) and of its own streak state; it returns the finding's span ids and
// message, or null. A signal outside the session's scope (contract §8.1) is not run at all,
// so it neither fires nor reaches the verdict. Adding a signal: one entry here, its row in
// signals.ts and src/report/signalInfo.ts, its rule in docs/contract.md, and its tests
// (docs/contributing.md).
import type { Thresholds } from './config.ts';
import type { CompactionTurn } from './compactions.ts';
import type { ContextWindow } from './composition.ts';
import type { Signal, Action } from './signals.ts';
import { Binding, type SpanCheck, type SpanScan } from './spanScan.ts';
import type { ScoreStats } from './stats.ts';
import type { SpanTable } from './spanTable.ts';

/** What every detector may read of one turn. */
export interface TurnFacts {
  turn: number;
  th: Thresholds;
  scan: SpanScan;
  /** the snapshot's span id → index */
  index: ReadonlyMap<string, number>;
  stats: ScoreStats | null;
  mean: number | null;
  median: number | null;
  /** pinned, scored spans below the median (contract §4.15) */
  inverted: string[];
  spansModified: number;
  scoresInvalidated: number;
  modifiedSpanIds: string[];
  pruned: readonly string[];
  prev: { turn: number; tokensTotal: number; mean: number | null; action: Action; spans: SpanTable; checks: readonly SpanCheck[] } | null;
  /** contract §8.3: what this turn added to the session's compactions */
  compaction: CompactionTurn | null;
  /** contract §8.7 */
  contextWindow: ContextWindow | null;
  /** the signals that fired earlier in this turn's run of the table */
  fired: ReadonlySet<Signal>;
}

/** The streaks and memories the detectors carry from turn to turn, each owned by one entry. */
export interface DetectorState {
  /** rewrite turns in a row (non-rewrite turns skipped) on which relevance_inflation held */
  inflationStreak: number;
  /** snapshots in a row on which the spread_collapse condition held */
  collapseStreak: number;
  inNoCanaryRun: boolean;
  inPressureRun: boolean;
  /** every id ever listed in `pruned` (bounded by the caller), for orphaned_parent's message */
  everPruned: Set<string>;
}

export const newDetectorState = (): DetectorState => ({
  inflationStreak: 0,
  collapseStreak: 0,
  inNoCanaryRun: false,
  inPressureRun: false,
  everPruned: new Set(),
});

export interface Emitted {
  spanIds: string[];
  message: string;
}

export interface Detector {
  signal: Signal;
  run(t: TurnFacts, s: DetectorState): Emitted | null;
}

const found = (spanIds: string[], message: string): Emitted => ({ spanIds, message });

/** contract §4.9: a turn whose texts changed or whose harness reports a rewrite */
const rewriteTurn = (t: TurnFacts): boolean => t.spansModified > 0 || t.scan.textsChanged > 0;

export const DETECTORS: readonly Detector[] = [
  {
    signal: 'unbound_score',
    run: ({ scan: { unbound } }) =>
      unbound.length === 0
        ? null
        : found(
            unbound,
            `${count(unbound, 'span')} ${verb(unbound, 'carries', 'carry')} a score with no text_sha256 binding (${idList(unbound)}): the score cannot be tied to the text it was computed on`,
          ),
  },
  {
    signal: 'stale_score',
    run: ({ scan: { stale } }) =>
      stale.length === 0
        ? null
        : found(
            stale,
            `${count(stale, 'span')} ${verb(stale, 'carries', 'carry')} a score bound to other text (${idList(stale)}): text_sha256 does not match sha256 of the current text`,
          ),
  },
  {
    signal: 'unscored_span',
    run: ({ scan: { unscored } }) =>
      unscored.length === 0
        ? null
        : found(unscored, `${count(unscored, 'span')} ${verb(unscored, 'has', 'have')} a null score, invalidated and awaiting recompute (${idList(unscored)})`),
  },
  {
    signal: 'invalidation_shortfall',
    run: (t) =>
      t.spansModified > 0 && t.scoresInvalidated < t.spansModified
        ? found(
            t.modifiedSpanIds,
            `the rewrite reported ${t.spansModified} spans modified but only ${t.scoresInvalidated} scores invalidated: pruning would act on stale scores`,
          )
        : null,
  },
  {
    signal: 'unreported_rewrite',
    run: (t) =>
      t.prev !== null && t.scan.textsChanged > t.spansModified
        ? found(
            t.scan.changed,
            `${t.scan.textsChanged} span texts changed since turn ${t.prev.turn} but the rewrite reported ${t.spansModified} modified (${idList(t.scan.changed)}): the model's own report cannot be trusted`,
          )
        : null,
  },
  {
    // contract §4.9: tokens fell while mean relevance rose past the tolerance, on a rewrite turn
    signal: 'relevance_inflation',
    run: (t, s) => {
      const { prev, mean, th } = t;
      let inflation = false;
      if (prev !== null && rewriteTurn(t) && mean !== null && prev.mean !== null) {
        inflation = t.scan.tokensTotal < prev.tokensTotal && mean > prev.mean * (1 + th.relevance_tolerance);
      }
      if (rewriteTurn(t)) s.inflationStreak = inflation ? s.inflationStreak + 1 : 0;
      if (!inflation) return null;
      return found(
        [],
        `tokens fell from ${prev!.tokensTotal} to ${t.scan.tokensTotal} while mean relevance rose from ${fmt(prev!.mean!)} to ${fmt(mean!)} (more than ${pct(th.relevance_tolerance)}): a compression artifact, not a quality gain`,
      );
    },
  },
  {
    // contract §4.10: turns without a rewrite neither extend nor break the run
    signal: 'monotonic_drift',
    run: (t, s) =>
      t.fired.has('relevance_inflation') && s.inflationStreak >= t.th.drift_turns
        ? found(
            [],
            `mean relevance has risen while tokens fell on ${s.inflationStreak} rewrite turns in a row (threshold ${t.th.drift_turns}): scores are drifting, not improving`,
          )
        : null,
  },
  {
    signal: 'orphaned_parent',
    run: ({ scan: { orphanCiters, missingParents }, pruned }, s) => {
      if (orphanCiters.length === 0) return null;
      const parts = [...missingParents].map(
        (p) => `${JSON.stringify(p)}${s.everPruned.has(p) || pruned.includes(p) ? ' (pruned earlier)' : ' (never seen pruned)'}`,
      );
      return found(orphanCiters, `${count(orphanCiters, 'live span')} ${verb(orphanCiters, 'derives', 'derive')} from missing parents ${parts.join(', ')}`);
    },
  },
  {
    signal: 'rewrite_repeat',
    run: ({ scan: { repeat }, th }) =>
      repeat.length === 0
        ? null
        : found(repeat, `${count(repeat, 'span')} rewritten ${th.max_rewrites} times without a recompute (${idList(repeat)}): a rewrite of a rewrite`),
  },
  {
    signal: 'poisoned_span',
    run: ({ scan: { poisoned }, th }) =>
      poisoned.length === 0
        ? null
        : found(
            poisoned,
            `${count(poisoned, 'span')} rewritten more than ${th.max_rewrites} times without a recompute (${idList(poisoned)}): paraphrase of a paraphrase; drop, do not rescore`,
          ),
  },
  {
    // contract §4.14 (seed 002, signal A)
    signal: 'spread_collapse',
    run: ({ stats, scan: { nScored }, th }, s) => {
      const narrow = stats !== null && nScored >= th.min_scored && stats.stdev < th.spread_floor;
      s.collapseStreak = narrow ? s.collapseStreak + 1 : 0;
      if (!narrow || s.collapseStreak < th.collapse_turns) return null;
      return found(
        [],
        `score stdev ${fmt(stats.stdev)} below the floor ${th.spread_floor} over ${nScored} scored spans for ${s.collapseStreak} snapshots in a row`,
      );
    },
  },
  {
    signal: 'canary_inversion',
    run: ({ inverted, median }) =>
      inverted.length === 0 ? null : found(inverted, `pinned ${count(inverted, 'span')} scored below the median ${fmt(median!)} (${idList(inverted)})`),
  },
  {
    // contract §4.16: the two-signal test of seed 002
    signal: 'relevance_collapse',
    run: ({ fired, inverted }) =>
      fired.has('spread_collapse') && inverted.length > 0
        ? found(inverted, `spread collapsed and pinned canaries sank below the median: the scorer has collapsed; freeze pruning`)
        : null,
  },
  {
    // contract §4.17: the first turn of each run of such turns
    signal: 'no_canary',
    run: ({ scan: { pinnedScored } }, s) => {
      const noCanary = pinnedScored.length === 0;
      const first = noCanary && !s.inNoCanaryRun;
      s.inNoCanaryRun = noCanary;
      return first ? found([], `no pinned span carries a finite score, so relevance collapse cannot be detected from here on`) : null;
    },
  },
  {
    // contract §4.18, judged against the previous snapshot
    signal: 'pruned_on_stale_score',
    run: ({ prev, pruned }) => {
      if (prev === null || pruned.length === 0) return null;
      const onStale = pruned.filter((id) => {
        const j = prev.spans.index.get(id);
        const b = j === undefined ? undefined : prev.checks[j]!.binding;
        return b === Binding.Unscored || b === Binding.Unbound || b === Binding.Stale;
      });
      return onStale.length === 0
        ? null
        : found(onStale, `${count(onStale, 'span')} pruned although at turn ${prev.turn} their scores were null, unbound or stale (${idList(onStale)})`);
    },
  },
  {
    signal: 'pruned_during_freeze',
    run: ({ prev, pruned }) =>
      prev !== null && pruned.length > 0 && prev.action === 'freeze'
        ? found([...pruned], `${count(pruned, 'span')} pruned although turn ${prev.turn}'s verdict was freeze (${idList(pruned)})`)
        : null,
  },
  {
    // contract §8.5: once per compaction, at the turn it takes effect
    signal: 'compaction',
    run: ({ compaction, index }) => {
      const r = compaction?.record;
      if (r == null) return null;
      const live = r.summary_span_ids.filter((id) => index.has(id));
      const tokens = r.tokens_before === null ? `${r.tokens_after} tokens after it` : `${r.tokens_before} → ${r.tokens_after} tokens`;
      const lost = r.items.filter((it) => it.status === 'lost').length;
      const audit = r.items.length === 0 ? '' : `; ${lost} of ${count(r.items, 'load-bearing item')} lost`;
      return found(
        live,
        `${r.kind === 'compact' ? 'compaction' : r.kind}: ${tokens}, ${r.spans_replaced} span${r.spans_replaced === 1 ? '' : 's'} replaced${audit}`,
      );
    },
  },
  {
    // contract §8.6: once per compaction, at the first turn whose confirmed losses reach compaction_loss_min
    signal: 'compaction_loss',
    run: ({ compaction }) => {
      const losses = compaction?.losses ?? [];
      if (losses.length === 0) return null;
      const parts = losses.map(({ record, items }) => {
        const named = items
          .slice(0, 5)
          .map((it) => `${it.kind} ${JSON.stringify(it.text.length > 80 ? `${it.text.slice(0, 79)}…` : it.text)} at turn ${it.refetched_at}`)
          .join(', ');
        return `${count(items, 'item')} the compaction at turn ${record.turn} lost ${verb(items, 'was', 'were')} gone back for (${named}${items.length > 5 ? ` and ${items.length - 5} more` : ''})`;
      });
      return found([], `${parts.join('; ')}: the summary dropped something the agent needed`);
    },
  },
  {
    // contract §8.7: the first turn of each run at or above the threshold share of the window
    signal: 'context_pressure',
    run: ({ contextWindow: cw, scan: { tokensTotal }, th }, s) => {
      const full = cw !== null && tokensTotal >= th.pressure_threshold * cw.tokens;
      const first = full && !s.inPressureRun;
      s.inPressureRun = full;
      if (!first) return null;
      return found(
        [],
        `the context holds ${tokensTotal} tokens, ${pct(tokensTotal / cw.tokens)} of the ${cw.tokens}-token window (threshold ${pct(th.pressure_threshold)}): a compaction is near`,
      );
    },
  },
];

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
