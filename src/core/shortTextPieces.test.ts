// collapseWhitespace and firstWords made a piece at a time (issue 39, "Bounded amplification")
// give the strings the one-call forms gave, on texts of every shape around the piece size.
import { describe, expect, it } from 'vitest';
import { collapsedStart, collapseWhitespace, firstWords, isWhiteSpace } from './shortText.ts';

const naiveCollapse = (text: string): string => text.replace(/\s+/g, ' ').trim();
function naiveFirstWords(text: string, max: number): string {
  const flat = naiveCollapse(text);
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}

/** a seeded text of words and runs of every kind of white space */
function text(seed: number, length: number, whiteShare: number): string {
  let x = seed;
  const next = (): number => (x = (x * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const white = [' ', '\t', '\n', '\r\n', '\u00a0', '\u2028', '\u3000', '\ufeff', '   '];
  const parts: string[] = [];
  let n = 0;
  while (n < length) {
    const p =
      next() < whiteShare ? white[Math.floor(next() * white.length)]!.repeat(1 + Math.floor(next() * 40)) : 'wörd😀x'.slice(0, 1 + Math.floor(next() * 7));
    parts.push(p);
    n += p.length;
  }
  return parts.join('');
}

describe('white space collapsed a piece at a time', () => {
  it('takes as white space exactly the code units \\s matches', () => {
    for (let c = 0; c <= 0xffff; c++) expect(isWhiteSpace(c), c.toString(16)).toBe(/\s/.test(String.fromCharCode(c)));
  });

  it('is the one-call replace, at and around the piece size and across runs of white space', () => {
    const sizes = [0, 1, 100, 65_535, 65_536, 65_537, 200_000];
    for (const size of sizes)
      for (const share of [0, 0.3, 0.9, 1]) {
        const t = text(size + Math.round(share * 10), size, share);
        expect(collapseWhitespace(t)).toBe(naiveCollapse(t));
      }
    const run = `a${' '.repeat(70_000)}b${'\n'.repeat(140_000)}`;
    expect(collapseWhitespace(run)).toBe('a b');
    expect(collapseWhitespace(' '.repeat(300_000))).toBe('');
  });

  it('firstWords reads only the start it needs, and says what the whole text would', () => {
    for (const size of [10, 300, 5_000, 70_000, 400_000])
      for (const share of [0, 0.5, 0.95])
        for (const max of [1, 20, 60, 300]) {
          const t = text(size * 7 + max, size, share);
          expect(firstWords(t, max)).toBe(naiveFirstWords(t, max));
          expect(collapsedStart(t, max).slice(0, max)).toBe(naiveCollapse(t).slice(0, max));
        }
    // white space first: the start tried grows until its words are past the room
    const late = `${' '.repeat(100_000)}${'word '.repeat(50)}`;
    expect(firstWords(late, 60)).toBe(naiveFirstWords(late, 60));
  });
});

describe("the audit's words found by one scan (contract §8.4)", () => {
  it('are the words the match loop found, in any script, surrogate pairs and lone halves included', async () => {
    const { wordsOf } = await import('./compactionAudit.ts');
    // the match loop as it was, its stop words copied from compactionAudit.ts
    const stop = new Set(
      'the and for you are but not with this that from have has was were all can its our your please also into then than them they what when which will would should could just'.split(
        ' ',
      ),
    );
    // and contract §8.4's Chinese and Japanese: a run of their characters gives its overlapping pairs
    const cjk = /([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]+)/;
    const naive = (t: string): Set<string> => {
      const out = new Set<string>();
      for (const m of t.toLowerCase().matchAll(/[\p{L}\p{N}_]+/gu)) {
        m[0].split(cjk).forEach((part, i) => {
          if (i % 2 === 1) for (let k = 0; k + 2 <= part.length; k++) out.add(part.slice(k, k + 2));
          else if (part.length >= 3 && !stop.has(part)) out.add(part);
        });
      }
      return out;
    };
    let x = 11;
    const next = (): number => (x = (x * 1103515245 + 12345) >>> 0) / 2 ** 32;
    const alphabet = [
      'a',
      'Z',
      '_',
      '7',
      ' ',
      '-',
      'É',
      'ß',
      'İ',
      'й',
      '中',
      '٣',
      '😀',
      '𝐀',
      '\ud800',
      '\udc00',
      '\u0301',
      'The',
      'and',
      'x',
      'please',
      'ab',
      '缓',
      '存',
      'の',
      'キ',
    ];
    for (let round = 0; round < 2000; round++) {
      const t = Array.from({ length: Math.floor(next() * 40) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
      expect([...wordsOf(t)].sort(), JSON.stringify(t)).toEqual([...naive(t)].sort());
    }
  });
});
