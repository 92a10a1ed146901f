import { describe, expect, it } from 'vitest';
import { gapEdges, gather, lttb, range, unionSorted } from './lttb.ts';

const xs = (n: number): Float64Array => Float64Array.from({ length: n }, (_, i) => i + 1);

describe('lttb', () => {
  it('keeps every point when under the threshold', () => {
    expect([...lttb(xs(5), xs(5), 0, 5, 10)]).toEqual([0, 1, 2, 3, 4]);
  });

  it('keeps the first and last point, ascending, at most threshold points', () => {
    const n = 10_000;
    const y = Float64Array.from({ length: n }, (_, i) => Math.sin(i / 50));
    const idx = lttb(xs(n), y, 0, n, 500);
    expect(idx.length).toBeLessThanOrEqual(500);
    expect(idx[0]).toBe(0);
    expect(idx[idx.length - 1]).toBe(n - 1);
    for (let i = 1; i < idx.length; i++) expect(idx[i]!).toBeGreaterThan(idx[i - 1]!);
  });

  it('keeps a one-turn spike (the fault a pretty chart would hide)', () => {
    const n = 100_000;
    const y = new Float64Array(n).fill(0.2);
    y[73_137] = 5;
    const idx = lttb(xs(n), y, 0, n, 300);
    expect([...idx]).toContain(73_137);
  });

  it('works on a window of the arrays, returning absolute indices', () => {
    const idx = lttb(xs(1000), xs(1000), 200, 400, 20);
    expect(idx[0]).toBe(200);
    expect(idx[idx.length - 1]).toBe(399);
  });

  it('never picks NaN as a bucket shape point while a finite value exists', () => {
    const n = 1000;
    const y = Float64Array.from({ length: n }, (_, i) => (i % 2 === 0 ? Number.NaN : i));
    const idx = lttb(xs(n), y, 0, n, 50);
    const inner = [...idx].slice(1, -1);
    expect(inner.every((i) => !Number.isNaN(y[i]!))).toBe(true);
  });
});

describe('gap edges and union', () => {
  it('marks both sides of each NaN run, and gives up when too fragmented', () => {
    const y = Float64Array.of(1, 2, Number.NaN, Number.NaN, 5, 6);
    expect([...gapEdges(y, 0, 6, 10)]).toEqual([1, 2, 3, 4]);
    const noisy = Float64Array.from({ length: 100 }, (_, i) => (i % 2 ? Number.NaN : 1));
    expect(gapEdges(noisy, 0, 100, 10).length).toBe(0);
  });

  it('unions sorted lists without duplicates', () => {
    expect([...unionSorted([Int32Array.of(1, 5, 9), Int32Array.of(0, 5, 10), new Int32Array(0)])]).toEqual([0, 1, 5, 9, 10]);
  });

  it('gathers values at indices', () => {
    expect([...gather(Float64Array.of(10, 20, 30), Int32Array.of(0, 2))]).toEqual([10, 30]);
    expect([...range(3, 6)]).toEqual([3, 4, 5]);
  });
});
