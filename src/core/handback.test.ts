// docs/hooks.md budget rules: the hand-back stays within the budget by contract §2.3's
// estimate, takes items in order (prompts newest first, todos, files edited first), never
// cuts a quote, and counts what it leaves out.
import { describe, expect, it } from 'vitest';
import type { AuditItem } from './compactionAudit.ts';
import { composeHandback, quotePrompt, type HandbackInput } from './handback.ts';
import { estimateTokens } from './spanScan.ts';

const prompt = (text: string, turn: number): AuditItem => ({ kind: 'user_prompt', text, status: 'lost', from_turn: turn, span_id: `u${turn}#0` });

const input = (over: Partial<HandbackInput> = {}): HandbackInput => ({
  prompts: [prompt('first prompt of the stretch', 1), prompt('the newest prompt\nover two lines', 9), prompt('a middle one', 5)],
  todos: ['write the test'],
  files: [
    { path: '/r/a.ts', edited: false },
    { path: '/r/b.ts', edited: true },
  ],
  auditLine: 'Full audit: context-health report t.jsonl --compaction 2.',
  budget: 2000,
  ...over,
});

describe('composeHandback', () => {
  it('puts prompts newest first, then todos, then files edited first, then the audit line', () => {
    const h = composeHandback(input());
    const at = (s: string): number => h.text.indexOf(s);
    expect(at('> the newest prompt\n> over two lines')).toBeLessThan(at('> a middle one'));
    expect(at('> a middle one')).toBeLessThan(at('> first prompt'));
    expect(at('> first prompt')).toBeLessThan(at('- write the test'));
    expect(at('- write the test')).toBeLessThan(at('- /r/b.ts (edited)'));
    expect(at('- /r/b.ts (edited)')).toBeLessThan(at('- /r/a.ts (read)'));
    expect(h.text.endsWith('Full audit: context-health report t.jsonl --compaction 2.')).toBe(true);
    expect(h.prompts).toEqual({ given: 3, left: 0 });
    expect(h.tokens).toBe(estimateTokens(h.text));
  });

  it('stays within every budget, leaves items out whole and counts them', () => {
    const long = 'word '.repeat(400).trim();
    const many = input({ prompts: [prompt(long, 3), ...Array.from({ length: 30 }, (_, i) => prompt(`prompt number ${i} about the cache`, 10 + i))] });
    let lastGiven = Infinity;
    for (const budget of [2000, 600, 300, 150, 90, 60]) {
      const h = composeHandback({ ...many, budget });
      expect(h.tokens, String(budget)).toBeLessThanOrEqual(budget);
      if (h.text === '') continue;
      // every prompt is there whole or not at all
      for (const p of many.prompts) {
        const q = quotePrompt(p.text);
        if (h.text.includes(q.slice(0, 30))) expect(h.text).toContain(q);
      }
      expect(h.prompts.given + h.prompts.left).toBe(31);
      if (h.prompts.left > 0) expect(h.text).toMatch(new RegExp(`\\(and ${h.prompts.left} (more )?prompts? left out for the token budget\\)`));
      expect(h.prompts.given).toBeLessThanOrEqual(lastGiven);
      lastGiven = h.prompts.given;
    }
    // the 400-word prompt does not fit 300 tokens, but the short ones after it do
    const mid = composeHandback({ ...many, budget: 300 });
    expect(mid.text).not.toContain(long.slice(0, 50));
    expect(mid.prompts.given).toBeGreaterThan(0);
  });

  it('hands back nothing when not even its frame fits, and says so when nothing was lost', () => {
    expect(composeHandback(input({ budget: 5 })).text).toBe('');
    const none = composeHandback(input({ prompts: [], todos: [], files: [] }));
    expect(none.text).toMatch(/holds every prompt/);
    expect(none.text).toContain('--compaction 2');
  });
});
