// The audit's longest patterns searched for on their own (issue 39, "Bounded amplification"):
// occurs() answers as String.prototype.includes does, and an audit of prompts past the cut
// judges them as one of short prompts does (contract §8.4), in work linear in the texts.
import { describe, expect, it } from 'vitest';
import { judgeItems } from './compactionAudit.ts';
import { occurs } from './textIndex.ts';

function seeded(seed: number): () => number {
  let x = seed;
  return () => (x = (x * 1103515245 + 12345) >>> 0) / 2 ** 32;
}

describe('occurs (Knuth–Morris–Pratt)', () => {
  it('answers as includes over texts of few letters, periodic patterns, ends and surrogates', () => {
    const next = seeded(3);
    const pick = (n: number, alphabet: string): string => Array.from({ length: n }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
    for (let round = 0; round < 3000; round++) {
      const text = pick(Math.floor(next() * 60), 'ab😀');
      const p =
        next() < 0.5 && text.length > 0
          ? text.slice(Math.floor(next() * text.length), Math.floor(next() * (text.length + 1)))
          : pick(1 + Math.floor(next() * 6), 'ab');
      expect(occurs(p, text, { steps: 0 }), `${p} in ${text}`).toBe(text.includes(p));
    }
    expect(occurs('', 'x', { steps: 0 })).toBe(true);
    expect(occurs('aab', 'aaaaaaaaab', { steps: 0 })).toBe(true);
    expect(occurs('abc', 'ab', { steps: 0 })).toBe(false);
  });

  it('counts work linear in the pattern and the text, even for the worst periodic case', () => {
    const counted = { steps: 0 };
    const n = 200_000;
    expect(occurs(`${'a'.repeat(n / 2)}b`, 'a'.repeat(n), counted)).toBe(false);
    expect(counted.steps).toBeLessThan(4 * (n + n / 2));
  });
});

describe('an audit of prompts past the length searched through the trie', () => {
  it('judges each as the short ones are judged: kept, paraphrased or lost', () => {
    const unit = 'keep the retry loop in src/net/client.ts and its socket open; ';
    const long = (k: number): string => `${k} ${unit.repeat(1200 + k)}`; // past 65,536 characters
    const summary = `Summary. ${long(1)} and then ${long(3).toUpperCase()}   done.`;
    const items = [
      { kind: 'user_prompt' as const, text: long(1) },
      { kind: 'user_prompt' as const, text: long(2) }, // not there word for word, its words are
      { kind: 'user_prompt' as const, text: long(3).replace(/ /g, '\n  ') }, // white space and case folded
      { kind: 'user_prompt' as const, text: `${long(4)} zebra quagga okapi `.repeat(2).replace(/keep|retry|loop|socket|open|client|net|src/g, 'x') },
      { kind: 'user_prompt' as const, text: long(5) },
      { kind: 'user_prompt' as const, text: long(6) },
      { kind: 'user_prompt' as const, text: 'keep the retry loop' },
      { kind: 'file' as const, text: '/repo/src/net/client.ts' },
    ];
    const { statuses, steps } = judgeItems(summary, items);
    expect(statuses).toEqual(['kept', 'paraphrased', 'kept', 'lost', 'paraphrased', 'paraphrased', 'kept', 'kept']);
    // four patterns on their own (each one pass), the rest through the trie: linear
    const units = summary.length + items.reduce((n, it) => n + it.text.length, 0);
    expect(steps).toBeLessThan(12 * units);
  });
});

describe('the restated-prompt watch with prompts past the length searched through the trie (contract §8.5)', () => {
  it('finds a long watched prompt restated word for word once, as a short one is found', async () => {
    const { RestateWatch } = await import('./restateWatch.ts');
    const { collapseWhitespace, wordsOf } = await import('./compactionAudit.ts');
    const rules = { fold: (t: string) => collapseWhitespace(t).toLowerCase(), wordsOf, coverage: 0.7, minWords: 3 };
    const unit = 'zq%d: wire the batching queue through the scheduler; ';
    const long = (k: number): string => Array.from({ length: 1300 }, (_, i) => unit.replace('%d', String(k * 10_000 + i))).join('');
    const prompts = [1, 2, 3, 4, 5, 6].map((k) => ({ key: `p${k}`, text: long(k) }));
    prompts.push({ key: 'short', text: 'rename the parser module' });
    const watch = new RestateWatch(prompts, rules);
    expect(watch.restatedBy('nothing of the kind')).toEqual([]);
    // white space and case folded; the longest four are searched on their own, p1 and p2 through the trie
    expect(watch.restatedBy(`again: ${long(6).toUpperCase()} and ${long(1).replace(/ /g, '\n')}`)).toEqual(['p1', 'p6']);
    expect(watch.restatedBy(`${long(6)} ${long(3)} Rename the parser module`)).toEqual(['p3', 'short']);
    expect(watch.restatedBy(long(2))).toEqual(['p2']);
    expect(watch.restatedBy(long(6))).toEqual([]);
  });
});
