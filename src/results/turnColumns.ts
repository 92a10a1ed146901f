// The per-turn metric columns, declared once: each column's name, its typed array, and how
// one turn's value is read from the engine's result (contract §3 metrics, §5 verdict, §4
// findings). The store's `record`, the turn panel's metrics (`metricsAt`) and the shaped
// series' types (series.ts) are all derived from this list: a new per-turn metric is one
// entry here (and, to be drawn, its name in a chart's line list in series.ts).
import type { TurnMetrics, TurnResult } from '../core/analyse.ts';
import { SEVERITY, SIGNALS, type Action, type Signal } from '../core/signals.ts';
import type { Snapshot } from '../core/wire.ts';
import { Column } from './columns.ts';

export const SIGNAL_INDEX: Readonly<Record<Signal, number>> = Object.fromEntries(SIGNALS.map((s, i) => [s, i])) as Record<Signal, number>;
/** 0 none, 1 info, 2 warning, 3 fault: the worst finding of a turn. */
export const SEVERITY_LEVEL = { info: 1, warning: 2, fault: 3 } as const;
export const ACTIONS: readonly Action[] = ['prune_ok', 'recompute', 'freeze'];
const ACTION_CODE: Readonly<Record<Action, number>> = { prune_ok: 0, recompute: 1, freeze: 2 };
const SIGNAL_LEVEL = SIGNALS.map((s) => SEVERITY_LEVEL[SEVERITY[s]]);

export const bit = (signal: Signal): number => 1 << SIGNAL_INDEX[signal];

type TypedArray = Float64Array | Int32Array | Uint8Array | Uint32Array;

/** The metrics the turn panel shows (contract §3), every one read back from a column. */
export type TurnMetricsView = Omit<TurnMetrics, 'turn' | 'canaries' | 'tokens_by_kind'>;
type MetricKey = keyof TurnMetricsView;

/**
 * One column: its typed array, how a turn's value is read, and, for a contract §3 metric,
 * which one and how it is given back (`count` as stored; `nullable`: NaN is null; `flag`: 1 is true).
 */
export interface ColumnSpec<A extends TypedArray = TypedArray> {
  type: { new (length: number): A };
  read: (result: TurnResult, snap: Snapshot) => number;
  metric?: { key: MetricKey; as: 'count' | 'nullable' | 'flag' };
}

type MetricSpec<A extends TypedArray, K extends MetricKey> = ColumnSpec<A> & { metric: { key: K } };

const count = <A extends TypedArray, K extends MetricKey>(type: { new (n: number): A }, key: K): MetricSpec<A, K> => ({
  type,
  read: (r) => r.metrics[key] as number,
  metric: { key, as: 'count' },
});
/** a score statistic: null (no scored span) is stored as NaN, which the charts draw as a gap */
const nullable = <K extends MetricKey>(key: K): MetricSpec<Float64Array, K> => ({
  type: Float64Array,
  read: (r) => (r.metrics[key] as number | null) ?? Number.NaN,
  metric: { key, as: 'nullable' },
});

function signalMask(r: TurnResult): number {
  let mask = 0;
  for (const f of r.findings) mask |= 1 << SIGNAL_INDEX[f.signal];
  return mask;
}

function worstLevel(r: TurnResult): number {
  let level = 0;
  for (const f of r.findings) level = Math.max(level, SIGNAL_LEVEL[SIGNAL_INDEX[f.signal]]!);
  return level;
}

/** Index t of every column is the t-th analysed snapshot of the session. */
export const TURN_COLUMNS = {
  turn: { type: Float64Array, read: (r) => r.turn },
  nSpans: count(Int32Array, 'n_spans'),
  nScored: count(Int32Array, 'n_scored'),
  tokens: count(Float64Array, 'tokens_total'),
  tokensEstimated: { type: Uint8Array, read: (r) => (r.metrics.tokens_estimated ? 1 : 0), metric: { key: 'tokens_estimated' as const, as: 'flag' } },
  mean: nullable('mean_score'),
  median: nullable('median_score'),
  stdev: nullable('stdev_score'),
  p10: nullable('p10_score'),
  p90: nullable('p90_score'),
  /** contract §7 reference_agreement (Kendall τ-b, `--scorer both`); NaN where the snapshot has none */
  agreement: { type: Float64Array, read: (_, snap) => (typeof snap.reference_agreement === 'number' ? snap.reference_agreement : Number.NaN) },
  orphanEdges: count(Int32Array, 'orphan_edges'),
  spansModified: count(Int32Array, 'spans_modified'),
  scoresInvalidated: count(Int32Array, 'scores_invalidated'),
  textsChanged: count(Int32Array, 'texts_changed'),
  /** contract §5: index into ACTIONS */
  action: { type: Uint8Array, read: (r) => ACTION_CODE[r.verdict.action] },
  /** bit SIGNAL_INDEX[s] set when signal s fired at the turn */
  signals: { type: Uint32Array, read: signalMask },
  /** the worst finding's SEVERITY_LEVEL (0: none) */
  severity: { type: Uint8Array, read: worstLevel },
} satisfies Record<string, ColumnSpec>;

export type TurnColumnName = keyof typeof TURN_COLUMNS;
type ArrayOf<S> = S extends ColumnSpec<infer A> ? A : never;
/** The columns themselves, one growable typed array per entry of TURN_COLUMNS, typed by it. */
export type TurnColumns = { readonly [K in TurnColumnName]: Column<ArrayOf<(typeof TURN_COLUMNS)[K]>> };

const NAMES = Object.keys(TURN_COLUMNS) as TurnColumnName[];
const SPECS: readonly ColumnSpec[] = NAMES.map((k) => TURN_COLUMNS[k]);

export function turnColumns(): TurnColumns {
  return Object.fromEntries(NAMES.map((k) => [k, new Column(TURN_COLUMNS[k].type as { new (n: number): TypedArray })])) as unknown as TurnColumns;
}

/** Appends one turn's value to every column. */
export function recordTurn(cols: TurnColumns, result: TurnResult, snap: Snapshot): void {
  for (let k = 0; k < NAMES.length; k++) (cols[NAMES[k]!] as Column<TypedArray>).push(SPECS[k]!.read(result, snap));
}

/** The contract §3 metrics of turn index t, read back from the columns that hold them. */
export function metricsAt(cols: TurnColumns, t: number): TurnMetricsView {
  const out: Record<string, number | boolean | null> = {};
  for (let k = 0; k < NAMES.length; k++) {
    const m = SPECS[k]!.metric;
    if (m === undefined) continue;
    const v = (cols[NAMES[k]!] as Column<TypedArray>).get(t);
    out[m.key] = m.as === 'flag' ? v === 1 : m.as === 'nullable' && Number.isNaN(v) ? null : v;
  }
  return out as unknown as TurnMetricsView;
}

/** Every contract §3 metric the panel shows has its column: a compile error names the one missing. */
type Declared = { [K in TurnColumnName]: (typeof TURN_COLUMNS)[K] extends { metric: { key: infer M } } ? M : never }[TurnColumnName];
export const EVERY_METRIC_HAS_A_COLUMN: [Exclude<MetricKey, Declared>] extends [never] ? true : Exclude<MetricKey, Declared> = true;
