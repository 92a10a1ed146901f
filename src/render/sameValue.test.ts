import { describe, expect, it } from 'vitest';
import { sameValue } from './sameValue.ts';

describe('sameValue', () => {
  it('compares plain objects, arrays and typed arrays member by member', () => {
    const a = { x: Float64Array.of(1, Number.NaN, 3), list: [{ id: 'pin-1', rank: Float64Array.of(2) }], name: 'spread', none: null };
    const b = { none: null, name: 'spread', list: [{ id: 'pin-1', rank: Float64Array.of(2) }], x: Float64Array.of(1, Number.NaN, 3) };
    expect(sameValue(a, b)).toBe(true);
    expect(sameValue(a, { ...b, x: Float64Array.of(1, Number.NaN, 4) })).toBe(false);
    expect(sameValue(a, { ...b, list: [{ id: 'pin-2', rank: Float64Array.of(2) }] })).toBe(false);
    expect(sameValue(a, { ...b, none: undefined })).toBe(false);
  });

  it('tells apart what would draw differently: lengths, element types, 0 and -0, a missing key', () => {
    expect(sameValue(Float64Array.of(1, 2), Float64Array.of(1, 2, 3))).toBe(false);
    expect(sameValue(Float64Array.of(1, 2), Int32Array.of(1, 2))).toBe(false);
    expect(sameValue(Float64Array.of(0), Float64Array.of(-0))).toBe(false);
    expect(sameValue({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(sameValue([1, 2], { 0: 1, 1: 2 })).toBe(false);
    expect(sameValue(null, {})).toBe(false);
  });
});
