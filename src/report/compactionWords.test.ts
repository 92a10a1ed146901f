// check's line for a compaction (contract §8.3) when its summary cannot be read (§8.4 unknown).
import { describe, expect, it } from 'vitest';
import type { CompactionRecord } from '../core/compactions.ts';
import { carriedNotFollowedWords, compactionLine, ENCRYPTED_SUMMARY_WORDS } from './compactionWords.ts';

const record = (over: Partial<CompactionRecord>): CompactionRecord => ({
  turn: 5,
  kind: 'compact',
  trigger: null,
  tokens_before: 9000,
  tokens_after: 2500,
  agent_tokens_before: null,
  spans_replaced: 7,
  summary_span_ids: ['s'],
  summary_text: 'x',
  items: [],
  carried: [],
  retention: {},
  ...over,
});

describe('compactionLine', () => {
  it('an encrypted summary: the files the readable text does not name are not called dropped, and the line says why', () => {
    const line = compactionLine(
      record({
        summary_state: 'encrypted',
        retention: {
          file: { items: 17, kept: 1, paraphrased: 0, lost: 0, confirmed: 0, unknown: 16 },
          user_prompt: { items: 2, kept: 1, paraphrased: 0, lost: 0, confirmed: 0, unknown: 1 },
        },
      }),
    );
    expect(line).toBe(
      `turn 5: 9,000 → 2,500 tokens, 7 spans replaced; the next call's readable text still names 1 of 17 files (16 not in the readable text), keeps 1 of 2 prompts word for word (1 unknown), ${ENCRYPTED_SUMMARY_WORDS}`,
    );
    expect(line).not.toMatch(/dropped|no summary|lost/);
  });

  it('a clear summary and a compaction with none read as before', () => {
    const file = { items: 3, kept: 1, paraphrased: 0, lost: 2, confirmed: 1 };
    expect(compactionLine(record({ retention: { file } }))).toBe(
      'turn 5: 9,000 → 2,500 tokens, 7 spans replaced; the next call still names 1 of 3 files (2 dropped, 1 of them read again)',
    );
    expect(compactionLine(record({ summary_span_ids: [], summary_text: '' }))).toBe('turn 5: 9,000 → 2,500 tokens, 7 spans replaced; no summary');
  });
});

describe('carriedNotFollowedWords (contract §8.4 repeated compactions)', () => {
  it('says how many earlier items the cap left unjudged, in the words report.md and the panel share', () => {
    expect(carriedNotFollowedWords(5)).toBe(
      '5 more items of earlier compactions were not judged again: the audit follows at most 1,000 from one compaction to the next.',
    );
    expect(carriedNotFollowedWords(1)).toBe(
      '1 more item of earlier compactions was not judged again: the audit follows at most 1,000 from one compaction to the next.',
    );
    expect(carriedNotFollowedWords(12_345)).toMatch(/^12,345 more items /);
  });

  it('says nothing when the cap left nothing out (the field is absent then)', () => {
    expect(carriedNotFollowedWords(undefined)).toBeNull();
    expect(carriedNotFollowedWords(0)).toBeNull();
  });
});
