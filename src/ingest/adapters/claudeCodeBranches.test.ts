// docs/adapters.md rewinds: the chain ends a cut forgets are the records past it, whatever
// the order of cuts (docs/security.md "Linear time": each record is forgotten once).
import { describe, expect, it } from 'vitest';
import { ChainEnds } from './claudeCodeBranches.ts';

describe('ChainEnds', () => {
  it('a cut forgets the records that ended past it and keeps those at or before it', () => {
    const ends = new ChainEnds();
    ends.mark('a', 0);
    ends.mark('b', 2);
    ends.mark('c', 2);
    ends.mark('d', 5);
    ends.cut(2);
    expect(['a', 'b', 'c', 'd'].map((u) => ends.end(u))).toEqual([0, 2, 2, undefined]);
    ends.mark('e', 3);
    ends.cut(0);
    expect(['a', 'b', 'c', 'e'].map((u) => ends.end(u))).toEqual([0, undefined, undefined, undefined]);
  });

  it("a record's first mark stands, and a forgotten record marked again ends where it is now", () => {
    const ends = new ChainEnds();
    ends.mark('a', 1);
    ends.mark('a', 4);
    expect(ends.end('a')).toBe(1);
    ends.mark('b', 4);
    ends.cut(1);
    ends.mark('b', 2);
    expect(ends.end('b')).toBe(2);
  });

  it('each cut looks at what it forgets and one more, so n cuts of one record cost 2n', () => {
    const ends = new ChainEnds();
    for (let i = 0; i < 100; i++) ends.mark(`r${i}`, i);
    for (let i = 0; i < 50; i++) {
      ends.mark(`x${i}`, 100);
      ends.cut(99);
    }
    expect(ends.looked).toBe(100);
    ends.clear();
    expect(ends.end('r0')).toBeUndefined();
  });

  it('a record that follows one not marked yet is marked with it, in order; one whose parent never comes, never', () => {
    const ends = new ChainEnds();
    ends.mark('a', 1);
    ends.follow('d', 'b');
    ends.follow('e', 'd');
    ends.follow('x', 'nowhere');
    expect(ends.end('d')).toBeUndefined();
    ends.mark('b', 3);
    expect(['b', 'd', 'e', 'x'].map((u) => ends.end(u))).toEqual([3, 3, 3, undefined]);
    ends.cut(1);
    expect(['a', 'b', 'd', 'e'].map((u) => ends.end(u))).toEqual([1, undefined, undefined, undefined]);
  });
});
