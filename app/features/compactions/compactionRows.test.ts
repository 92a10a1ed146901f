import { describe, expect, it } from 'vitest';
import type { CompactionRecord, RecordItem } from '../../../src/worker/client.ts';
import { compactionAt, itemsByKind, retentionShares, retentionWords, ROWS_SHOWN, shownRows, tokensWords, totalRetention } from './compactionRows.ts';

const item = (kind: RecordItem['kind'], text: string, status: RecordItem['status'], confirmed = false): RecordItem => ({
  kind,
  text,
  status,
  from_turn: 1,
  span_id: null,
  refetched_at: confirmed ? 7 : null,
  confirmed,
});

const retention = {
  file: { items: 58, kept: 41, paraphrased: 0, lost: 17, confirmed: 3 },
  user_prompt: { items: 23, kept: 22, paraphrased: 1, lost: 0, confirmed: 0 },
};

describe('compaction rows', () => {
  it('words the retention as the overview shows it, files before prompts', () => {
    expect(retentionWords({ user_prompt: retention.user_prompt, file: retention.file })).toBe('files 41/58, prompts 22/23');
    expect(retentionWords({})).toBe('');
  });

  it('adds up every kind, and gives the shares of the strip’s bar', () => {
    expect(totalRetention(retention)).toEqual({ items: 81, kept: 63, paraphrased: 1, lost: 17, confirmed: 3 });
    const s = retentionShares(retention);
    expect(s.kept + s.paraphrased + s.lost).toBeCloseTo(1);
    expect(s.confirmed).toBe(3);
    expect(retentionShares({}).items).toBe(0);
  });

  it('contract §8.4 unknown: counted only where there is some, and a share of the bar of its own', () => {
    const enc = { file: { items: 4, kept: 1, paraphrased: 0, lost: 0, confirmed: 0, unknown: 3 } };
    expect(totalRetention({ ...enc, user_prompt: retention.user_prompt })).toEqual({ items: 27, kept: 23, paraphrased: 1, lost: 0, confirmed: 0, unknown: 3 });
    expect(retentionShares(enc)).toMatchObject({ kept: 0.25, unknown: 0.75, lost: 0 });
    expect(retentionShares(retention).unknown).toBe(0);
    // lost first, then the ones that could not be judged, then paraphrased, then kept
    const grouped = itemsByKind([item('file', 'k', 'kept'), item('file', 'u', 'unknown'), item('file', 'l', 'lost'), item('file', 'p', 'paraphrased')]);
    expect(grouped[0]!.items.map((i) => i.status)).toEqual(['lost', 'unknown', 'paraphrased', 'kept']);
  });

  it('words the tokens before → after, and a first turn without a before', () => {
    expect(tokensWords({ tokens_before: 167012, tokens_after: 31002 })).toBe('167,012 → 31,002 tokens');
    expect(tokensWords({ tokens_before: null, tokens_after: 400 })).toBe('400 tokens after');
  });

  it('groups items by kind, lost first and confirmed losses first among them, order kept otherwise', () => {
    const groups = itemsByKind([
      item('user_prompt', 'p kept', 'kept'),
      item('file', 'a.ts', 'kept'),
      item('file', 'b.ts', 'lost'),
      item('file', 'c.ts', 'paraphrased'),
      item('file', 'd.ts', 'lost', true),
      item('user_prompt', 'p lost', 'lost'),
    ]);
    expect(groups.map((g) => g.kind)).toEqual(['file', 'user_prompt']);
    expect(groups[0]!.items.map((i) => i.text)).toEqual(['d.ts', 'b.ts', 'c.ts', 'a.ts']);
    expect(groups[1]!.items.map((i) => i.text)).toEqual(['p lost', 'p kept']);
  });

  it('finds the record of a turn', () => {
    const r = { turn: 5 } as CompactionRecord;
    expect(compactionAt([r], 5)).toBe(r);
    expect(compactionAt([r], 6)).toBeNull();
    expect(compactionAt(undefined, 5)).toBeNull();
  });
});

describe('a refetch storm in the panel (bench refetch-browser)', () => {
  // n lost files, every one gone back for but the last: the rows the panel draws stay ROWS_SHOWN whatever n is
  const storm = (n: number): RecordItem[] => Array.from({ length: n }, (_, i) => item('file', `/repo/src/f${i}.ts`, 'lost', i < n - 1));

  it('draws ROWS_SHOWN rows of a kind at n, 2n and 4n, confirmed losses first, and counts the rest', () => {
    const drawn = [2500, 5000, 10_000].map((n) => {
      const [files] = itemsByKind(storm(n));
      const { rows, more } = shownRows(files!.items);
      expect(rows.length + more).toBe(n);
      expect(rows.every((r) => r.confirmed)).toBe(true);
      return rows.length;
    });
    expect(drawn).toEqual([ROWS_SHOWN, ROWS_SHOWN, ROWS_SHOWN]);
  });

  it('a kind of no more than ROWS_SHOWN items is drawn whole, nothing counted', () => {
    const few = storm(3);
    expect(shownRows(few)).toEqual({ rows: few, more: 0 });
    expect(shownRows(storm(ROWS_SHOWN)).more).toBe(0);
    expect(shownRows(storm(ROWS_SHOWN + 1)).more).toBe(1);
  });
});
