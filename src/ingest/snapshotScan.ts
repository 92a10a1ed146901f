// A snapshot line read straight into its span table, without JSON.parse making its span
// objects: the parsing threads' fast reader (lineRecords.ts). JSON.parse's cost is the
// objects it makes, ~200 spans of ~7 keys a line in the bench transcript; what a record needs
// is the table's columns, and a span mostly repeats the previous line's span of its id but
// for its score (the id, text, text_sha256 and role stay; the score is re-ranked each turn).
// So the line is scanned as bytes (JSON's structure is ASCII, and UTF-8 puts no ASCII byte
// inside a character), and each span is first tried as the previous line's span in order: its
// bytes up to the score's value, a number, and the bytes from there to the next span's score
// (its "glue": the rest of this span, the comma, the next span's head), one comparison of
// bytes a span. A span that is not a repeat is read field by field, and only its strings are
// decoded: the line as a whole is never made a string (in a browser, decoding every line's
// UTF-8 was a third of a dropped file's time, and in Node its latin1 string was most of
// check's garbage).
// Numbers are read digit by digit (exact: see `number`).
//
// Exact, not approximate: a table is returned only for a line whose value is provably the
// one JSON.parse gives and that validateFast accepts, and it is the table validateFast
// would fill, with each span's keys in their order. Anything else (an unknown or repeated
// key, an escape in a key, a lone surrogate where validation refuses one, a compact
// snapshot's span without text, a value of the wrong type, a malformed line) answers null and the line goes the
// ordinary way, which words any error. test/cli/snapshotScan.test.ts holds the two ways to
// the same records over every fixture and a fuzzed corpus.
import { knownSpanObjectHash } from '../core/equality.ts';
import { SpanTable } from '../core/spanTable.ts';
import { Columns, LineCopy, sameBytes, type Body, type RawSpans } from './scannedSpans.ts';
import { fastSnapshotHead } from '../core/validate.ts';

/** A line for the scanner: its bytes, and how its side decodes UTF-8. */
export interface ScanView {
  /** the line is bytes [start, end) (the scanner copies it: the caller's buffer may be used again) */
  bytes: Uint8Array;
  start: number;
  end: number;
  /**
   * The text of bytes [a, b) of `at` (the scanner's copy of the line), UTF-8 decoded as the
   * side's ordinary path decodes it: called only for the strings that have changed. The
   * dashboard's decoder is strict (it throws on bad bytes, and the line goes the ordinary
   * way, which words the error); Node's side has checked the whole line before.
   */
  utf8(at: Uint8Array, a: number, b: number): string;
}

/** The wire format's span fields (contract §2), in the order of the bit each holds. */
const FIELDS = ['span_id', 'text', 'score', 'text_sha256', 'tokens', 'rewrite_count', 'derived_from', 'pinned', 'role'] as const;
const ID = 0;
const TEXT = 1;
const SCORE = 2;
const CLAIM = 3;
const TOKENS = 4;
const REWRITES = 5;
const PARENTS = 6;
const PINNED = 7;
const ROLE = 8;
/** span_id, text, score and text_sha256 are required (contract §2; a null is a value) */
const REQUIRED = (1 << ID) | (1 << TEXT) | (1 << SCORE) | (1 << CLAIM);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** a char JSON does not allow unescaped in a string */
const CONTROL = /[\u0000-\u001f]/;
/** 10^k, exact as doubles for k ≤ 22 */
const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

/** What the scanner read of a line: its own fields as JSON (spans held as 0) and the table. */
export interface ScannedSnapshot {
  /** the message's own fields, parsed, `spans` set to 0 in its place */
  top: Record<string, unknown>;
  table: SpanTable;
  /** per span, its keys in their order (one array per order met, shared) */
  keys: (readonly string[])[];
}

/** repeat's answer for a span that is not one: it is read field by field. */
const NOT_A_REPEAT = 0;

/** Thrown where the line is not one the scanner can read (the ordinary way then reads it). */
const DECLINE = new Error('not a line for the scanner');

/** One per parsing thread: it remembers the previous line's bytes. */
export class SnapshotScanner {
  private raw: RawSpans | null = null;
  private readonly orders = new Map<number, readonly string[]>();
  /** two copies of lines, in turn: the one the previous line is in (raw's) and the one the line is copied to */
  private readonly copies: LineCopy[] = [new LineCopy(), new LineCopy()];
  // the line being read: its copy (with a 0 after its last byte, which ends every token), its length
  private b: Uint8Array = new Uint8Array(1);
  private dv: DataView = new DataView(this.b.buffer);
  private len = 0;
  private view: ScanView | null = null;

  /** Forget the previous line (the next has nothing to compare with). */
  reset(): void {
    this.raw = null;
  }

  /**
   * The line's snapshot, or null. `prev`: the table of the previous line as the record
   * encoder holds it (its raw strings are used only when they belong to that very table).
   */
  scan(view: ScanView, prev: SpanTable | null): ScannedSnapshot | null {
    const raw = this.raw !== null && this.raw.table === prev ? this.raw : null;
    this.raw = null;
    // into the copy the previous line is not in
    const copy = raw !== null && raw.copy === this.copies[0] ? this.copies[1]! : this.copies[0]!;
    const len = view.end - view.start;
    copy.hold(len);
    copy.bytes.set(view.bytes.subarray(view.start, view.end));
    copy.bytes[len] = 0;
    this.b = copy.bytes;
    this.dv = copy.view;
    this.len = len;
    this.view = view;
    try {
      return this.line(prev, raw, copy);
    } catch {
      // a decline, JSON.parse refusing, or a side's strict UTF-8 decoder refusing bytes
      // (scanView.ts): the ordinary way reads the line and words any error
      return null;
    } finally {
      this.view = null;
    }
  }

  /** The text of bytes [a, b) of the line, as its side decodes it. */
  private utf8(a: number, b: number): string {
    return this.view!.utf8(this.b, a, b);
  }

  private line(prev: SpanTable | null, raw: RawSpans | null, copy: LineCopy): ScannedSnapshot | null {
    const s = this.b;
    let p = this.ws(0);
    if (s[p] !== 0x7b) return null; // '{'
    p = this.ws(p + 1);
    let keys = 0;
    let spansAt = -1;
    let spansEnd = -1;
    let body: Body | null = null;
    for (;;) {
      if (s[p] !== QUOTE) return null;
      const q = this.stringEnd(p);
      keys++;
      const isSpans = q - p === 6 && this.literal(p + 1, 'spans');
      p = this.ws(q + 1);
      if (s[p] !== 0x3a) return null; // ':'
      p = this.ws(p + 1);
      if (isSpans) {
        if (body !== null) return null;
        spansAt = p;
        body = this.spans(p, prev, raw, copy);
        p = spansEnd = body.end;
      } else p = this.skipValue(p);
      p = this.ws(p);
      const c = s[p];
      if (c === 0x2c) p = this.ws(p + 1);
      else if (c === 0x7d) break;
      else return null;
    }
    if (body === null) return null;
    // what follows the closing brace, whitespace or not, JSON.parse of the rest judges
    const top = JSON.parse(this.utf8(0, spansAt) + '0' + this.utf8(spansEnd, this.len)) as unknown;
    // every key once (a repeated key, `spans` spelt with an escape among them, goes the ordinary way)
    if (typeof top !== 'object' || top === null || Object.keys(top).length !== keys) return null;
    // (its strings checked for lone surrogates as validation checks them: an escape may make one)
    if ((top as { spans?: unknown }).spans !== 0 || !fastSnapshotHead(top, false)) return null;
    this.raw = body.raw;
    return { top: top as Record<string, unknown>, table: body.table, keys: body.keys };
  }

  /** The spans array at p: the table, each span's keys, and where the array ends. */
  private spans(p: number, prev: SpanTable | null, raw: RawSpans | null, copy: LineCopy): Body {
    const s = this.b;
    if (s[p] !== 0x5b) throw DECLINE; // an array
    const cols = new Columns();
    const prevCount = raw === null ? 0 : raw.open.length;
    p = this.ws(p + 1);
    // the previous line's span expected next: the same order, shifted by what was pruned
    // (the record's own lookup, lineRecords.ts, goes alike)
    let cursor = 0;
    // ≥ 0: span k's head was found equal to span `cursor`'s of the previous line (the glue
    // before it was), and its score's value starts here
    let scoreAt = -1;
    if (s[p] !== 0x5d) {
      for (let k = 0; ; k++) {
        let open: number;
        if (scoreAt >= 0) open = scoreAt - (raw!.scoreAt[cursor]! - raw!.open[cursor]!);
        else {
          open = p;
          if (s[p] !== 0x7b) throw DECLINE;
          if (raw !== null && cursor < prevCount) {
            const at = raw.open[cursor]!;
            const n = raw.scoreAt[cursor]! - at;
            if (p + n <= this.len && sameBytes(this.dv, p, raw.copy.view, at, n)) scoreAt = p + n;
          }
        }
        if (scoreAt >= 0) {
          const next = this.repeat(open, scoreAt, k, cols, prev!, raw!, cursor);
          scoreAt = -1;
          if (next !== NOT_A_REPEAT) {
            cursor++;
            if (next < 0) {
              scoreAt = -next; // the next span's head too: the loop goes on at its score
              continue;
            }
            p = next;
          } else p = this.span(open, k, cols, prev, cursor);
        } else p = this.span(open, k, cols, prev, cursor);
        const j = cols.prevIndex[k]!;
        if (j >= 0) cursor = j + 1;
        p = this.ws(p);
        const c = s[p];
        if (c === 0x2c) p = this.ws(p + 1);
        else if (c === 0x5d) break;
        else throw DECLINE;
      }
    }
    const n = cols.ids.length;
    // the columns are the table's own (read into its representation: no copy)
    const table = new SpanTable(n, cols);
    const { index, objectHashes } = table;
    for (let k = 0; k < n; k++) {
      // unique ids (checkExtraRules; a repeat would not grow the index); the index is what
      // the next line looks spans up by
      index.set(cols.ids[k]!, k);
      if (index.size !== k + 1) throw DECLINE;
      objectHashes[k] = knownSpanObjectHash(cols.keys[k]!.length);
    }
    const rawSpans: RawSpans = { table, copy, open: cols.open, scoreAt: cols.scoreAt, scoreEnd: cols.scoreEnd, close: cols.close, keys: cols.keys };
    return { end: p + 1, table, keys: cols.keys, raw: rawSpans };
  }

  /**
   * Span k, whose head (from its '{' at `open` to its score's value at `at`) is the previous
   * line's span j's, as a repeat of span j: a score, then span j's glue (the rest of the
   * span, the comma and span j + 1's head: the next span's head is then known too) or span
   * j's tail (to its '}'). Returns where the span ends, or −(where the next span's score
   * starts) when the glue matched, or NOT_A_REPEAT (read it field by field).
   * Sound: the score's value is one JSON token (a number or null) between the same text as a
   * span that was read and valid, so the span is valid with that span's every other value.
   */
  private repeat(open: number, at: number, k: number, cols: Columns, prev: SpanTable, raw: RawSpans, j: number): number {
    const s = this.b;
    let score: number;
    let q: number;
    if (this.isNull(at)) {
      score = Number.NaN;
      q = at + 4;
    } else {
      const c = s[at]!;
      if (!(c === 0x2d || (c >= 0x30 && c <= 0x39))) return NOT_A_REPEAT;
      q = this.number(at);
      score = this.value;
      if (!Number.isFinite(score)) return NOT_A_REPEAT;
    }
    const from = raw.scoreEnd[j]!;
    const tailLength = raw.close[j]! + 1 - from;
    const glueLength = j + 1 < raw.open.length ? raw.scoreAt[j + 1]! - from : -1;
    const len = this.len;
    const was = raw.copy.view;
    let next: number;
    if (glueLength >= 0 && q + glueLength <= len && sameBytes(this.dv, q, was, from, glueLength)) next = -(q + glueLength);
    else if (q + tailLength <= len && sameBytes(this.dv, q, was, from, tailLength)) next = q + tailLength;
    else return NOT_A_REPEAT;
    cols.prevIndex[k] = j;
    cols.ids[k] = prev.ids[j]!;
    cols.texts[k] = prev.texts[j]!;
    cols.scores[k] = score;
    cols.claims[k] = prev.claims[j]!;
    cols.tokens[k] = prev.tokens[j]!;
    cols.rewrites[k] = prev.rewrites[j]!;
    cols.parents[k] = prev.parents[j];
    cols.pinned[k] = prev.pinned[j]!;
    cols.roles[k] = prev.roles[j];
    cols.keys[k] = raw.keys[j]!;
    // this line's positions, kept for the next
    cols.open[k] = open;
    cols.scoreAt[k] = at;
    cols.scoreEnd[k] = q;
    cols.close[k] = q + tailLength - 1;
    return next;
  }

  /** Span k, the object at p, read field by field into the columns; where it ends. */
  private span(p: number, k: number, cols: Columns, prev: SpanTable | null, cursor: number): number {
    const s = this.b;
    const open = p;
    p = this.ws(p + 1);
    let seen = 0;
    let order = 0;
    let j = -1;
    let id = '';
    let text = '';
    let score: number | null = null;
    let scoreAt = -1;
    let scoreEnd = -1;
    let claim: string | null = null;
    let tokens: number | undefined;
    let rewrites: number | undefined;
    let parents: string[] | undefined;
    let pinned: boolean | undefined;
    let role: string | undefined;
    if (s[p] === 0x7d) throw DECLINE; // no span_id: not a span
    for (;;) {
      const field = this.field(p);
      if ((seen & (1 << field)) !== 0) throw DECLINE; // a repeated key: JSON.parse keeps the last
      seen |= 1 << field;
      order = order * 16 + field + 1;
      p = this.ws(p + FIELDS[field]!.length + 2);
      if (s[p] !== 0x3a) throw DECLINE;
      p = this.ws(p + 1);
      switch (field) {
        case ID:
          p = this.stringAt(p);
          id = this.read;
          if (prev !== null) j = cursor < prev.length && prev.ids[cursor] === id ? cursor : (prev.index.get(id) ?? -1);
          break;
        case TEXT:
          p = this.stringAt(p);
          text = this.read;
          break;
        case CLAIM:
          if (this.isNull(p)) {
            claim = null;
            p += 4;
          } else {
            p = this.stringAt(p);
            claim = this.read;
          }
          break;
        case ROLE:
          p = this.stringAt(p);
          role = this.read;
          break;
        case SCORE:
          scoreAt = p;
          if (this.isNull(p)) {
            score = null;
            p += 4;
          } else {
            p = this.number(p);
            score = this.value;
            if (!Number.isFinite(score)) throw DECLINE;
          }
          scoreEnd = p;
          break;
        case TOKENS:
        case REWRITES: {
          p = this.number(p);
          const v = this.value;
          if (!Number.isSafeInteger(v) || v < 0) throw DECLINE; // isNatural (validate.ts)
          if (field === TOKENS) tokens = v;
          else rewrites = v;
          break;
        }
        case PINNED:
          if (this.literal(p, 'true')) {
            pinned = true;
            p += 4;
          } else if (this.literal(p, 'false')) {
            pinned = false;
            p += 5;
          } else throw DECLINE;
          break;
        case PARENTS:
          p = this.stringArray(p);
          parents = this.list;
          break;
      }
      p = this.ws(p);
      const c = s[p];
      if (c === 0x2c) p = this.ws(p + 1);
      else if (c === 0x7d) break;
      else throw DECLINE;
    }
    if ((seen & REQUIRED) !== REQUIRED) throw DECLINE;
    // a lone surrogate in an id or a text (from an escape: Python's json.dumps writes emoji as
    // surrogate pairs) is validation's error to word; a repeat's were checked before
    if (!id.isWellFormed() || !text.isWellFormed()) throw DECLINE;
    cols.prevIndex[k] = j;
    cols.ids[k] = id;
    cols.texts[k] = text;
    cols.scores[k] = score ?? Number.NaN;
    cols.claims[k] = claim;
    cols.tokens[k] = tokens ?? Number.NaN;
    cols.rewrites[k] = rewrites ?? Number.NaN;
    cols.parents[k] = parents;
    cols.pinned[k] = pinned === undefined ? -1 : pinned ? 1 : 0;
    cols.roles[k] = role;
    let keys = this.orders.get(order);
    if (keys === undefined) {
      const list: string[] = [];
      for (let o = order; o > 0; o = Math.floor(o / 16)) list.unshift(FIELDS[(o % 16) - 1]!);
      this.orders.set(order, (keys = list));
    }
    cols.keys[k] = keys;
    cols.open[k] = open;
    cols.scoreAt[k] = scoreAt;
    cols.scoreEnd[k] = scoreEnd;
    cols.close[k] = p;
    return p + 1;
  }

  /** The field named by the key at p (a string with no escape), or a decline. */
  private field(p: number): number {
    const s = this.b;
    if (s[p] !== QUOTE) throw DECLINE;
    // each name is tried where it stands, closing quote included: no name holds a backslash
    // or a quote, so a match is the whole key
    switch (s[p + 1]!) {
      case 0x73: // s
        if (this.key(p, 'span_id')) return ID;
        if (this.key(p, 'score')) return SCORE;
        break;
      case 0x74: // t
        if (this.key(p, 'text')) return TEXT;
        if (this.key(p, 'text_sha256')) return CLAIM;
        if (this.key(p, 'tokens')) return TOKENS;
        break;
      case 0x72: // r
        if (this.key(p, 'role')) return ROLE;
        if (this.key(p, 'rewrite_count')) return REWRITES;
        break;
      case 0x64: // d
        if (this.key(p, 'derived_from')) return PARENTS;
        break;
      case 0x70: // p
        if (this.key(p, 'pinned')) return PINNED;
        break;
    }
    throw DECLINE; // a field the wire format does not name: the span goes whole, the ordinary way
  }

  /** The key at p is `name`, closing quote included. */
  private key(p: number, name: string): boolean {
    const s = this.b;
    const n = name.length;
    if (s[p + 1 + n] !== QUOTE) return false;
    for (let i = 1; i < n; i++) if (s[p + 1 + i] !== name.charCodeAt(i)) return false;
    return true;
  }

  private isNull(p: number): boolean {
    return this.literal(p, 'null');
  }

  /** The literal `word` at p. */
  private literal(p: number, word: string): boolean {
    const s = this.b;
    for (let i = 0; i < word.length; i++) if (s[p + i] !== word.charCodeAt(i)) return false;
    return true;
  }

  /** Where the string whose opening quote is at p closes. */
  private stringEnd(p: number): number {
    const s = this.b;
    if (s[p] !== QUOTE) throw DECLINE;
    let q = p + 1;
    for (;;) {
      q = s.indexOf(QUOTE, q);
      if (q < 0 || q >= this.len) throw DECLINE; // (past the line: an older line's bytes)
      let b = q - 1;
      while (s[b] === BACKSLASH) b--;
      if ((q - 1 - b) % 2 === 0) return q;
      q++;
    }
  }

  /** The string read last (stringAt). */
  private read = '';

  /** The string at p into `read`; where it ends. */
  private stringAt(p: number): number {
    const q = this.stringEnd(p);
    this.read = this.string(p, q);
    return q + 1;
  }

  /** The value of the string from the quote at p to the quote at q. */
  private string(p: number, q: number): string {
    const text = this.utf8(p + 1, q);
    if (text.includes('\\')) return JSON.parse(this.utf8(p, q + 1)) as string; // escapes, and whether they are valid
    if (CONTROL.test(text)) throw DECLINE; // not JSON: the ordinary way words it
    return text;
  }

  /** An array of strings at p (derived_from) into `list`; where it ends. */
  private list: string[] = [];
  private stringArray(p: number): number {
    const s = this.b;
    if (s[p] !== 0x5b) throw DECLINE;
    const list: string[] = [];
    p = this.ws(p + 1);
    if (s[p] !== 0x5d) {
      for (;;) {
        p = this.ws(this.stringAt(p));
        list.push(this.read);
        const c = s[p];
        if (c === 0x2c) p = this.ws(p + 1);
        else if (c === 0x5d) break;
        else throw DECLINE;
      }
    }
    this.list = list;
    return p + 1;
  }

  /** The number read last. */
  private value = 0;

  /**
   * A JSON number at p (its grammar exactly) into `value`; where it ends. With at most 15
   * digits and no exponent it is m / 10^k of two exact doubles, one correctly rounded
   * division: the double JSON.parse gives (Clinger's fast path). Any other goes to Number().
   */
  private number(p: number): number {
    const s = this.b;
    const start = p;
    let negative = false;
    if (s[p] === 0x2d) {
      negative = true;
      p++;
    }
    let c = s[p]!;
    let m = 0;
    let digits = 0;
    if (c === 0x30) {
      p++;
    } else if (c >= 0x31 && c <= 0x39) {
      do {
        m = m * 10 + (c - 0x30);
        digits++;
        c = s[++p]!;
      } while (c >= 0x30 && c <= 0x39);
    } else throw DECLINE;
    let frac = 0;
    c = s[p]!;
    if (c === 0x2e) {
      c = s[++p]!;
      if (!(c >= 0x30 && c <= 0x39)) throw DECLINE;
      do {
        m = m * 10 + (c - 0x30);
        if (m !== 0) digits++;
        frac++;
        c = s[++p]!;
      } while (c >= 0x30 && c <= 0x39);
    }
    let exact = digits <= 15 && frac <= 22;
    if (c === 0x65 || c === 0x45) {
      exact = false;
      c = s[++p]!;
      if (c === 0x2b || c === 0x2d) c = s[++p]!;
      if (!(c >= 0x30 && c <= 0x39)) throw DECLINE;
      do c = s[++p]!;
      while (c >= 0x30 && c <= 0x39);
    }
    if (exact) {
      const v = m / POW10[frac]!;
      this.value = negative ? -v : v;
    } else this.value = Number(this.utf8(start, p)); // ASCII, its grammar checked; no spread: a number may have any count of digits
    return p;
  }

  /** Past any value at p (not the spans): JSON.parse of the message's own fields then checks it. */
  private skipValue(p: number): number {
    const s = this.b;
    const len = this.len;
    const first = s[p];
    if (first === QUOTE) return this.stringEnd(p) + 1;
    if (first === 0x7b || first === 0x5b) {
      for (let depth = 0; ; p++) {
        if (p >= len) throw DECLINE;
        const c = s[p]!;
        if (c === QUOTE) p = this.stringEnd(p);
        else if (c === 0x7b || c === 0x5b) depth++;
        else if ((c === 0x7d || c === 0x5d) && --depth === 0) return p + 1;
      }
    }
    // a number or a literal: up to the next delimiter
    for (; p < len; p++) {
      const c = s[p]!;
      if (c === 0x2c || c === 0x7d || c === 0x5d || c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) return p;
    }
    return p;
  }

  /** Past JSON whitespace at p. */
  private ws(p: number): number {
    const s = this.b;
    for (;;) {
      const c = s[p];
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) p++;
      else return p;
    }
  }
}
