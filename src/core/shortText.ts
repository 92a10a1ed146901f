// A text shortened for a place with little room (contract §8.8 labels, list rows, titles):
// white space collapsed, cut at a word when one ends past half the room, and "…" to say so.
// One rule for the adapters' labels and the page's rows, so a name reads alike everywhere.
export function firstWords(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}
