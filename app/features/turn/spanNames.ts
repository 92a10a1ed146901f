// contract §8.8 how a span is named where room is short: its label (or id) cut at a word to
// a length that fits the panel's narrowest column, the whole name kept for the tooltip.

/** Characters of a span's name shown in a list row (the turn panel at 1024 px holds about this many). */
export const SHORT_NAME = 44;

export function shortLabel(name: string, max = SHORT_NAME): string {
  const flat = name.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}
