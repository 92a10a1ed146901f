// A text shortened for a place with little room (contract §8.8 labels, list rows, titles):
// white space collapsed, cut at a word when one ends past half the room, and "…" to say so.
// One rule for the adapters' labels and the page's rows, so a name reads alike everywhere.

/** Characters collapsed at a time (collapseWhitespace): a huge text is never replaced in one call. */
const RUN_PIECE = 1 << 16;

const WHITE = /\s/;

/**
 * `text.replace(/\s+/g, ' ').trim()`, the same string, made a piece at a time: one replace over
 * a text of megabytes held every part of its result at once (about 17 bytes a character of the
 * text, issue 39 "Bounded amplification"). A piece is cut only after a character that is not
 * white space, so no run of white space is split between two pieces.
 */
export function collapseWhitespace(text: string): string {
  if (text.length <= RUN_PIECE) return text.replace(/\s+/g, ' ').trim();
  const parts: string[] = [];
  for (let at = 0; at < text.length;) {
    let end = Math.min(text.length, at + RUN_PIECE);
    while (end < text.length && WHITE.test(text[end - 1]!)) end++;
    parts.push(text.slice(at, end).replace(/\s+/g, ' '));
    at = end;
  }
  return parts.join('').trim();
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
