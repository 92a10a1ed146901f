// contract §3 statistics over the finite scores of one snapshot.

export interface ScoreStats {
  mean: number;
  median: number;
  /** Population standard deviation (contract §3). */
  stdev: number;
}

/**
 * `scores` is reordered in place (partly: the median is selected, not sorted for). Returns
 * null for an empty list: no mean, no median.
 */
export function scoreStats(scores: Float64Array): ScoreStats | null {
  const n = scores.length;
  if (n === 0) return null;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += scores[i]!;
  const mean = sum / n;
  let sq = 0;
  for (let i = 0; i < n; i++) {
    const d = scores[i]! - mean;
    sq += d * d;
  }
  const mid = n >> 1;
  // the value a sort would put at mid, with every smaller one before it
  const upper = selectNth(scores, mid);
  // contract §4: the median of an even count is the mean of the middle two (the lower is the largest before mid)
  let median = upper;
  if (n % 2 === 0) {
    let lower = scores[0]!;
    for (let i = 1; i < mid; i++) if (scores[i]! > lower) lower = scores[i]!;
    median = (lower + upper) / 2;
  }
  return { mean, median, stdev: Math.sqrt(sq / n) };
}

/** contract §3 canary_rank: 1 + the number of scored spans with a strictly higher score. */
export function rankOf(score: number, scores: Float64Array): number {
  let higher = 0;
  for (let i = 0; i < scores.length; i++) if (scores[i]! > score) higher++;
  return 1 + higher;
}

/**
 * Quickselect: reorders `a` so that a[k] is the value an ascending sort puts there, with
 * none larger before it and none smaller after it; returns a[k]. Sorting 200 scores a turn
 * was ~5% of check's time. A run of bad pivots (input made to defeat them) ends in a sort
 * of what is left, so a long line costs at worst what sorting it did.
 */
function selectNth(a: Float64Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  let budget = 2 * (32 - Math.clz32(a.length)) + 4;
  while (hi > lo) {
    if (budget-- === 0) {
      a.subarray(lo, hi + 1).sort();
      return a[k]!;
    }
    // median of three as the pivot
    const m = (lo + hi) >>> 1;
    const x = a[lo]!;
    const y = a[m]!;
    const z = a[hi]!;
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i] = a[j]!;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k]!;
  }
  return a[k]!;
}
