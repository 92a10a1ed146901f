// What the snapshot scanner (snapshotScan.ts) keeps of a line as it reads it: the spans'
// columns in the table's representation, which the table takes as they are, and where each
// span's raw text stands, which the next line's spans are compared with.
import type { SpanColumns, SpanTable } from '../core/spanTable.ts';

/**
 * The previous line's spans as raw text, beside its table: the line's chars, and per span
 * where its '{', its score's value (start and end) and its '}' stand, its keys, and its
 * glue (the text from its score's end to the next span's score: '' until cut, by this line's
 * comparison that found it or when the next line first needs it).
 */
export interface RawSpans {
  table: SpanTable;
  chars: string;
  open: number[];
  scoreAt: number[];
  scoreEnd: number[];
  close: number[];
  glue: string[];
  keys: (readonly string[])[];
}

/** Span j's raw text from its '{' to its score's value. */
export function headOf(raw: RawSpans, j: number): string {
  return raw.chars.slice(raw.open[j]!, raw.scoreAt[j]!);
}

/** Span j's raw text from its score's value to its '}' (included). */
export function tailOf(raw: RawSpans, j: number): string {
  return raw.chars.slice(raw.scoreEnd[j]!, raw.close[j]! + 1);
}

/** Span j's glue: its raw text from its score's value to span j + 1's score (j + 1 exists). */
export function glueOf(raw: RawSpans, j: number): string {
  const glue = raw.glue[j]!;
  return glue !== '' ? glue : (raw.glue[j] = raw.chars.slice(raw.scoreEnd[j]!, raw.scoreAt[j + 1]!));
}

/**
 * The line's spans as read, column by column, in the table's representation (spanTable.ts:
 * a null score, an absent count NaN, pinned −1/0/1): the table takes these very arrays. A
 * column of numbers only never changes its kind of elements mid-run (a null among doubles
 * did, and deoptimised every function that read the column).
 */
export class Columns implements SpanColumns {
  readonly prevIndex: number[] = [];
  readonly ids: string[] = [];
  readonly texts: string[] = [];
  readonly scores: number[] = [];
  readonly claims: (string | null)[] = [];
  readonly tokens: number[] = [];
  readonly rewrites: number[] = [];
  readonly parents: (string[] | undefined)[] = [];
  readonly pinned: number[] = [];
  readonly roles: (string | undefined)[] = [];
  readonly keys: (readonly string[])[] = [];
  // where each span's '{', score's value and '}' stand, and its glue (RawSpans)
  readonly open: number[] = [];
  readonly scoreAt: number[] = [];
  readonly scoreEnd: number[] = [];
  readonly close: number[] = [];
  readonly glue: string[] = [];
}

/** The spans array as read: where it ends, the table, each span's keys and the raw text kept for the next line. */
export interface Body {
  end: number;
  table: SpanTable;
  keys: (readonly string[])[];
  raw: RawSpans;
}
