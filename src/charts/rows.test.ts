// What each chart receives on top of the Worker's arrays: domains, shaded ranges, ticks,
// hover values, and the SVG paths drawn from typed arrays.
import { describe, expect, it } from 'vitest';
import type { SpreadSeries } from '../results/series.ts';
import { nearestIndex } from '../core/bisect.ts';
import { bandPath, extent, linear, linePath, markerPath, rulePixel, shadePath, stepAreaPath } from './paths.ts';
import { bandRanges, minBandWidth, niceTicks, readout, rounded, sameDomain, sameRanges, scoreDomain, shownDomain, stdevDomain, xDomain } from './rows.ts';

const F = (...v: number[]): Float64Array => Float64Array.from(v);
const id = linear(0, 1, 0, 1);

describe('paths from typed arrays', () => {
  it('draws a line and breaks it at NaN (a missing metric is a gap, never a zero)', () => {
    expect(linePath(F(1, 2, 3, 4), F(10, Number.NaN, 30, 40), id, id)).toBe('M1,10M3,30L4,40');
  });

  it('maps through the axis scales', () => {
    const sx = linear(0, 10, 100, 200); // 10 px per turn from x=100
    const sy = linear(0, 1, 50, 0); // y up
    expect(linePath(F(0, 10), F(0, 1), sx, sy)).toBe('M100,50L200,0');
  });

  it('closes a band between low and high, in pieces around gaps', () => {
    expect(bandPath(F(1, 2, 3), F(0, 0, Number.NaN), F(1, 2, 3), id, id)).toBe('M1,1L2,2L2,0L1,0Z');
  });

  it('places a threshold rule on the y scale, and not at all outside the plot', () => {
    const sy = linear(0, 1, 170, 10); // y up: 0 at the bottom (170), 1 at the top (10)
    expect(rulePixel(0.25, sy, 10, 170)).toBe(130);
    expect(rulePixel(1, sy, 10, 170)).toBe(10);
    expect(rulePixel(1.2, sy, 10, 170)).toBeNull(); // above the shown range
    expect(rulePixel(-0.1, sy, 10, 170)).toBeNull();
    expect(rulePixel(Number.NaN, sy, 10, 170)).toBeNull();
  });

  it('draws counts as steps down to the baseline', () => {
    expect(stepAreaPath(F(1, 3), F(2, 5), id, id, 0, 4)).toBe('M1,0V2H3V5H4V0Z');
  });

  it('draws all markers of a series as one path', () => {
    expect(markerPath(F(1, 2), F(1, Number.NaN), id, id, 'triangle', 1)).toBe('M1,-0.2L2,1.8L0,1.8Z');
    expect(shadePath([{ x1: 2, x2: 4 }], id, 0, 10)).toBe('M2,0H4V10H2Z');
  });

  it('finds extents over finite values and the nearest point', () => {
    expect(extent([F(1, Number.NaN, 3), F(2)], 0)).toEqual([1, 3]);
    expect(extent([F(Number.NaN)])).toBeNull();
    expect(nearestIndex(F(1, 5, 9), 6)).toBe(1);
    expect(nearestIndex(F(1, 5, 9), 8)).toBe(2);
    expect(nearestIndex(F(), 8)).toBe(-1);
  });
});

describe('chart shaping', () => {
  it('widens one-turn fault bands to stay visible, keeping wide ones as they are', () => {
    expect(bandRanges(F(10, 10, 20, 40), 2)).toEqual([
      { x1: 9, x2: 11 },
      { x1: 20, x2: 40 },
    ]);
    expect(minBandWidth(0, 1000, 500)).toBe(4);
  });

  it('keeps room for the spread floor above the data on the stdev axis', () => {
    const s = { stdev: F(0.01, 0.02), spreadFloor: 0.08, p10: F(0.4), p90: F(0.6), median: F(0.5) } as unknown as SpreadSeries;
    expect(stdevDomain(s)[1]).toBeGreaterThanOrEqual(0.12);
    const [lo, hi] = scoreDomain(s);
    expect(lo).toBeLessThanOrEqual(0.4);
    expect(hi).toBeGreaterThanOrEqual(0.6);
  });

  it('rounds domains to round steps so axes hold still while data wiggles', () => {
    expect(rounded([0.013, 0.987])).toEqual([0, 1]);
    expect(rounded([0.0131, 0.9871])).toEqual(rounded([0.0133, 0.9869]));
    expect(sameDomain([0, 1], [0, 1])).toBe(true);
    expect(sameRanges([{ x1: 1, x2: 2 }], [{ x1: 1, x2: 3 }])).toBe(false);
  });

  it('puts turn ticks on round numbers', () => {
    expect(niceTicks(1, 100_000)).toEqual([20_000, 40_000, 60_000, 80_000, 100_000]);
    expect(niceTicks(13, 61)).toEqual([20, 30, 40, 50, 60]);
  });

  it('lets the live turn axis run ahead to a round turn, and widens a one-turn window', () => {
    expect(shownDomain(1, 1234, false)).toEqual([1, 1234]);
    const [a, b] = shownDomain(1, 1234, true);
    expect(a).toBe(1);
    expect(b).toBeGreaterThan(1234);
    expect(shownDomain(1, 1240, true)).toEqual([a, b]); // unchanged while the session grows a little
    // from 600 to 2,600 turns (10 s at 200 a second) the axis moves a few times, not at every update
    const ends = new Set<number>();
    for (let t = 600; t <= 2600; t += 7) {
      const [, end] = shownDomain(1, t, true);
      expect(end).toBeGreaterThan(t);
      expect(end - 1).toBeLessThanOrEqual(1.5 * t);
      ends.add(end);
    }
    expect(ends.size).toBeLessThanOrEqual(5);
    expect(xDomain(5, 5)).toEqual([4, 6]);
  });

  it('reads the values under the pointer from the drawn points', () => {
    const r = readout(F(10, 20, 30), 24, [{ label: 'stdev', y: F(0.1, 0.2, Number.NaN), color: '#000' }]);
    expect(r).toEqual({ turn: 20, lines: [{ label: 'stdev', value: '0.200', color: '#000' }] });
    expect(readout(F(10, 20, 30), 29, [{ label: 'stdev', y: F(0.1, 0.2, Number.NaN), color: '#000' }])!.lines[0]!.value).toBe('—');
  });
});
