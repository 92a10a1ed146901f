// What each chart receives beyond the Worker's typed arrays: axis domains, shaded ranges
// and the values shown on hover. Pure and tested; the chart components only draw.
import type { Bands, CanarySeries, DriftSeries, OrphanSeries, SpreadSeries } from '../results/series.ts';
import { nearestIndex } from '../core/bisect.ts';
import { extent } from './paths.ts';
import { groupedDigits } from '../core/digits.ts';

export interface Range {
  x1: number;
  x2: number;
}

/** Shaded turn ranges, each at least `minWidth` turns wide so a one-turn fault stays visible. */
export function bandRanges(bands: Bands, minWidth: number): Range[] {
  const out: Range[] = [];
  for (let i = 0; i + 1 < bands.length; i += 2) {
    let x1 = bands[i]!;
    let x2 = bands[i + 1]!;
    if (x2 - x1 < minWidth) {
      const mid = (x1 + x2) / 2;
      x1 = mid - minWidth / 2;
      x2 = mid + minWidth / 2;
    }
    out.push({ x1, x2 });
  }
  return out;
}

/** The narrowest band drawn, in turns: two pixels. */
export function minBandWidth(from: number, to: number, plotWidth: number): number {
  return Math.max(0.5, ((to - from) / Math.max(1, plotWidth)) * 2);
}

/** X domain of the window; a one-turn window is widened so the axis can draw. */
export function xDomain(from: number, to: number): [number, number] {
  return from === to ? [from - 1, to + 1] : [from, to];
}

/**
 * The turn axis shown. Following a live session without a zoom, the axis ends at a round
 * number of turns ahead of the newest one (1, 1.5, 2, 3, 4, 5 or 7.5 × a power of ten after
 * the first turn, so at most about half the width is ahead) and moves only when the
 * session passes it: the axes and grid then stay put between updates and only the series
 * are redrawn. The steps grow with the session, so a stream of any rate moves the axis a
 * few times per tenfold growth, not at every update (each move re-lays out the chart in
 * Recharts, docs/perf-log/notebook.md).
 */
export function shownDomain(from: number, to: number, following: boolean): [number, number] {
  if (!following) return xDomain(from, to);
  const span = Math.max(10, to + 1 - from);
  const p = 10 ** Math.floor(Math.log10(span));
  let end = 10 * p;
  for (const m of [1, 1.5, 2, 3, 4, 5, 7.5]) {
    if (m * p >= span) {
      end = m * p;
      break;
    }
  }
  return [from, from + end];
}

/** Round tick values inside [a, b] (Recharts would start its ticks at the domain's edge, e.g. 1, 25001, …). */
export function niceTicks(a: number, b: number, count = 6): number[] {
  if (!(b > a)) return [a];
  const step = niceStep((b - a) / count);
  const out: number[] = [];
  for (let v = Math.ceil(a / step) * step; v <= b + 1e-9; v += step) out.push(+v.toPrecision(12));
  return out;
}

/** Whole-number ticks from 0 to max (counts). */
export function countTicks(max: number): number[] {
  const step = Math.max(1, Math.ceil(niceStep(max / 4)));
  const out: number[] = [];
  for (let v = 0; v <= max; v += step) out.push(v);
  return out;
}

/** Two rows spanning the window: Recharts needs data to lay out axes; the series are drawn from typed arrays. */
export function axisAnchor(from: number, to: number): { x: number }[] {
  const [a, b] = xDomain(from, to);
  return [{ x: a }, { x: b }];
}

/** Upper end of the stdev axis: the data, but always room to show the floor above it. */
export function stdevDomain(s: SpreadSeries): [number, number] {
  let max = 0;
  for (const v of s.stdev) if (v > max) max = v;
  return [0, niceCeil(Math.max(max * 1.05, s.spreadFloor * 1.5, 0.01))];
}

export function scoreDomain(s: SpreadSeries): [number, number] {
  return rounded(extent([s.p10, s.p90, s.median], 0.02) ?? [0, 1]);
}

export function rankDomain(s: CanarySeries): [number, number] {
  let max = 2;
  for (const v of s.nScored) if (v > max) max = v;
  for (const c of s.canaries) for (const v of c.rank) if (v > max) max = v;
  return [1, niceCeil(max)];
}

export function tokensDomain(s: DriftSeries): [number, number] {
  let max = 0;
  for (const v of s.tokens) if (v > max) max = v;
  return [0, niceCeil(Math.max(1, max * 1.05))];
}

export function meanDomain(s: DriftSeries): [number, number] {
  return rounded(extent([s.mean, s.bandLow, s.bandHigh], 0.08) ?? [0, 1]);
}

export function edgesDomain(s: OrphanSeries): [number, number] {
  let max = 0;
  for (const v of s.edges) if (v > max) max = v;
  const step = Math.max(1, Math.ceil(niceStep(Math.max(2, max) / 4)));
  return [0, Math.max(2, Math.ceil((max + 0.5) / step) * step)];
}

export interface ReadoutLine {
  label: string;
  value: string;
  color: string;
}

const fmt = (v: number | undefined, digits = 3): string =>
  v === undefined || Number.isNaN(v) ? '—' : Number.isInteger(v) ? groupedDigits(v) : v.toFixed(digits);

/** The values under the pointer: the drawn point nearest to `turn`. */
export function readout(
  x: Float64Array,
  turn: number,
  series: readonly { label: string; y: Float64Array; color: string; digits?: number }[],
): { turn: number; lines: ReadoutLine[] } | null {
  const i = nearestIndex(x, turn);
  if (i < 0) return null;
  return { turn: x[i]!, lines: series.map((s) => ({ label: s.label, value: fmt(s.y[i], s.digits), color: s.color })) };
}

/** Widened to whole steps of a round tick size, so small changes in the data keep the axis still. */
export function rounded([a, b]: [number, number]): [number, number] {
  const step = niceStep((b - a) / 10);
  return [Math.floor(a / step) * step, Math.ceil(b / step) * step].map((v) => +v.toPrecision(6)) as [number, number];
}

function niceStep(raw: number): number {
  const p = 10 ** Math.floor(Math.log10(Math.max(1e-9, raw)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

export function sameDomain(a: readonly [number, number], b: readonly [number, number]): boolean {
  return a[0] === b[0] && a[1] === b[1];
}

export function sameRanges(a: readonly Range[], b: readonly Range[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.x1 !== b[i]!.x1 || a[i]!.x2 !== b[i]!.x2) return false;
  return true;
}

export function niceCeil(v: number): number {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (m * p >= v) return +(m * p).toPrecision(3);
  return v;
}
