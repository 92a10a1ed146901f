// How much of an input text a report carries (issue 39, "Bounded amplification"): a report of a
// compaction whose summary is 50 MB, or whose prompt is 10 MB, must not copy those texts into
// the report's data, across to the drawing thread, into the HTML's embedded JSON and into the
// Markdown. Each text is cut at a cap far above what a report of a normal session quotes, and
// the characters cut are counted beside it, so a report says how much it left out. A text no
// longer than its cap is carried as it is: the reports of normal sessions are the same bytes.
import type { CompactionRecord, RecordItem } from '../core/compactions.ts';
import { groupedDigits } from '../core/digits.ts';

type CarriedItem = CompactionRecord['carried'][number];

/** The longest summary text a report quotes (characters, UTF-16 code units); the rest is counted. */
export const QUOTE_MAX = 64 * 1024;

/**
 * The longest item or span text a report carries. Its tables show a text shortened to 160
 * characters (markdown.ts SHORT_TEXT), so 4,096 keeps every shortened cell the same unless
 * the first 4,096 characters are almost all white space.
 */
export const TEXT_MAX = 4096;

/** A text cut to `max` characters, and how many it lost (0: the text as it was). */
export function capText(text: string, max: number): { text: string; leftOut: number } {
  if (text.length <= max) return { text, leftOut: 0 };
  // a surrogate pair is not split: a lone half would print as U+FFFD
  const end = isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max;
  return { text: text.slice(0, end), leftOut: text.length - end };
}

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;

/** The words a report puts after a text it cut: "… (1,234 more characters not shown)". */
export function leftOutWords(leftOut: number): string {
  return `… (${groupedDigits(leftOut)} more character${leftOut === 1 ? '' : 's'} not shown)`;
}

/** An audited item as a report carries it: `text_left_out` only where its text was cut. */
export type ReportRecordItem = RecordItem & { text_left_out?: number };
export type ReportCarriedItem = CarriedItem & { text_left_out?: number };

/** A compaction record as a report carries it (contract §8.3): its texts capped, each cut counted. */
export interface ReportCompaction extends CompactionRecord {
  items: ReportRecordItem[];
  carried: ReportCarriedItem[];
  /** characters of `summary_text` past QUOTE_MAX, left out of the report; absent when none */
  summary_left_out?: number;
}

function capItem<T extends { text: string }>(item: T): T & { text_left_out?: number } {
  const { text, leftOut } = capText(item.text, TEXT_MAX);
  return leftOut === 0 ? item : { ...item, text, text_left_out: leftOut };
}

/** `r` with its summary cut at QUOTE_MAX and each item's text at TEXT_MAX; `r` itself when nothing is that long. */
export function capCompaction(r: CompactionRecord): ReportCompaction {
  const summary = capText(r.summary_text, QUOTE_MAX);
  const items = r.items.some((it) => it.text.length > TEXT_MAX) ? r.items.map(capItem) : r.items;
  const carried = r.carried.some((it) => it.text.length > TEXT_MAX) ? r.carried.map(capItem) : r.carried;
  if (summary.leftOut === 0 && items === r.items && carried === r.carried) return r;
  return { ...r, summary_text: summary.text, ...(summary.leftOut === 0 ? {} : { summary_left_out: summary.leftOut }), items, carried };
}
