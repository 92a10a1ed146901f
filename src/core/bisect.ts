// Binary search over ascending numbers: turn columns, sorted scores, chart x values. One
// implementation for the engine, the Worker and the app (a pure module the app may import).

/** First index i in sorted[0, n) with sorted[i] >= value (n when there is none). */
export function lowerBound(sorted: ArrayLike<number>, value: number, n = sorted.length): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (sorted[m]! < value) lo = m + 1;
    else hi = m;
  }
  return lo;
}

/** First index i in sorted[0, n) with sorted[i] > value (n when there is none). */
export function upperBound(sorted: ArrayLike<number>, value: number, n = sorted.length): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (sorted[m]! <= value) lo = m + 1;
    else hi = m;
  }
  return lo;
}

/** Last index i in sorted[0, n) with sorted[i] <= value, or −1 when every value is larger. */
export function indexAtOrBefore(sorted: ArrayLike<number>, value: number, n = sorted.length): number {
  return upperBound(sorted, value, n) - 1;
}

/** Index of the value in sorted[0, n) closest to `value` (of two values equally close, the lower), or −1 when n is 0. */
export function nearestIndex(sorted: ArrayLike<number>, value: number, n = sorted.length): number {
  if (n === 0) return -1;
  const i = Math.min(lowerBound(sorted, value, n), n - 1);
  return i > 0 && value - sorted[i - 1]! <= sorted[i]! - value ? i - 1 : i;
}
