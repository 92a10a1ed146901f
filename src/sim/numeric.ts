// Small pure numeric helpers of the scenario generator. They draw no randomness, so moving a
// call between modules cannot shift the PRNG's stream (src/sim/scenario.golden.test.ts).
// Statistics follow contract §3 as the engine computes them.

/** contract §4 relevance_collapse compresses scores toward the scale's midpoint. */
export const MIDPOINT = 0.5;
export const SCORE_MAX = 0.99;
export const SCORE_MIN = 0.01;

export function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

export function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}

/** Applies `f` in place to every score that is not null. */
export function mapFinite(vals: (number | null)[], f: (v: number) => number): void {
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
export function stdevOf(vals: readonly (number | null)[]): number {
  const xs = finite(vals);
  if (xs.length === 0) return 0;
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) * (b - m), 0) / xs.length);
}

/** contract §4: the median of an even count is the mean of the middle two. */
export function medianOf(vals: readonly (number | null)[]): number | null {
  const xs = finite(vals).sort((a, b) => a - b);
  if (xs.length === 0) return null;
  const mid = xs.length >> 1;
  return xs.length % 2 === 1 ? xs[mid]! : (xs[mid - 1]! + xs[mid]!) / 2;
}

/** Nearest-rank quantile of an ascending list. */
export function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.floor(q * sorted.length)))]!;
}
