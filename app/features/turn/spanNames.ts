// contract §8.8 how a span is named where room is short: its label (or id) cut at a word to
// a length that fits the panel's narrowest column, the whole name kept for the tooltip.
import { firstWords } from '../../../src/core/shortText.ts';

/** Characters of a span's name shown in a list row (the turn panel at 1024 px holds about this many). */
export const SHORT_NAME = 44;

export function shortLabel(name: string, max = SHORT_NAME): string {
  return firstWords(name, max);
}
