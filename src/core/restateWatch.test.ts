// restateWatch.ts: the indexed watch finds exactly the prompts the rule of contract §8.5,
// asked of every watched prompt in turn, finds.
import { describe, expect, it } from 'vitest';
import { collapseWhitespace, coverage, wordsOf } from './compactionAudit.ts';
import { RestateWatch, type RestateRules } from './restateWatch.ts';

const RULES: RestateRules = { fold: (t) => collapseWhitespace(t).toLowerCase(), wordsOf, coverage: 0.7, minWords: 3 };

/** the rule asked of every watched prompt, as the auditor did before the index */
function naive(prompts: { key: string; text: string }[]): (text: string) => string[] {
  const alive = new Set(prompts.map((p) => p.key));
  return (text) => {
    const folded = RULES.fold(text);
    const words = wordsOf(text);
    const out: string[] = [];
    for (const p of prompts) {
      if (!alive.has(p.key)) continue;
      const original = RULES.fold(p.text);
      if (original === '') continue;
      const own = wordsOf(p.text);
      if (folded.includes(original) || (own.size >= 3 && coverage(own, words) >= 0.7)) {
        alive.delete(p.key);
        out.push(p.key);
      }
    }
    return out;
  };
}

describe('RestateWatch', () => {
  it('the same prompt again, most of its words again, each watched prompt once', () => {
    const w = new RestateWatch(
      [
        { key: 'a', text: 'fix it' },
        { key: 'b', text: 'Use  Postgres not SQLite for the store' },
        { key: 'c', text: 'fix it' },
        { key: 'd', text: '  ' },
      ],
      RULES,
    );
    expect(w.restatedBy('please fix the thing')).toEqual([]);
    expect(w.restatedBy('so: use postgres, sqlite is out, store')).toEqual(['b']);
    expect(w.restatedBy('ok, FIX IT now')).toEqual(['a', 'c']);
    expect(w.restatedBy('fix it; use postgres not sqlite for the store')).toEqual([]);
  });

  it('agrees with the rule asked of every prompt, on random prompts of a small vocabulary', () => {
    let seed = 5;
    const rnd = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const vocab = ['alpha', 'beta', 'gamma', 'delta', 'eps', 'zeta', 'the', 'an', 'Alpha'];
    const prompt = (): string => Array.from({ length: rnd(7) }, () => vocab[rnd(vocab.length)]).join(rnd(2) === 0 ? ' ' : ',  ');
    for (let round = 0; round < 300; round++) {
      const prompts = Array.from({ length: 1 + rnd(8) }, (_, i) => ({ key: `k${i}`, text: prompt() }));
      const watch = new RestateWatch(prompts, RULES);
      const model = naive(prompts);
      for (let t = 0; t < 6; t++) {
        const text = prompt();
        expect(watch.restatedBy(text), `${JSON.stringify(prompts)} / ${text}`).toEqual(model(text));
      }
    }
  });
});
