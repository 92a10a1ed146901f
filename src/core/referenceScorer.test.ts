// contract §7 reference scorer: BM25 against the task, normalised per turn, deterministic.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { bm25, Bm25Buffer, bm25Prepared, BM25_B, BM25_K1, prepareQuery, TermDictionary, termCounts, terms } from './bm25.ts';
import { kendallTauB } from './rankAgreement.ts';
import { Bm25Scorer, type ScorableSpan } from './referenceScorer.ts';

const span = (span_id: string, text: string, extra: Partial<ScorableSpan> = {}): ScorableSpan => ({ span_id, text, ...extra });

describe('BM25', () => {
  it('splits text into lower-cased runs of letters and digits, in any script', () => {
    expect(terms('Fix the LOGIN test, v2 — naïve café 東京')).toEqual(['fix', 'the', 'login', 'test', 'v2', 'naïve', 'café', '東京']);
  });

  it('splits exactly as the regular expression of contract §7 does, on any text (astral letters, lone surrogates, case changes that lengthen)', () => {
    const regex = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    const texts = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: 'grapheme' }),
      fc.array(fc.constantFrom('a', 'Z', '9', ' ', 'İ', 'Σ', 'ß', '𝐀', '\ud800', '\udc00', '٣', '東', '-', '_', 'é', '\u0301')).map((c) => c.join('')),
    );
    fc.assert(
      fc.property(texts, (t) => {
        expect(terms(t)).toEqual(regex(t));
      }),
      { numRuns: 2000 },
    );
  });

  it('puts a query’s terms in the default string sort order (UTF-16 code units), whatever the numbering', () => {
    // the terms are ordered by a float key holding their first two code units: ties, prefixes,
    // astral and non-ASCII code units must still come out as Array.prototype.sort puts the strings
    const unit = fc.constantFrom('a', 'b', 'z', 'A', '0', '9', 'é', 'ß', 'İ', '東', '\ud835', '\udc00', '\uffff', '\u0001', '\u0000');
    const term = fc.array(unit, { minLength: 0, maxLength: 4 }).map((u) => u.join(''));
    fc.assert(
      fc.property(fc.array(term, { maxLength: 30 }), fc.array(term, { maxLength: 30 }), (warmup, doc) => {
        const dictionary = new TermDictionary();
        for (const t of warmup) dictionary.id(t);
        const { ids, counts } = dictionary.sum([dictionary.count(doc)]);
        const names = Array.from(ids, (id) => dictionary.term(id));
        expect(names).toEqual([...new Set(doc)].sort());
        expect(Array.from(counts)).toEqual(names.map((n) => doc.filter((t) => t === n).length));
      }),
      { numRuns: 1000 },
    );
    // a long run of terms sharing their first two code units
    const dictionary = new TermDictionary();
    const listing = Array.from({ length: 200 }, (_, i) => `x0${(i * 7919) % 1000}`);
    expect(Array.from(dictionary.sum([dictionary.count(listing)]).ids, (id) => dictionary.term(id))).toEqual([...new Set(listing)].sort());
  });

  it('scores a span by the query terms it holds, rarer terms weighing more, longer spans less', () => {
    const dictionary = new TermDictionary();
    const docs = ['login cookie race', 'login', 'unrelated words here', 'login login login cookie'].map((t) => termCounts(t, dictionary));
    const s = bm25(['login', 'cookie'], docs, dictionary);
    expect(s[2]).toBe(0);
    expect(s[0]).toBeGreaterThan(s[1]!); // holds the rarer term too
    expect(s[3]).toBeGreaterThan(s[0]!); // repeats saturate but still add
    expect(bm25([], docs, dictionary)).toEqual([0, 0, 0, 0]);
    expect(bm25(['x'], [], dictionary)).toEqual([]);
  });

  it('gives exactly the textbook formula, summed term by term in sorted order, whatever the numbering of terms', () => {
    // the textbook form, written plainly: the numbered, sorted-walk version must equal it to the last bit
    const plain = (query: string[], texts: string[]): number[] => {
      const docs = texts.map((t) => {
        const tf = new Map<string, number>();
        for (const w of terms(t)) tf.set(w, (tf.get(w) ?? 0) + 1);
        return { length: terms(t).length, tf };
      });
      const n = docs.length;
      const avgdl = docs.reduce((a, d) => a + d.length, 0) / n || 1;
      const qc = new Map<string, number>();
      for (const q of query) qc.set(q, (qc.get(q) ?? 0) + 1);
      const unique = [...qc.keys()].sort();
      return docs.map((d) => {
        let score = 0;
        for (const t of unique) {
          const f = d.tf.get(t);
          if (f === undefined) continue;
          const df = docs.filter((e) => e.tf.has(t)).length;
          const w = Math.log(1 + (n - df + 0.5) / (df + 0.5)) * qc.get(t)!;
          score += (w * (f * (BM25_K1 + 1))) / (f + BM25_K1 * (1 - BM25_B + (BM25_B * d.length) / avgdl));
        }
        return score;
      });
    };
    const word = fc.constantFrom('login', 'cookie', 'race', 'table', 'users', 'drop', 'schema', 'naïve', '東京', 'v2', 'x');
    const text = fc.array(word, { maxLength: 12 }).map((w) => w.join(' '));
    fc.assert(
      fc.property(fc.array(word, { maxLength: 6 }), fc.array(text, { maxLength: 8 }), fc.array(text, { maxLength: 8 }), (query, warmup, texts) => {
        // a dictionary that has already numbered other texts, in another order
        const dictionary = new TermDictionary();
        for (const t of warmup) termCounts(t, dictionary);
        const docs = texts.map((t) => termCounts(t, dictionary));
        expect(bm25(query, docs, dictionary)).toEqual(plain(query, texts));
      }),
    );
  });
  it('turn after turn, a buffer carrying df from the last turn gives exactly what scoring each turn afresh gives', () => {
    // documents come, stay, go and come back (in and out of the buffer's posting lists); a
    // query changes now and then; a document may even appear twice in one turn (a repeated
    // span, refused later by the engine)
    const word = fc.constantFrom('login', 'cookie', 'race', 'table', 'users', 'drop', 'x');
    const text = fc.array(word, { maxLength: 6 }).map((w) => w.join(' '));
    fc.assert(
      fc.property(
        fc.array(text, { minLength: 1, maxLength: 12 }),
        fc.array(fc.record({ docs: fc.array(fc.nat(11), { maxLength: 10 }), query: fc.nat(2) }), { minLength: 1, maxLength: 20 }),
        (texts, turns) => {
          const dictionary = new TermDictionary();
          const pool = texts.map((t) => termCounts(t, dictionary));
          const queries = [['login', 'cookie'], ['table', 'users', 'users'], ['x']].map((q) => prepareQuery(q, dictionary));
          const buffer = new Bm25Buffer(dictionary);
          for (const t of turns) {
            const docs = t.docs.filter((i) => i < pool.length).map((i) => pool[i]!);
            const query = queries[t.query]!;
            const carried = buffer.score(query, docs);
            expect(carried).toEqual(bm25Prepared(query, docs, dictionary));
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('Bm25Scorer', () => {
  it('scores in [0, 1], the best span of the turn at 1, and the task’s own span highest', () => {
    const scorer = new Bm25Scorer();
    const scores = scorer.scoreTurn([
      span('pin', 'Never drop the users table.', { pinned: true }),
      span('task', 'Migrate the users table to the new schema.', { role: 'user' }),
      span('noise', 'Weather report: sunny with clouds.'),
      span('tool', 'ALTER TABLE users ADD COLUMN schema_version int;', { role: 'tool' }),
    ]);
    expect(Math.max(...scores)).toBe(1);
    for (const x of scores) expect(x).toBeGreaterThanOrEqual(0);
    expect(scores[2]).toBe(0);
    expect(scores[1]).toBe(1);
  });

  it('remembers the latest user prompt after it leaves the buffer, and follows a newer one', () => {
    const scorer = new Bm25Scorer();
    scorer.scoreTurn([span('u1', 'rename the cookie helper', { role: 'user' }), span('x', 'cookie helper lives in auth.ts')]);
    const later = scorer.scoreTurn([span('x', 'cookie helper lives in auth.ts'), span('y', 'build is green')]);
    expect(later[0]).toBe(1);
    expect(later[1]).toBe(0);
    const newer = scorer.scoreTurn([span('y', 'build is green'), span('u2', 'is the build green?', { role: 'user' })]);
    expect(newer[0]).toBeGreaterThan(0);
  });

  it('is deterministic: a fresh scorer fed the same turns gives the same numbers (the Worker and the CLI agree)', () => {
    const turns = [
      [span('u', 'fix flaky login test', { role: 'user', pinned: true }), span('a', 'the login test races the cookie'), span('b', 'ok')],
      [span('u', 'fix flaky login test', { role: 'user', pinned: true }), span('a', 'the login test races the cookie'), span('c', 'await login() first')],
    ];
    const run = (): number[][] => {
      const s = new Bm25Scorer();
      return turns.map((t) => s.scoreTurn(t));
    };
    expect(run()).toEqual(run());
    // the memo of unchanged texts changes nothing: scoring turn 2 alone gives the same
    expect(new Bm25Scorer().scoreTurn(turns[1]!)).toEqual(run()[1]);
  });

  it('equals the contract’s rule written plainly, turn after turn: query = the latest user span’s text, then the pinned spans’ texts', () => {
    // the plain form: the query string put together and split every turn, BM25 from the textbook
    const plainScorer = (): ((spans: ScorableSpan[]) => number[]) => {
      let task = '';
      return (spans) => {
        for (let i = spans.length - 1; i >= 0; i--) {
          if (spans[i]!.role === 'user') {
            task = spans[i]!.text;
            break;
          }
        }
        let queryText = task;
        for (const s of spans) if (s.pinned === true) queryText += '\n' + s.text;
        const dictionary = new TermDictionary();
        const raw = bm25(
          terms(queryText),
          spans.map((s) => termCounts(s.text, dictionary)),
          dictionary,
        );
        const best = Math.max(0, ...raw);
        return raw.map((x) => (best > 0 ? Math.round((x / best) * 1e6) / 1e6 : 0));
      };
    };
    // Greek capital sigma lower-cases by its neighbours: parts joined by a line break must split alike
    const word = fc.constantFrom('login', 'Cookie', 'RACE', 'table', 'ΟΔΟΣ', 'Σ', 'naïve', '東京', 'v2', 'x', 'İ');
    const text = fc.array(word, { maxLength: 8 }).map((w) => w.join(' '));
    const oneSpan = fc.record({
      span_id: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
      text,
      role: fc.constantFrom(undefined, 'user', 'tool', 'assistant'),
      pinned: fc.constantFrom(undefined, true, false),
    });
    const turn = fc.uniqueArray(oneSpan, { selector: (s) => s.span_id, maxLength: 5 });
    fc.assert(
      fc.property(fc.array(turn, { minLength: 1, maxLength: 8 }), (turns) => {
        const fast = new Bm25Scorer();
        const plain = plainScorer();
        for (const t of turns) {
          const spans = t.map((s) => ({
            span_id: s.span_id,
            text: s.text,
            ...(s.role ? { role: s.role } : {}),
            ...(s.pinned !== undefined ? { pinned: s.pinned } : {}),
          }));
          expect(fast.scoreTurn(spans)).toEqual(plain(spans));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('gives every span 0 when nothing matches the task', () => {
    expect(new Bm25Scorer().scoreTurn([span('a', 'alpha'), span('b', 'beta')])).toEqual([0, 0]);
  });
});

describe('Kendall τ-b', () => {
  it('is 1 for the same order, −1 for the reverse, and counts ties', () => {
    expect(kendallTauB([1, 2, 3, 4], [10, 20, 30, 40])).toBe(1);
    expect(kendallTauB([1, 2, 3, 4], [4, 3, 2, 1])).toBe(-1);
    expect(kendallTauB([1, 2, 3, 4], [1, 3, 2, 4])).toBeCloseTo(4 / 6, 12);
    // one tie in b: C=5, D=0, pairs untied in a 6, in b 5 → 5 / √30
    expect(kendallTauB([1, 2, 3, 4], [1, 2, 2, 4])).toBeCloseTo(5 / Math.sqrt(30), 12);
  });

  it('is undefined for fewer than two items or a constant list', () => {
    expect(kendallTauB([1], [1])).toBeNull();
    expect(kendallTauB([0.5, 0.5, 0.5], [1, 2, 3])).toBeNull();
  });
});
