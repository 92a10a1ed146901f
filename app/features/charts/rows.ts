// What each chart receives: the Worker's typed-array series turned into the row objects
// Recharts draws (NaN → null, so a missing value is a gap, never a zero), and band pairs
// into ranges. Pure and tested; the chart components only draw.
import type { Bands, CanarySeries, DriftSeries, OrphanSeries, SpreadSeries } from '../../../src/worker/client.ts';

const num = (v: number | undefined): number | null => (v === undefined || Number.isNaN(v) ? null : v);

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

/** Turns per pixel-ish: the narrowest band drawn (two pixels). */
export function minBandWidth(from: number, to: number, plotWidth: number): number {
  return Math.max(0.5, ((to - from) / Math.max(1, plotWidth)) * 2);
}

export interface SpreadRow {
  x: number;
  stdev: number | null;
  band: [number, number] | null;
  median: number | null;
}

export function spreadRows(s: SpreadSeries): SpreadRow[] {
  const rows: SpreadRow[] = new Array(s.x.length);
  for (let i = 0; i < s.x.length; i++) {
    const lo = num(s.p10[i]);
    const hi = num(s.p90[i]);
    rows[i] = { x: s.x[i]!, stdev: num(s.stdev[i]), band: lo === null || hi === null ? null : [lo, hi], median: num(s.median[i]) };
  }
  return rows;
}

/** Upper end of the stdev axis: the data, but always room to show the floor above it. */
export function stdevDomainMax(s: SpreadSeries): number {
  let max = 0;
  for (const v of s.stdev) if (v > max) max = v;
  return niceCeil(Math.max(max, s.spreadFloor * 1.5, 0.01));
}

export type CanaryRow = { x: number; median: number | null } & Record<string, number | null>;

/** Canary keys are positional (`c0`, `c1`, …) because span ids may be any string. */
export function canaryRows(s: CanarySeries): CanaryRow[] {
  const rows: CanaryRow[] = new Array(s.x.length);
  for (let i = 0; i < s.x.length; i++) {
    const row: CanaryRow = { x: s.x[i]!, median: num(s.medianRank[i]) } as CanaryRow;
    s.canaries.forEach((c, k) => {
      row[`c${k}`] = num(c.rank[i]);
    });
    rows[i] = row;
  }
  return rows;
}

export function canaryPoints(s: CanarySeries): { x: number; rank: number }[] {
  const out: { x: number; rank: number }[] = [];
  for (let i = 0; i < s.inversionX.length; i++) out.push({ x: s.inversionX[i]!, rank: s.inversionRank[i]! });
  return out;
}

export function maxRank(s: CanarySeries): number {
  let max = 1;
  for (const v of s.nScored) if (v > max) max = v;
  for (const c of s.canaries) for (const v of c.rank) if (v > max) max = v;
  return max;
}

export interface DriftRow {
  x: number;
  tokens: number | null;
  mean: number | null;
  band: [number, number] | null;
}

export function driftRows(s: DriftSeries): DriftRow[] {
  const rows: DriftRow[] = new Array(s.x.length);
  for (let i = 0; i < s.x.length; i++) {
    const lo = num(s.bandLow[i]);
    const hi = num(s.bandHigh[i]);
    rows[i] = { x: s.x[i]!, tokens: num(s.tokens[i]), mean: num(s.mean[i]), band: lo === null || hi === null ? null : [lo, hi] };
  }
  return rows;
}

export function markerPoints(x: Float64Array, y: Float64Array): { x: number; y: number }[] {
  const out: { x: number; y: number }[] = [];
  for (let i = 0; i < x.length; i++) if (!Number.isNaN(y[i]!)) out.push({ x: x[i]!, y: y[i]! });
  return out;
}

export interface OrphanRow {
  x: number;
  edges: number;
}

export function orphanRows(s: OrphanSeries): OrphanRow[] {
  const rows: OrphanRow[] = new Array(s.x.length);
  for (let i = 0; i < s.x.length; i++) rows[i] = { x: s.x[i]!, edges: s.edges[i]! };
  return rows;
}

/** X domain of the window; a one-turn window is widened so the axis can draw. */
export function xDomain(from: number, to: number): [number, number] {
  return from === to ? [from - 1, to + 1] : [from, to];
}

function niceCeil(v: number): number {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (m * p >= v) return +(m * p).toPrecision(3);
  return v;
}
