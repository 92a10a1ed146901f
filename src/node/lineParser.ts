// The CLI's path from a line's bytes to a parsed message. Measured on the bench transcript
// (106 KB lines, every one with some non-ASCII text): Buffer.toString('utf8') of a line
// costs ~290 µs, more than JSON.parse of it (~180 µs); the same bytes as latin1 (one char
// per byte) cost ~15 µs. JSON's structure is ASCII, so the latin1 string parses to the same
// value except that each string holding bytes ≥ 0x80 holds them one char per byte; those
// strings alone are then decoded as UTF-8. In practice they are span texts, and a text
// unchanged since the previous line (99.7% of them in the bench) reuses last line's
// decoding after one string comparison. Decode and parse: ~575 → ~210 µs per line.
//
// Exact, not approximate: the result equals JSON.parse of the UTF-8 decoding whenever this
// path is taken, and any line it cannot prove that for goes the ordinary way (returned as
// its UTF-8 text, which the engine parses itself).
import { Buffer, isAscii, isUtf8 } from 'node:buffer';
import { exceedsNesting } from '../core/nesting.ts';
import type { LineDecoder } from '../ingest/lines.ts';

/**
 * A line parsed here. Its JSON text held no \uD800–\uDFFF escape (only \u0000–\u007F ones
 * are let through), so none of its strings can be a lone surrogate.
 */
export interface ParsedLine {
  parsed: unknown;
}

/** A line's UTF-8 text, for the engine to parse, or the line already parsed. */
export type NodeLine = string | ParsedLine;

interface DecodedText {
  /** the text as parsed from the latin1 string: its UTF-8 bytes, one char per byte */
  bytes: string;
  text: string;
  /** chars of `bytes` ≥ 0x80 */
  high: number;
}

/** How far past the expected index a text is looked for in the previous line's: a prune shifts the rest by one or two. */
const LOOKAHEAD = 4;

export class NodeLineParser {
  /** the previous line's span texts, in order */
  private memo: DecodedText[] = [];

  readonly decode: LineDecoder<NodeLine> = (bytes, start, end) => {
    const view = bytes.subarray(start, end);
    const buf = Buffer.from(view.buffer, view.byteOffset, view.byteLength);
    // an ASCII line reads alike as latin1: a copy (docs/perf-log/notebook.md), and the engine parses it
    if (isAscii(view)) return buf.toString('latin1');
    if (!isUtf8(view)) throw new Error('not valid UTF-8');
    const latin1 = buf.toString('latin1');
    // An escape above \u007F would put a char into a string that is not one of its UTF-8
    // bytes, and a surrogate escape may be lone: such lines go the ordinary way.
    if (!onlyAsciiEscapes(latin1)) return buf.toString('utf8');
    let value: unknown;
    try {
      value = JSON.parse(latin1);
    } catch {
      return buf.toString('utf8'); // the engine words the error from the real text
    }
    // every byte ≥ 0x80 of the line is inside one string literal; as latin1 each is one char,
    // which UTF-8 encodes in two bytes
    const high = Buffer.byteLength(latin1, 'utf8') - latin1.length;
    if (this.decodeSpanTexts(value, high)) return { parsed: value };
    // decodeDeep recurses: a value past the nesting limit goes the ordinary way, and the
    // engine's validation makes it an input error naming the limit
    return exceedsNesting(value, 1) ? buf.toString('utf8') : { parsed: decodeDeep(value) };
  };

  /**
   * Decodes `spans[].text` in place and says whether that accounted for all `high` bytes
   * ≥ 0x80 of the line, in which case every other string of the value is ASCII. Each
   * literal of the line is at most one string of the value, so the count cannot overshoot.
   */
  private decodeSpanTexts(value: unknown, high: number): boolean {
    if (typeof value !== 'object' || value === null) return false;
    const spans = (value as { spans?: unknown }).spans;
    if (!Array.isArray(spans)) return false;
    const previous = this.memo;
    const memo: DecodedText[] = [];
    let accounted = 0;
    // The decoding is a function of the bytes alone, so last line's is reused for an equal
    // string, whichever span held it. Texts come in last line's order, minus the pruned:
    // looked for from just past the last one found (no map: a miss only costs a decoding).
    let cursor = 0;
    for (let i = 0; i < spans.length; i++) {
      const bytes = textOf(spans[i]);
      if (bytes === undefined) continue;
      let entry: DecodedText | undefined;
      for (let k = cursor, end = Math.min(previous.length, cursor + LOOKAHEAD); k < end; k++) {
        if (previous[k]!.bytes === bytes) {
          entry = previous[k];
          cursor = k + 1;
          break;
        }
      }
      if (entry === undefined) {
        const h = Buffer.byteLength(bytes, 'utf8') - bytes.length;
        entry = { bytes, text: h === 0 ? bytes : utf8Of(bytes), high: h };
      }
      accounted += entry.high;
      memo.push(entry);
    }
    this.memo = memo;
    if (accounted !== high) return false;
    for (let i = 0, k = 0; i < spans.length; i++) {
      if (textOf(spans[i]) === undefined) continue;
      // an unchanged text is last line's very string, decoded or not: every comparison of it
      // downstream (the scorer's memo, the engine's rewrite check) is then a pointer compare
      const entry = memo[k++]!;
      (spans[i] as { text: string }).text = entry.text;
    }
    return true;
  }
}

function textOf(span: unknown): string | undefined {
  if (typeof span !== 'object' || span === null) return undefined;
  const text = (span as { text?: unknown }).text;
  return typeof text === 'string' ? text : undefined;
}

/** No \u escape in the JSON text but \u0000–\u007F. Conservative: `\\u00e9` (an escaped backslash) also answers false. */
export function onlyAsciiEscapes(json: string): boolean {
  for (let i = json.indexOf('\\u'); i !== -1; i = json.indexOf('\\u', i + 2)) {
    const c = json.charCodeAt(i + 4);
    if (json.charCodeAt(i + 2) !== 0x30 || json.charCodeAt(i + 3) !== 0x30 || !(c >= 0x30 && c <= 0x37)) return false;
  }
  return true;
}

function utf8Of(bytes: string): string {
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

function hasHighBytes(s: string): boolean {
  return Buffer.byteLength(s, 'utf8') !== s.length;
}

/** Every string and key of a value parsed from latin1, decoded: the rare line with non-ASCII outside span texts. */
function decodeDeep(v: unknown): unknown {
  if (typeof v === 'string') return hasHighBytes(v) ? utf8Of(v) : v;
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = decodeDeep(v[i]);
    return v;
  }
  const o = v as Record<string, unknown>;
  let renamed = false;
  for (const key of Object.keys(o)) {
    const before = o[key];
    const after = decodeDeep(before);
    if (after !== before) o[key] = after;
    if (hasHighBytes(key)) renamed = true;
  }
  if (!renamed) return o;
  // fromEntries defines own properties in order, as JSON.parse does
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [hasHighBytes(k) ? utf8Of(k) : k, x]));
}
