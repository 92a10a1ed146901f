// What each chart receives (series.ts): the session's columns cut to the window, decimated with LTTB
// (one shared x per chart: the union of the points each of its series wants), and fault
// markers computed from the full-resolution signal bits so decimation never hides one.
import { lowerBound, upperBound } from '../core/bisect.ts';
import { SIGNALS, type Signal } from '../core/signals.ts';
import { gapEdges, gather, lttb, unionSorted } from './lttb.ts';
import { AUTO_COMPACT, bandRank, kindLabel } from './composition.ts';
import type {
  Bands,
  CanaryLine,
  CompositionBand,
  CompositionSeries,
  CanarySeries,
  DriftSeries,
  FindingsIndex,
  OrphanSeries,
  SeriesView,
  SpreadSeries,
  ViewQuery,
} from './series.ts';
import { CHART_LINES, ROW_FINDING, ROW_INCIDENT, type LinesOf } from './series.ts';
import type { TurnColumnStore } from './store.ts';
import { bit, type TurnColumnName } from './turnColumns.ts';

/** At most this many canaries are drawn: the ones most often below the median. */
export const MAX_CANARY_LINES = 6;

export interface Window {
  /** index range [i0, i1) of the session's turns */
  i0: number;
  i1: number;
  from: number;
  to: number;
}

export function windowOf(store: TurnColumnStore, query: Pick<ViewQuery, 'window'>): Window {
  const turns = store.col.turn.view();
  const n = turns.length;
  if (n === 0) return { i0: 0, i1: 0, from: 0, to: 0 };
  const first = turns[0]!;
  const last = turns[n - 1]!;
  let from = query.window?.from ?? first;
  let to = query.window?.to ?? last;
  if (!(from <= to)) [from, to] = [first, last];
  from = Math.max(first, Math.min(from, last));
  to = Math.max(from, Math.min(to, last));
  const i0 = lowerBound(turns, from);
  const i1 = Math.max(i0 + 1, upperBound(turns, to));
  return { i0, i1: Math.min(i1, n), from, to };
}

export function shapeView(store: TurnColumnStore, query: ViewQuery): SeriesView {
  const w = windowOf(store, query);
  const points = Math.max(16, Math.floor(query.points));
  const turns = store.col.turn.view();
  const n = turns.length;
  return {
    sessionId: store.sessionId,
    from: w.from,
    to: w.to,
    firstTurn: n > 0 ? turns[0]! : 0,
    lastTurn: n > 0 ? turns[n - 1]! : 0,
    turnCount: n,
    windowTurns: w.i1 - w.i0,
    signalsInWindow: signalsIn(store, w),
    turns: store.col.turn.copy(),
    severity: store.col.severity.copy(),
    ribbon: ribbon(turns, store.col.severity.view(), Math.max(1, Math.floor(query.ribbon))),
    spread: shapeSpread(store, w, points),
    canary: shapeCanary(store, w, points),
    drift: shapeDrift(store, w, points),
    orphans: shapeOrphans(store, w, points),
    composition: shapeComposition(store, w, points),
    compactions: Float64Array.from(store.compactionTurns.filter((t) => t >= w.from && t <= w.to)),
  };
}

function signalsIn(store: TurnColumnStore, w: Window): Signal[] {
  const bits = store.col.signals.view();
  let mask = 0;
  for (let i = w.i0; i < w.i1; i++) mask |= bits[i]!;
  return SIGNALS.filter((_, k) => (mask & (1 << k)) !== 0);
}

/** Decimate several series of one chart onto one shared set of indices. */
function sharedIndices(x: Float64Array, series: readonly Float64Array[], w: Window, points: number): Int32Array {
  const perSeries = Math.max(8, Math.floor(points / Math.max(1, Math.ceil(series.length / 2))));
  const lists: Int32Array[] = [];
  for (const y of series) {
    lists.push(lttb(x, y, w.i0, w.i1, perSeries));
    lists.push(gapEdges(y, w.i0, w.i1, points));
  }
  return unionSorted(lists);
}

/** The columns of `lines` as arrays, in its order (what a chart's lines are decimated on). */
function columnsOf<M extends Record<string, TurnColumnName>>(store: TurnColumnStore, lines: M): Float64Array[] {
  return Object.values(lines).map((name) => {
    const v = store.col[name].view();
    return v instanceof Float64Array ? v : Float64Array.from(v); // a view, not a copy, for the float columns
  });
}

/** A chart's lines (CHART_LINES) gathered at its decimated indices. */
function gatherLines<M extends Record<string, TurnColumnName>>(cols: readonly Float64Array[], lines: M, idx: Int32Array): LinesOf<M> {
  const out: Record<string, Float64Array> = {};
  Object.keys(lines).forEach((field, k) => (out[field] = gather(cols[k]!, idx)));
  return out as LinesOf<M>;
}

export function shapeSpread(store: TurnColumnStore, w: Window, points: number): SpreadSeries {
  const x = store.col.turn.view();
  const cols = columnsOf(store, CHART_LINES.spread);
  const agreement = store.col.agreement.view();
  const idx = sharedIndices(x, store.hasAgreement ? [...cols, agreement] : cols, w, points);
  const minGap = (w.to - w.from) / points;
  return {
    x: gather(x, idx),
    ...gatherLines(cols, CHART_LINES.spread, idx),
    agreement: store.hasAgreement ? gather(agreement, idx) : null,
    agreementFloor: store.thresholds.reference_agreement_floor,
    spreadFloor: store.thresholds.spread_floor,
    minScored: store.thresholds.min_scored,
    collapse: signalBands(store, w, bit('spread_collapse'), minGap),
    relevanceCollapse: signalBands(store, w, bit('relevance_collapse'), minGap),
  };
}

export function shapeCanary(store: TurnColumnStore, w: Window, points: number): CanarySeries {
  const x = store.col.turn.view();
  const len = w.i1 - w.i0;
  const medianRank = new Float64Array(len);
  const nScored = new Float64Array(len);
  const lines = new Map<number, { rank: Float64Array; inversions: number; first: number }>();
  const invX: number[] = [];
  const invRank: number[] = [];
  const noCanary: number[] = [];
  let runStart = -1;
  const minGap = (w.to - w.from) / points;
  for (let t = w.i0; t < w.i1; t++) {
    const ns = store.col.nScored.get(t);
    nScored[t - w.i0] = ns;
    medianRank[t - w.i0] = ns > 0 ? (ns + 1) / 2 : Number.NaN;
    const [from, to] = store.canariesAt(t);
    if (from === to) {
      if (runStart < 0) runStart = t;
    } else if (runStart >= 0) {
      pushBand(noCanary, x[runStart]!, x[t - 1]!, minGap);
      runStart = -1;
    }
    for (let c = from; c < to; c++) {
      const span = store.canarySpan.get(c);
      let line = lines.get(span);
      if (line === undefined) {
        line = { rank: new Float64Array(len).fill(Number.NaN), inversions: 0, first: t };
        lines.set(span, line);
      }
      const rank = store.canaryRank.get(c);
      line.rank[t - w.i0] = rank;
      if (store.canaryBelow.get(c) === 1) {
        line.inversions++;
        invX.push(x[t]!);
        invRank.push(rank);
      }
    }
  }
  if (runStart >= 0) pushBand(noCanary, x[runStart]!, x[w.i1 - 1]!, minGap);

  const chosen = [...lines.entries()].sort((a, b) => b[1].inversions - a[1].inversions || a[1].first - b[1].first || a[0] - b[0]).slice(0, MAX_CANARY_LINES);
  const localX = x.subarray(w.i0, w.i1);
  const whole = { i0: 0, i1: len, from: w.from, to: w.to };
  const idx = sharedIndices(localX, [medianRank, ...chosen.map(([, l]) => l.rank)], whole, points);
  const canaries: CanaryLine[] = chosen.map(([span, l]) => ({
    spanId: store.spans[span]!.id,
    label: store.spans[span]!.label,
    rank: gather(l.rank, idx),
    inversions: l.inversions,
  }));
  const tooMany = invX.length > points * 2;
  return {
    x: gather(localX, idx),
    medianRank: gather(medianRank, idx),
    nScored: gather(nScored, idx),
    canaries,
    hiddenCanaries: Math.max(0, lines.size - chosen.length),
    // dense inversions are shown as bands only; sparse ones also as points
    inversionX: tooMany ? new Float64Array(0) : Float64Array.from(invX),
    inversionRank: tooMany ? new Float64Array(0) : Float64Array.from(invRank),
    inversions: signalBands(store, w, bit('canary_inversion'), minGap),
    noCanary: Float64Array.from(noCanary),
    hasCanary: store.hasCanary,
  };
}

export function shapeDrift(store: TurnColumnStore, w: Window, points: number): DriftSeries {
  const x = store.col.turn.view();
  const cols = columnsOf(store, CHART_LINES.drift);
  const mean = store.col.mean.view();
  const tol = store.thresholds.relevance_tolerance;
  const idx = sharedIndices(x, cols, w, points);
  const bandLow = new Float64Array(idx.length);
  const bandHigh = new Float64Array(idx.length);
  for (let k = 0; k < idx.length; k++) {
    const i = idx[k]!;
    const prev = i > 0 ? mean[i - 1]! : Number.NaN;
    bandLow[k] = prev * (1 - tol);
    bandHigh[k] = prev * (1 + tol);
  }
  const minGap = (w.to - w.from) / points;
  const infl = signalPoints(store, w, bit('relevance_inflation'), mean, points * 2);
  const drift = signalPoints(store, w, bit('monotonic_drift'), mean, points * 2);
  return {
    x: gather(x, idx),
    ...gatherLines(cols, CHART_LINES.drift, idx),
    bandLow,
    bandHigh,
    tolerance: tol,
    inflationX: infl.x,
    inflationMean: infl.y,
    driftX: drift.x,
    driftMean: drift.y,
    inflation: signalBands(store, w, bit('relevance_inflation'), minGap),
    drift: signalBands(store, w, bit('monotonic_drift'), minGap),
    hasRewrites: store.hasRewrites,
  };
}

export function shapeOrphans(store: TurnColumnStore, w: Window, points: number): OrphanSeries {
  const x = store.col.turn.view();
  const cols = columnsOf(store, CHART_LINES.orphans);
  const idx = sharedIndices(x, cols, w, points);
  return {
    x: gather(x, idx),
    ...gatherLines(cols, CHART_LINES.orphans, idx),
    orphaned: signalBands(store, w, bit('orphaned_parent'), (w.to - w.from) / points),
  };
}

/**
 * contract §8.7 the composition chart: one series per band (tool results past the first few
 * tools summed into one), bottom to top in a fixed order, decimated on the total so the
 * stack's outline keeps its shape; the window and the pressure runs for its lines.
 */
export function shapeComposition(store: TurnColumnStore, w: Window, points: number): CompositionSeries {
  const x = store.col.turn.view();
  const c = store.composition;
  const total = store.col.tokens.view();
  const window = c.window.view();
  const idx = sharedIndices(x, [total], w, points);
  const bandOf = c.bandOf();
  const keys: string[] = [];
  for (const k of c.kinds) {
    const key = bandOf.get(k)!;
    if (!keys.includes(key)) keys.push(key);
  }
  // a stable sort: kinds of one family keep the order they appeared in
  const order = keys.map((key, i) => ({ key, i })).sort((a, b) => bandRank(a.key) - bandRank(b.key) || a.i - b.i);
  const toolSlots = keys.filter((k) => k.startsWith('tool_result'));
  const bands: CompositionBand[] = order.map(({ key }) => {
    const tokens = new Float64Array(idx.length);
    c.kinds.forEach((kind, k) => {
      if (bandOf.get(kind) !== key) return;
      const col = c.cols[k]!.view();
      for (let p = 0; p < idx.length; p++) tokens[p]! += col[idx[p]!]!;
    });
    return { key, label: kindLabel(key), toolSlot: toolSlots.indexOf(key), tokens };
  });
  let peak: number | null = null;
  for (let i = w.i0; i < w.i1; i++) {
    const win = window[i]!;
    if (win > 0) peak = Math.max(peak ?? 0, total[i]! / win);
  }
  return {
    x: gather(x, idx),
    source: c.source ?? 'total',
    bands,
    total: gather(total, idx),
    window: gather(window, idx),
    threshold: store.thresholds.pressure_threshold,
    autoCompact: store.agent === null ? null : (AUTO_COMPACT[store.agent] ?? null),
    peakFill: peak,
    pressure: signalBands(store, w, bit('context_pressure'), (w.to - w.from) / points),
  };
}

/** Turn ranges in the window where any of `mask`'s signals fired; runs closer than minGap turns merge. */
export function signalBands(store: TurnColumnStore, w: Window, mask: number, minGap: number): Bands {
  const x = store.col.turn.view();
  const sig = store.col.signals.view();
  const out: number[] = [];
  let start = -1;
  for (let t = w.i0; t < w.i1; t++) {
    const on = (sig[t]! & mask) !== 0;
    if (on && start < 0) start = t;
    else if (!on && start >= 0) {
      pushBand(out, x[start]!, x[t - 1]!, minGap);
      start = -1;
    }
  }
  if (start >= 0) pushBand(out, x[start]!, x[w.i1 - 1]!, minGap);
  return Float64Array.from(out);
}

function pushBand(out: number[], a: number, b: number, minGap: number): void {
  const n = out.length;
  if (n >= 2 && a - out[n - 1]! <= Math.max(1, minGap)) out[n - 1] = b;
  else out.push(a, b);
}

function signalPoints(store: TurnColumnStore, w: Window, mask: number, y: Float64Array, limit: number): { x: Float64Array; y: Float64Array } {
  const x = store.col.turn.view();
  const sig = store.col.signals.view();
  const xs: number[] = [];
  const ys: number[] = [];
  for (let t = w.i0; t < w.i1; t++) {
    if ((sig[t]! & mask) === 0) continue;
    if (xs.length >= limit) return { x: new Float64Array(0), y: new Float64Array(0) }; // too dense: bands carry it
    xs.push(x[t]!);
    ys.push(y[t]!);
  }
  return { x: Float64Array.from(xs), y: Float64Array.from(ys) };
}

/** Worst severity per pixel column over the whole session. */
export function ribbon(turns: Float64Array, severity: Uint8Array, columns: number): Uint8Array {
  const out = new Uint8Array(columns);
  const n = turns.length;
  if (n === 0) return out;
  const first = turns[0]!;
  const spanTurns = turns[n - 1]! - first + 1;
  for (let i = 0; i < n; i++) {
    const s = severity[i]!;
    if (s === 0) continue;
    const c = Math.min(columns - 1, Math.floor(((turns[i]! - first) / spanTurns) * columns));
    if (s > out[c]!) out[c] = s;
  }
  return out;
}

/** The findings list: each incident's header row, then its findings, incidents by first turn. */
export function findingsIndex(store: TurnColumnStore): FindingsIndex {
  const nInc = store.incidentSignal.length;
  const nRows = nInc + store.findingTurn.length;
  const rowKind = new Uint8Array(nRows);
  const rowRef = new Int32Array(nRows);
  const rowIncident = new Int32Array(nRows);
  const rowTurn = new Float64Array(nRows);
  const rowSignal = new Uint8Array(nRows);
  const turns = store.col.turn.view();
  let r = 0;
  for (let k = 0; k < nInc; k++) {
    const s = store.incidentSignal.get(k);
    rowKind[r] = ROW_INCIDENT;
    rowRef[r] = k;
    rowIncident[r] = k;
    rowTurn[r] = turns[store.incidentStart.get(k)]!;
    rowSignal[r] = s;
    r++;
    const list = store.bySignal[s]!;
    const first = store.incidentFirst.get(k);
    const count = store.incidentCount.get(k);
    for (let p = first; p < first + count; p++) {
      const fi = list.get(p);
      rowKind[r] = ROW_FINDING;
      rowRef[r] = fi;
      rowIncident[r] = k;
      rowTurn[r] = turns[store.findingTurn.get(fi)]!;
      rowSignal[r] = s;
      r++;
    }
  }
  const incidentStart = new Float64Array(nInc);
  const incidentEnd = new Float64Array(nInc);
  for (let k = 0; k < nInc; k++) {
    incidentStart[k] = turns[store.incidentStart.get(k)]!;
    incidentEnd[k] = turns[store.incidentEnd.get(k)]!;
  }
  return {
    sessionId: store.sessionId,
    findings: store.findingTurn.length,
    rowKind,
    rowRef,
    rowIncident,
    rowTurn,
    rowSignal,
    incidentSignal: store.incidentSignal.copy(),
    incidentStart,
    incidentEnd,
    incidentCount: store.incidentCount.copy(),
  };
}

export function transferables(value: SeriesView | FindingsIndex): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  const visit = (v: unknown): void => {
    if (ArrayBuffer.isView(v)) {
      if (v.buffer instanceof ArrayBuffer) out.add(v.buffer);
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (typeof v === 'object' && v !== null) Object.values(v).forEach(visit);
  };
  visit(value);
  return [...out];
}
