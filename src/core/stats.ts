// contract §3 statistics over the finite scores of one snapshot.
import { upperBound } from './bisect.ts';

export interface ScoreStats {
  mean: number;
  median: number;
  /** Population standard deviation (contract §3). */
  stdev: number;
}

/** `scores` is sorted in place. Returns null for an empty list: no mean, no median. */
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
  scores.sort();
  const mid = n >> 1;
  // contract §4: the median of an even count is the mean of the middle two.
  const median = n % 2 === 1 ? scores[mid]! : (scores[mid - 1]! + scores[mid]!) / 2;
  return { mean, median, stdev: Math.sqrt(sq / n) };
}

/** contract §3 canary_rank: 1 + the number of scored spans with a strictly higher score. */
export function rankOf(score: number, sortedAscending: Float64Array): number {
  return 1 + (sortedAscending.length - upperBound(sortedAscending, score));
}
