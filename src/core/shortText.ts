// A text shortened for a place with little room (contract §8.8 labels, list rows, titles):
// white space collapsed, cut at a word when one ends past half the room, and "…" to say so.
// One rule for the adapters' labels and the page's rows, so a name reads alike everywhere.

/** JavaScript's `\s` (WhiteSpace and LineTerminator): 1 at each code unit below U+3001 that is one */
const WHITE_SPACE = new Uint8Array(0x3001);
for (const c of [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000]) WHITE_SPACE[c] = 1;
for (let c = 0x2000; c <= 0x200a; c++) WHITE_SPACE[c] = 1;

/** whether code unit `c` is matched by `\s` */
export const isWhiteSpace = (c: number): boolean => (c <= 0x3000 ? WHITE_SPACE[c] === 1 : c === 0xfeff);

/** Characters of the result joined at a time, so the pieces held stay few. */
const PIECE = 1 << 12;

/**
 * `text.replace(/\s+/g, ' ').trim()`, the same string, made by one scan: over a text of
 * megabytes that replace took about 13 bytes a character of the text (678 MiB of heap for a
 * 50 MB summary, issue 39 "Bounded amplification"), and as much when made in pieces of any
 * size; this scan holds the result and pieces of about PIECE characters. A stretch whose
 * white space is already single spaces needs no change: it is taken as one slice, not a
 * slice a word (the adapters label every new text block, and prose is mostly such stretches).
 */
export function collapseWhitespace(text: string): string {
  const n = text.length;
  const whole: string[] = [];
  const piece: string[] = [];
  let held = 0;
  /** where the stretch not yet taken starts */
  let from = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (!isWhiteSpace(c)) continue;
    let j = i + 1;
    while (j < n && isWhiteSpace(text.charCodeAt(j))) j++;
    if (c !== 0x20 || j > i + 1) {
      // a run that becomes one space: the stretch before it, then the space
      piece.push(text.slice(from, i), ' ');
      held += i - from + 1;
      from = j;
      if (held >= PIECE) {
        whole.push(piece.join(''));
        piece.length = 0;
        held = 0;
      }
    }
    i = j - 1;
  }
  piece.push(text.slice(from));
  whole.push(piece.join(''));
  return whole.join('').trim();
}

export function firstWords(text: string, max: number): string {
  const flat = collapsedStart(text, max);
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}

/**
 * collapseWhitespace(text) when it is at most `max` characters long; else a longer start of it,
 * whose first `max` characters are its first `max`: the collapsed form of the shortest start of
 * `text` tried that is longer than `max` (a label of a 5 MB summary collapsed the 5 MB for 60
 * characters). The collapsed form of a start of a text is a start of the text's collapsed form.
 */
export function collapsedStart(text: string, max: number): string {
  for (let n = Math.max(4 * max, 256); n < text.length; n *= 4) {
    const flat = collapseWhitespace(text.slice(0, n));
    if (flat.length > max) return flat;
  }
  return collapseWhitespace(text);
}
