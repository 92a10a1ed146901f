// What the results model hands the charts and the findings list: the session's columns cut to
// a window and decimated (shape.ts), as typed arrays the Worker transfers to the page and
// `context-health report` draws from. The lines each chart draws are named here from the
// declared columns (turnColumns.ts), so their fields are typed by that one list.
import type { Signal } from '../core/signals.ts';
import type { TurnColumnName } from './turnColumns.ts';

export type { TurnMetricsView } from './turnColumns.ts';

export type BindingName = 'bound' | 'unscored' | 'unbound' | 'stale';

/**
 * The per-turn columns each chart draws as lines, by the field its series names them:
 * gathered at the chart's decimated indices (shape.ts). A column drawn on a chart is one entry
 * here; the series' field and its shaping follow.
 */
export const CHART_LINES = {
  spread: { stdev: 'stdev', p10: 'p10', p90: 'p90', median: 'median' },
  drift: { tokens: 'tokens', mean: 'mean' },
  orphans: { edges: 'orphanEdges' },
} as const satisfies Record<string, Record<string, TurnColumnName>>;

/** One Float64Array per line of a chart's entry in CHART_LINES. */
export type LinesOf<M extends Record<string, TurnColumnName>> = { [P in keyof M]: Float64Array };

export interface ViewQuery {
  sessionId: string;
  /** turn numbers, inclusive; null = the whole session */
  window: { from: number; to: number } | null;
  /** how many points each chart may draw (about one per 1–2 pixels) */
  points: number;
  /** pixel columns of the overview ribbon */
  ribbon: number;
}

/** Pairs [x1, x2, x1, x2, …] of turn ranges to shade. */
export type Bands = Float64Array;

export interface SpreadSeries extends LinesOf<typeof CHART_LINES.spread> {
  x: Float64Array;
  /** contract §7 reference_agreement per turn (NaN: none); null when no snapshot of the session has one */
  agreement: Float64Array | null;
  agreementFloor: number;
  spreadFloor: number;
  minScored: number;
  /** turns where spread_collapse fired */
  collapse: Bands;
  /** turns where relevance_collapse fired (collapse + inversion) */
  relevanceCollapse: Bands;
}

export interface CanaryLine {
  spanId: string;
  /** contract §8.8 the span's label, when it has one */
  label: string | null;
  rank: Float64Array;
  inversions: number;
}

export interface CanarySeries {
  x: Float64Array;
  /** rank of the median score, (n_scored + 1) / 2 */
  medianRank: Float64Array;
  nScored: Float64Array;
  canaries: CanaryLine[];
  /** pinned spans not drawn (only the worst few are) */
  hiddenCanaries: number;
  /** points where a canary sat below the median: x and rank */
  inversionX: Float64Array;
  inversionRank: Float64Array;
  inversions: Bands;
  noCanary: Bands;
  hasCanary: boolean;
}

export interface DriftSeries extends LinesOf<typeof CHART_LINES.drift> {
  x: Float64Array;
  /** previous turn's mean × (1 ± relevance_tolerance) */
  bandLow: Float64Array;
  bandHigh: Float64Array;
  tolerance: number;
  inflationX: Float64Array;
  inflationMean: Float64Array;
  driftX: Float64Array;
  driftMean: Float64Array;
  inflation: Bands;
  drift: Bands;
  hasRewrites: boolean;
}

export interface OrphanSeries extends LinesOf<typeof CHART_LINES.orphans> {
  x: Float64Array;
  orphaned: Bands;
}

/** contract §8.7 one band of the composition chart: a kind (or tools grouped), bottom to top. */
export interface CompositionBand {
  /** the kind as `tokens_by_kind` keys it (or tool_result:(other), context) */
  key: string;
  label: string;
  /** its position among the tool-result bands (for the colour), -1 for other kinds */
  toolSlot: number;
  tokens: Float64Array;
}

export interface CompositionSeries {
  x: Float64Array;
  /** where the kinds come from: tokens_by_kind, the spans' roles, or the total alone */
  source: 'kind' | 'role' | 'total';
  bands: CompositionBand[];
  total: Float64Array;
  /** the context window per point (NaN: none known) */
  window: Float64Array;
  /** contract §8.7 pressure_threshold: the share of the window context_pressure fires at */
  threshold: number;
  /** the largest fill (tokens_total / window) in the window drawn; null without a window */
  peakFill: number | null;
  /** turns where context_pressure fired */
  pressure: Bands;
  /**
   * The agent's own auto-compaction point, where it is known (composition.ts AUTO_COMPACT): it
   * compacts when the context reaches the window less `reserve` tokens. Null for other agents.
   */
  autoCompact: { reserve: number; label: string } | null;
}

export interface SeriesView {
  sessionId: string;
  /** the window drawn, inclusive turn numbers */
  from: number;
  to: number;
  /** the whole session */
  firstTurn: number;
  lastTurn: number;
  turnCount: number;
  /** turns in the window (before decimation) */
  windowTurns: number;
  /** the signals that fired on some turn of the window, contract §4 order (the stamp of exported images) */
  signalsInWindow: Signal[];
  /** every turn of the session, for keyboard stepping, and its worst severity (0 none, 1 info, 2 warning, 3 fault) */
  turns: Float64Array;
  severity: Uint8Array;
  /** worst severity per pixel column over the whole session (the overview ribbon) */
  ribbon: Uint8Array;
  spread: SpreadSeries;
  canary: CanarySeries;
  drift: DriftSeries;
  orphans: OrphanSeries;
  composition: CompositionSeries;
  /** turns in the window where a compaction took effect (contract §8.3: one per compaction record), marked on every chart */
  compactions: Float64Array;
}

export const ROW_INCIDENT = 0;
export const ROW_FINDING = 1;

/** The findings list: incident header rows, each followed by its findings, in turn order. */
export interface FindingsIndex {
  sessionId: string;
  findings: number;
  rowKind: Uint8Array;
  /** incident index for an incident row, finding index for a finding row */
  rowRef: Int32Array;
  rowIncident: Int32Array;
  rowTurn: Float64Array;
  /** index into SIGNALS */
  rowSignal: Uint8Array;
  incidentSignal: Uint8Array;
  incidentStart: Float64Array;
  incidentEnd: Float64Array;
  incidentCount: Int32Array;
}
