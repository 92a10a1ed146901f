// contract §2.3's token estimate: ⌈code points / 4⌉, whatever the text holds.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { estimateTokens } from './tokens.ts';

describe('estimateTokens', () => {
  it('is a quarter of the code points, rounded up (a pair is one, a lone surrogate one)', () => {
    const units = fc.constantFrom('a', ' ', 'é', '東', '😀', '\ud800', '\udc00', '\udbff', '\udfff', '\n');
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          fc.array(units).map((u) => u.join('')),
        ),
        (text) => {
          expect(estimateTokens(text)).toBe(Math.ceil([...text].length / 4));
        },
      ),
      { numRuns: 3000 },
    );
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('😀😀😀😀😀')).toBe(2);
    expect(estimateTokens('\udc00\ud800')).toBe(1);
  });
});
