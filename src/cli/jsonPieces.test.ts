// jsonPieces: the bytes of JSON.stringify, in pieces.
import { describe, expect, it } from 'vitest';
import { jsonPieces } from './jsonPieces.ts';

describe('jsonPieces', () => {
  it('joins to JSON.stringify of the value, skipped and null fields included', () => {
    const value = {
      a: 1,
      b: 'x"\n\u2028',
      c: [1, null, undefined, () => 1, { d: undefined, e: -0, f: [] }],
      g: undefined,
      h: { toJSON: () => 'j' },
      i: new Date(0),
      k: true,
      l: {},
      'q"k': 1.5e300,
    };
    expect([...jsonPieces(value)].join('')).toBe(JSON.stringify(value));
  });

  it('hands a large value out in several pieces', () => {
    const value = { rows: Array.from({ length: 20_000 }, (_, i) => ({ turn: i, text: `t${i}` })) };
    const pieces = [...jsonPieces(value)];
    expect(pieces.length).toBeGreaterThan(5);
    expect(pieces.join('')).toBe(JSON.stringify(value));
  });
});
