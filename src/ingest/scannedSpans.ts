// What the snapshot scanner (snapshotScan.ts) keeps of a line as it reads it: the spans'
// columns in the table's representation, which the table takes as they are, and where each
// span's bytes stand, which the next line's spans are compared with.
import type { SpanColumns, SpanTable } from '../core/spanTable.ts';

/**
 * The previous line's spans beside its table: the copy of the line, and per span where its
 * '{', its score's value (start and end) and its '}' stand, and its keys.
 */
export interface RawSpans {
  table: SpanTable;
  copy: LineCopy;
  open: number[];
  scoreAt: number[];
  scoreEnd: number[];
  close: number[];
  keys: (readonly string[])[];
}

/**
 * Bytes a[i, i + n) equal bytes b[j, j + n), both in bounds; `b` is the previous line's copy.
 * Eight at a time, as doubles (~120 ns for 500 bytes in Node 20, ~50 in Chromium; 32-bit
 * words took ~175 and ~100, and bytes one by one more): two doubles are === only when their
 * bits are, but for NaN (never equal: the span is then read field by field, which is only
 * slower) and 0 === -0, whose bytes differ in one and are zero in the seven others, and no
 * line the scanner has read holds a zero byte (JSON has none outside a string, and refuses an
 * unescaped one inside).
 */
export function sameBytes(a: DataView, i: number, b: DataView, j: number, n: number): boolean {
  let k = 0;
  for (; k + 8 <= n; k += 8) if (a.getFloat64(i + k, true) !== b.getFloat64(j + k, true)) return false;
  for (; k < n; k++) if (a.getUint8(i + k) !== b.getUint8(j + k)) return false;
  return true;
}

/** A buffer a line is copied into (the caller's may be used again before the next line compares with it). */
const INITIAL_BYTES = 1 << 16;
const SHRINK_ABOVE = 4 << 20;

export class LineCopy {
  bytes = new Uint8Array(INITIAL_BYTES);
  view = new DataView(this.bytes.buffer);

  /**
   * Room for a line of `length` bytes and the 0 after it. A copy grown for one long line (up
   * to --max-line-bytes) is let go again once lines are back to an eighth of it.
   */
  hold(length: number): void {
    const capacity = this.bytes.length;
    if (length < capacity && !(capacity > SHRINK_ABOVE && length < capacity / 8)) return;
    let size = INITIAL_BYTES;
    while (size <= length) size *= 2;
    this.bytes = new Uint8Array(size);
    this.view = new DataView(this.bytes.buffer);
  }
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
  // where each span's '{', score's value and '}' stand (RawSpans)
  readonly open: number[] = [];
  readonly scoreAt: number[] = [];
  readonly scoreEnd: number[] = [];
  readonly close: number[] = [];
}

/** The spans array as read: where it ends, the table, each span's keys and the raw text kept for the next line. */
export interface Body {
  end: number;
  table: SpanTable;
  keys: (readonly string[])[];
  raw: RawSpans;
}
