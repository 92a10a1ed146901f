// The parsing Workers the page asks for (docs/dashboard.md "Parsing Workers").
import { describe, expect, it } from 'vitest';
import { parseChoice } from './parseSetting.ts';

describe('parseChoice', () => {
  it('?parse=1 is one thread: no parsing Workers, whatever the size; ?parse=N is N of them', () => {
    expect(parseChoice('?parse=1', 8)).toEqual({ workers: 0, minBytes: 0 });
    expect(parseChoice('?parse=3', 2)).toEqual({ workers: 3, minBytes: 0 });
    expect(parseChoice('?parse=2&share=all', 2)).toEqual({ workers: 2, minBytes: 0, fixedShare: true });
  });

  it('by default: at least two where the machine has two cores, one where it says one, at most four; files of 8 MiB or more', () => {
    const workers = (cores: number): number => parseChoice('', cores).workers;
    expect([1, 2, 3, 4, 8, 64].map(workers)).toEqual([1, 2, 2, 3, 4, 4]);
    expect(parseChoice('', 8).minBytes).toBe(8 << 20);
  });

  it('a value that is not a count of Workers is the default', () => {
    for (const q of ['?parse=0', '?parse=two', '?parse=1.5', '?parse=']) expect(parseChoice(q, 4)).toEqual(parseChoice('', 4));
  });
});
