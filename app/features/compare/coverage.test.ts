import { describe, expect, it } from 'vitest';
import { coverageSentence, fmtPoints, per100 } from './coverage.ts';

describe('coverageSentence', () => {
  const a = { turns: 258, firstTurn: 1, lastTurn: 258 };
  const b = { turns: 115, firstTurn: 1, lastTurn: 115 };
  it('by turn: the turns both have, and what has no partner', () => {
    expect(coverageSentence('turn', a, b).sentence).toBe("Compared: turns 1–115; A's 116–258 have no B.");
    expect(coverageSentence('turn', b, a).sentence).toBe("Compared: turns 1–115; B's 116–258 have no A.");
    expect(coverageSentence('turn', a, a).sentence).toBe('Compared: turns 1–258.');
  });
  it('by turn with no turn in common', () => {
    expect(coverageSentence('turn', { turns: 5, firstTurn: 1, lastTurn: 5 }, { turns: 5, firstTurn: 10, lastTurn: 14 }).compared).toBe('no turn');
  });
  it('by position: every turn of both', () => {
    expect(coverageSentence('relative', a, b).sentence).toBe(
      "Compared: all 258 of A's turns (1–258) with all 115 of B's (1–115) by position, each B turn beside about 2.2 of A's.",
    );
  });
});

describe('rates', () => {
  it('per 100 turns and points', () => {
    expect(per100(12, 258)).toBeCloseTo(4.65, 2);
    expect(fmtPoints(per100(12, 115) - per100(12, 258))).toBe('+5.8');
    expect(fmtPoints(-0.04)).toBe('0');
  });
});
