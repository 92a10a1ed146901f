// scoreStats selects the median instead of sorting, and rankOf counts: both against a sort.
import { describe, expect, it } from 'vitest';
import { rankOf, scoreStats } from './stats.ts';

function bySort(values: number[]): { median: number; ranks: number[] } {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  const mid = n >> 1;
  const median = n % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, ranks: values.map((v) => 1 + sorted.filter((x) => x > v).length) };
}

describe('scoreStats and rankOf', () => {
  it('give the median and ranks a sort gives, on random, repeated, sorted and reversed scores', () => {
    let seed = 7;
    const next = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    const cases: number[][] = [[0.5], [1, 0], [0, 0, 0, 0], [-0, 0, -0], [3, 1, 2]];
    for (let t = 0; t < 400; t++) {
      const n = 1 + Math.floor(next() * 300);
      const distinct = 1 + Math.floor(next() * 20);
      const kind = t % 4;
      let xs = Array.from({ length: n }, () => (kind === 0 ? next() : Math.floor(next() * distinct) / distinct));
      if (kind === 2) xs = xs.sort((a, b) => a - b);
      if (kind === 3) xs = xs.sort((a, b) => b - a);
      cases.push(xs);
    }
    for (const xs of cases) {
      const want = bySort(xs);
      const scores = Float64Array.from(xs);
      const stats = scoreStats(scores)!;
      // === and not toBe: a sort puts -0 before 0, a selection either (both print as 0)
      expect(stats.median === want.median, `median of ${xs.length}: ${stats.median}, a sort's ${want.median}`).toBe(true);
      // the same values are still there, only reordered
      expect(Array.from(scores).sort((a, b) => a - b)).toEqual([...xs].sort((a, b) => a - b));
      expect(xs.map((v) => rankOf(v, scores))).toEqual(want.ranks);
    }
    expect(scoreStats(new Float64Array(0))).toBeNull();
  });

  it('a run of pivots made to be bad still ends, in a sort', () => {
    // an organ-pipe order, hard for a median of three
    const n = 4096;
    const xs = Array.from({ length: n }, (_, i) => (i < n / 2 ? i : n - i));
    const stats = scoreStats(Float64Array.from(xs))!;
    expect(stats.median).toBe(bySort(xs).median);
  });
});
