import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexAtOrBefore, lowerBound, nearestIndex, upperBound } from './bisect.ts';

const sortedInts = fc.array(fc.integer({ min: -50, max: 50 }), { maxLength: 40 }).map((a) => a.sort((x, y) => x - y));

describe('bisect', () => {
  it('agrees with a linear scan', () => {
    fc.assert(
      fc.property(sortedInts, fc.integer({ min: -60, max: 60 }), (a, v) => {
        const lb = a.findIndex((x) => x >= v);
        const ub = a.findIndex((x) => x > v);
        expect(lowerBound(a, v)).toBe(lb < 0 ? a.length : lb);
        expect(upperBound(a, v)).toBe(ub < 0 ? a.length : ub);
        expect(indexAtOrBefore(a, v)).toBe((ub < 0 ? a.length : ub) - 1);
        if (a.length === 0) expect(nearestIndex(a, v)).toBe(-1);
        else {
          const best = Math.min(...a.map((x) => Math.abs(x - v)));
          const i = nearestIndex(a, v);
          expect(Math.abs(a[i]! - v)).toBe(best);
          expect(a[i]).toBe(Math.min(...a.filter((x) => Math.abs(x - v) === best)));
        }
      }),
    );
  });

  it('searches only the first n values when n is given', () => {
    const a = new Float64Array([1, 2, 3, 0, 0]);
    expect(lowerBound(a, 3, 3)).toBe(2);
    expect(upperBound(a, 5, 3)).toBe(3);
    expect(indexAtOrBefore(a, 0.5, 3)).toBe(-1);
    expect(nearestIndex(a, 10, 3)).toBe(2);
  });
});
