// The runs of "word" code points in a text, found by one scan rather than a regular
// expression's match loop: the Unicode property classes are slow per character, and a match
// loop makes an object a match (a 5 MB summary held ~800,000 of them at once, issue 39).
// BM25's terms (contract §7) and the compaction audit's words both read a text this way, each
// with its own class.

/** A class of code points, e.g. `\p{L}\p{N}`: a table for ASCII, a memo for the rest. */
export interface WordClass {
  /** 1 for the ASCII code units in the class */
  readonly ascii: Uint8Array;
  readonly pattern: RegExp;
  /** non-ASCII code points seen so far: in the class or not (a text uses few distinct ones) */
  readonly seen: Map<number, boolean>;
}

/** The class of the code points `[members]` matches, as a regular expression's `u` class body. */
export function wordClass(members: string): WordClass {
  const one = new RegExp(`^[${members}]$`, 'u');
  return { ascii: new Uint8Array(128).map((_, c) => (one.test(String.fromCharCode(c)) ? 1 : 0)), pattern: one, seen: new Map() };
}

function inClass(cls: WordClass, cp: number): boolean {
  let word = cls.seen.get(cp);
  if (word === undefined) {
    word = cls.pattern.test(String.fromCodePoint(cp));
    if (cls.seen.size < 65_536) cls.seen.set(cp, word);
  }
  return word;
}

/**
 * Each maximal run of `cls` code points in `text`, in order, as [start, end) to `visit`: the
 * runs `text.matchAll(/[members]+/gu)` finds (a surrogate pair is one code point, in the class
 * or not as a whole, as the u flag reads it).
 */
export function eachWordRun(text: string, cls: WordClass, visit: (start: number, end: number) => void): void {
  const n = text.length;
  const ascii = cls.ascii;
  let start = -1;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    let width = 1;
    let word: boolean;
    if (c < 0x80) word = ascii[c] === 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      word = inClass(cls, text.codePointAt(i)!);
      width = 2;
    } else word = inClass(cls, c);
    if (word) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      visit(start, i);
      start = -1;
    }
    i += width - 1;
  }
  if (start >= 0) visit(start, n);
}
