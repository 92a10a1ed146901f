// Issue 39 #3: the paths that were quadratic in the input are linear: the work counted at n,
// 2n and 4n grows at most as n^1.2 (docs/security.md "Linear time").
import { describe, expect, it } from 'vitest';
import { growthExponent, SCALING_CASES } from './attacks/scaling.ts';

describe('linear time on hostile inputs', () => {
  for (const c of SCALING_CASES) {
    it(
      c.name,
      () => {
        const { exponent, work } = growthExponent(c);
        expect(exponent, `work ${work.join(', ')}`).toBeLessThanOrEqual(1.2);
      },
      30_000,
    );
  }
});
