// contract §8.4 repeated compactions, under the cap: the audit follows at most carriedMax items
// from one compaction to the next, counts those it leaves out, and shares the items it carries
// instead of copying them per compaction (docs/security.md "Linear time").
import { describe, expect, it } from 'vitest';
import { CARRIED_MAX, CompactionAuditor, notFollowedField, type AuditResult } from './compactionAudit.ts';

/** one compaction of the files given, judged against `surviving` */
function compaction(a: CompactionAuditor, turn: number, paths: string[], surviving: string): AuditResult {
  for (const p of paths) a.add('file', p, turn, `s${turn}:${p}`);
  a.compact();
  return a.judge(turn + 1, surviving);
}

describe('items carried across compactions', () => {
  it('the product follows 1,000', () => {
    expect(CARRIED_MAX).toBe(1000);
    expect(new CompactionAuditor().followed).toBe(0);
  });

  it('under the cap every kept item is judged again and nothing is counted (the wire field is absent)', () => {
    const a = new CompactionAuditor(3);
    compaction(a, 1, ['/a/x', '/b/x'], 'x');
    const r = compaction(a, 3, ['/c/x'], 'x');
    expect(r.carried.map((c) => c.text)).toEqual(['/a/x', '/b/x']);
    expect(r.notFollowed).toBe(0);
    expect(notFollowedField(r)).toEqual({});
  });

  it('past the cap the first followed stay, the rest are counted at every later compaction, and never judged again', () => {
    const a = new CompactionAuditor(2);
    compaction(a, 1, ['/a/x', '/b/x', '/c/x'], 'x');
    expect(a.followed).toBe(2);
    const r = compaction(a, 3, ['/d/x'], 'x');
    expect(r.carried.map((c) => c.text)).toEqual(['/a/x', '/b/x']);
    expect(r.notFollowed).toBe(1);
    expect(notFollowedField(r)).toEqual({ carried_not_followed: 1 });
    const r2 = compaction(a, 5, [], 'x');
    expect(r2.carried.map((c) => c.text)).toEqual(['/a/x', '/b/x']);
    expect(r2.notFollowed).toBe(2); // /c/x and /d/x
    expect(a.followed).toBe(2);
  });

  it("a loss frees a place; an item left out that the agent reads again is its stretch's own item, not counted", () => {
    const a = new CompactionAuditor(2);
    compaction(a, 1, ['/a/x', '/b/y', '/c/x'], 'x y');
    // /b/y lost here: its place goes to the next compaction's own kept item
    const r = compaction(a, 3, ['/c/x'], 'x');
    expect(r.notFollowed).toBe(0); // /c/x is judged as this stretch's own
    expect(r.items.map((i) => [i.text, i.status])).toEqual([['/c/x', 'kept']]);
    expect(r.carried.map((c) => [c.text, c.status])).toEqual([
      ['/a/x', 'kept'],
      ['/b/y', 'lost'],
    ]);
    const r2 = compaction(a, 5, [], 'x');
    expect(r2.carried.map((c) => c.text)).toEqual(['/a/x', '/c/x']);
    expect(r2.notFollowed).toBe(0);
  });

  it('a carried item is shared while its status holds and a new object when it changes (earlier lists never change)', () => {
    const a = new CompactionAuditor();
    compaction(a, 1, ['/a/keep.ts', '/b/other.ts'], 'keep.ts other.ts');
    const r1 = compaction(a, 3, [], 'keep.ts other.ts');
    const r2 = compaction(a, 5, [], 'keep.ts');
    expect(r2.carried[0]).toBe(r1.carried[0]);
    expect(r2.carried[1]).not.toBe(r1.carried[1]);
    expect(r1.carried.map((c) => c.status)).toEqual(['kept', 'kept']);
    expect(r2.carried.map((c) => c.status)).toEqual(['kept', 'lost']);
    expect(compaction(a, 7, [], '').carried.map((c) => c.text)).toEqual(['/a/keep.ts']);
  });
});
