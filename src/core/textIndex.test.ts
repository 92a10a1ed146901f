// textIndex.ts: the patterns found in one pass are exactly those `includes` finds.
import { describe, expect, it } from 'vitest';
import { PatternSet } from './textIndex.ts';

const naive = (patterns: string[], text: string): number[] => patterns.flatMap((p, i) => (p !== '' && text.includes(p) ? [i] : []));

describe('PatternSet', () => {
  it('finds what includes finds: overlaps, suffixes, repeats, the empty pattern, non-ASCII', () => {
    const patterns = ['he', 'she', 'his', 'hers', 'e', 'rs', 'x', '', 'héé', 'aaa', 'aa', 'a', 'she'];
    for (const text of ['ushers', 'ahishers', '', 'xhéé', 'aa', 'sh', 'hershe']) {
      expect(
        [...new PatternSet(patterns).occurring(text)].sort((a, b) => a - b),
        text,
      ).toEqual(naive(patterns, text).filter((i) => i !== 12));
    }
  });

  it('agrees with includes on random texts over a small alphabet', () => {
    let seed = 7;
    const rnd = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const word = (len: number): string => Array.from({ length: len }, () => 'abc'[rnd(3)]).join('');
    for (let round = 0; round < 200; round++) {
      const patterns = Array.from({ length: 1 + rnd(8) }, () => word(1 + rnd(5)));
      const text = word(rnd(40));
      const unique = [...new Set(patterns)];
      expect([...new PatternSet(unique).occurring(text)].sort((a, b) => a - b)).toEqual(naive(unique, text));
    }
  });
});

describe('PatternSet.take', () => {
  it('returns each pattern once in the set’s life, in the order it ends in the text', () => {
    const set = new PatternSet(['he', 'she', 'hers', 'e', '', 'he']);
    expect(set.take('ushers')).toEqual([1, 0, 3, 2]);
    expect(set.take('ushers')).toEqual([]);
    expect(new PatternSet(['ab', 'b']).take('xb')).toEqual([1]);
  });

  it('agrees with a naive model over many texts on a small alphabet', () => {
    let seed = 11;
    const rnd = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const word = (len: number): string => Array.from({ length: len }, () => 'ab'[rnd(2)]).join('');
    for (let round = 0; round < 200; round++) {
      const patterns = [...new Set(Array.from({ length: 1 + rnd(10) }, () => word(1 + rnd(4))))];
      const set = new PatternSet(patterns);
      const gone = new Set<number>();
      for (let t = 0; t < 5; t++) {
        const text = word(rnd(12));
        const want = naive(patterns, text).filter((i) => !gone.has(i));
        const got = set.take(text);
        expect(
          [...got].sort((a, b) => a - b),
          `${patterns.join(',')} / ${text}`,
        ).toEqual(want);
        for (const i of got) gone.add(i);
      }
    }
  });
});
