// A snapshot line read straight into its span table, without JSON.parse making its span
// objects: the parsing threads' fast reader (lineRecords.ts). JSON.parse's cost is the
// objects it makes, ~200 spans of ~7 keys a line in the bench transcript; what a record needs
// is the table's columns, and a span mostly repeats the previous line's span of its id but
// for its score (the id, text, text_sha256 and role stay; the score is re-ranked each turn).
// So the line is scanned as one char per byte (a latin1 string: JSON's structure is ASCII),
// and each span is first tried as the previous line's span in order: its raw text up to the
// score's value, a number, and the raw text from there to the next span's score (its "glue":
// the rest of this span, the comma, the next span's head), one comparison of slices (memcmp)
// a span. A span that is not a repeat is read field by field, and only then are strings decoded.
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
import { Columns, glueOf, headOf, tailOf, type Body, type RawSpans } from './scannedSpans.ts';
import { fastSnapshotHead } from '../core/validate.ts';

/**
 * A line as the scanner reads it: a string in which JSON's structure (all ASCII) stands as
 * it is and equal text means equal bytes. Node's is the line's bytes one char each (latin1:
 * ~15 µs for 100 KB, where decoding UTF-8 took ~290 µs); the dashboard's is the line decoded.
 */
export interface ScanView {
  chars: string;
  /** the text that chars [a, b) stand for (UTF-8 decoded): called only for what has changed */
  utf8(a: number, b: number): string;
  /**
   * false where the line has a `\uD800`–`\uDFFF` escape (mayHoldLoneSurrogate): a string
   * decoded from it may then be a lone surrogate, which validation refuses in the session id,
   * a span id or a text, as the ordinary path checks (emoji escaped by Python's json.dumps)
   */
  wellFormed: boolean;
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

/** One per parsing thread: it remembers the previous line's raw strings. */
export class SnapshotScanner {
  private raw: RawSpans | null = null;
  private readonly orders = new Map<number, readonly string[]>();
  // the line being read
  private s = '';
  private view: ScanView | null = null;
  private nextBackslash = -1;

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
    this.s = view.chars;
    this.view = view;
    this.nextBackslash = -1;
    try {
      return this.line(prev, raw);
    } catch {
      // a decline, JSON.parse refusing, or a side's strict UTF-8 decoder refusing bytes
      // (scanView.ts): the ordinary way reads the line and words any error
      return null;
    } finally {
      this.s = '';
      this.view = null;
    }
  }

  private line(prev: SpanTable | null, raw: RawSpans | null): ScannedSnapshot | null {
    const s = this.s;
    let p = this.ws(0);
    if (s.charCodeAt(p) !== 0x7b) return null; // '{'
    p = this.ws(p + 1);
    let keys = 0;
    let spansAt = -1;
    let spansEnd = -1;
    let body: Body | null = null;
    for (;;) {
      if (s.charCodeAt(p) !== QUOTE) return null;
      const q = this.stringEnd(p);
      keys++;
      const isSpans = q - p === 6 && s.startsWith('spans', p + 1);
      p = this.ws(q + 1);
      if (s.charCodeAt(p) !== 0x3a) return null; // ':'
      p = this.ws(p + 1);
      if (isSpans) {
        if (body !== null) return null;
        spansAt = p;
        body = this.spans(p, prev, raw);
        p = spansEnd = body.end;
      } else p = this.skipValue(p);
      p = this.ws(p);
      const c = s.charCodeAt(p);
      if (c === 0x2c) p = this.ws(p + 1);
      else if (c === 0x7d) break;
      else return null;
    }
    if (body === null) return null;
    const view = this.view!;
    // what follows the closing brace, whitespace or not, JSON.parse of the rest judges
    const top = JSON.parse(view.utf8(0, spansAt) + '0' + view.utf8(spansEnd, s.length)) as unknown;
    // every key once (a repeated key, `spans` spelt with an escape among them, goes the ordinary way)
    if (typeof top !== 'object' || top === null || Object.keys(top).length !== keys) return null;
    if ((top as { spans?: unknown }).spans !== 0 || !fastSnapshotHead(top, view.wellFormed)) return null;
    this.raw = body.raw;
    return { top: top as Record<string, unknown>, table: body.table, keys: body.keys };
  }

  /** The spans array at p: the table, each span's keys, and where the array ends. */
  private spans(p: number, prev: SpanTable | null, raw: RawSpans | null): Body {
    const s = this.s;
    if (s.charCodeAt(p) !== 0x5b) throw DECLINE; // '['
    const cols = new Columns();
    const prevCount = raw === null ? 0 : raw.open.length;
    p = this.ws(p + 1);
    // the previous line's span expected next: the same order, shifted by what was pruned
    // (the record's own lookup, lineRecords.ts, goes alike)
    let cursor = 0;
    // ≥ 0: span k's head was found equal to span `cursor`'s of the previous line (the glue
    // before it was), and its score's value starts here
    let scoreAt = -1;
    if (s.charCodeAt(p) !== 0x5d) {
      for (let k = 0; ; k++) {
        let open: number;
        if (scoreAt >= 0) open = scoreAt - (raw!.scoreAt[cursor]! - raw!.open[cursor]!);
        else {
          open = p;
          if (s.charCodeAt(p) !== 0x7b) throw DECLINE;
          if (raw !== null && cursor < prevCount) {
            const head = headOf(raw, cursor);
            if (s.slice(p, p + head.length) === head) scoreAt = p + head.length;
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
        const c = s.charCodeAt(p);
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
    const rawSpans: RawSpans = {
      table,
      chars: s,
      open: cols.open,
      scoreAt: cols.scoreAt,
      scoreEnd: cols.scoreEnd,
      close: cols.close,
      glue: cols.glue,
      keys: cols.keys,
    };
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
    const s = this.s;
    let score: number;
    let q: number;
    if (this.isNull(at)) {
      score = Number.NaN;
      q = at + 4;
    } else {
      const c = s.charCodeAt(at);
      if (!(c === 0x2d || (c >= 0x30 && c <= 0x39))) return NOT_A_REPEAT;
      q = this.number(at);
      score = this.value;
      if (!Number.isFinite(score)) return NOT_A_REPEAT;
    }
    const tailLength = raw.close[j]! + 1 - raw.scoreEnd[j]!;
    let next: number;
    let glue = '';
    if (j + 1 < raw.open.length && (glue = s.slice(q, q + (raw.scoreAt[j + 1]! - raw.scoreEnd[j]!))) === glueOf(raw, j)) next = -(q + glue.length);
    else {
      glue = '';
      const tail = tailOf(raw, j);
      if (s.slice(q, q + tailLength) !== tail) return NOT_A_REPEAT;
      next = q + tailLength;
    }
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
    // this line's positions and slice, kept for the next: a slice of an older line would keep it alive
    cols.open[k] = open;
    cols.scoreAt[k] = at;
    cols.scoreEnd[k] = q;
    cols.close[k] = q + tailLength - 1;
    cols.glue[k] = glue;
    return next;
  }

  /** Span k, the object at p, read field by field into the columns; where it ends. */
  private span(p: number, k: number, cols: Columns, prev: SpanTable | null, cursor: number): number {
    const s = this.s;
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
    if (s.charCodeAt(p) === 0x7d) throw DECLINE; // no span_id: not a span
    for (;;) {
      const field = this.field(p);
      if ((seen & (1 << field)) !== 0) throw DECLINE; // a repeated key: JSON.parse keeps the last
      seen |= 1 << field;
      order = order * 16 + field + 1;
      p = this.ws(p + FIELDS[field]!.length + 2);
      if (s.charCodeAt(p) !== 0x3a) throw DECLINE;
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
      const c = s.charCodeAt(p);
      if (c === 0x2c) p = this.ws(p + 1);
      else if (c === 0x7d) break;
      else throw DECLINE;
    }
    if ((seen & REQUIRED) !== REQUIRED) throw DECLINE;
    // a lone surrogate in an id or a text is validation's error to word (a repeat's were checked before)
    if (!this.view!.wellFormed && (!id.isWellFormed() || !text.isWellFormed())) throw DECLINE;
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
    cols.glue[k] = '';
    return p + 1;
  }

  /** The field named by the key at p (a string with no escape), or a decline. */
  private field(p: number): number {
    const s = this.s;
    if (s.charCodeAt(p) !== QUOTE) throw DECLINE;
    // each name is tried where it stands, closing quote included: no name holds a backslash
    // or a quote, so a match is the whole key
    switch (s.charCodeAt(p + 1)) {
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

  /** The key at p is `name`, closing quote included (a loop of charCodeAt: startsWith is slower here). */
  private key(p: number, name: string): boolean {
    const s = this.s;
    const n = name.length;
    if (s.charCodeAt(p + 1 + n) !== QUOTE) return false;
    for (let i = 1; i < n; i++) if (s.charCodeAt(p + 1 + i) !== name.charCodeAt(i)) return false;
    return true;
  }

  private isNull(p: number): boolean {
    return this.literal(p, 'null');
  }

  /** The literal `word` at p (charCodeAt: startsWith at a position is slow in V8). */
  private literal(p: number, word: string): boolean {
    const s = this.s;
    for (let i = 0; i < word.length; i++) if (s.charCodeAt(p + i) !== word.charCodeAt(i)) return false;
    return true;
  }

  /** Where the string whose opening quote is at p closes. */
  private stringEnd(p: number): number {
    const s = this.s;
    if (s.charCodeAt(p) !== QUOTE) throw DECLINE;
    let q = p + 1;
    for (;;) {
      q = s.indexOf('"', q);
      if (q < 0) throw DECLINE;
      let b = q - 1;
      while (s.charCodeAt(b) === BACKSLASH) b--;
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
    const s = this.s;
    if (this.nextBackslash < p + 1 && this.nextBackslash !== Infinity) {
      const b = s.indexOf('\\', p + 1);
      this.nextBackslash = b < 0 ? Infinity : b;
    }
    const view = this.view!;
    if (this.nextBackslash < q) return JSON.parse(view.utf8(p, q + 1)) as string; // escapes, and whether they are valid
    const text = view.utf8(p + 1, q);
    if (CONTROL.test(text)) throw DECLINE; // not JSON: the ordinary way words it
    return text;
  }

  /** An array of strings at p (derived_from) into `list`; where it ends. */
  private list: string[] = [];
  private stringArray(p: number): number {
    const s = this.s;
    if (s.charCodeAt(p) !== 0x5b) throw DECLINE;
    const list: string[] = [];
    p = this.ws(p + 1);
    if (s.charCodeAt(p) !== 0x5d) {
      for (;;) {
        p = this.ws(this.stringAt(p));
        list.push(this.read);
        const c = s.charCodeAt(p);
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
    const s = this.s;
    const start = p;
    let negative = false;
    if (s.charCodeAt(p) === 0x2d) {
      negative = true;
      p++;
    }
    let c = s.charCodeAt(p);
    let m = 0;
    let digits = 0;
    if (c === 0x30) {
      p++;
    } else if (c >= 0x31 && c <= 0x39) {
      do {
        m = m * 10 + (c - 0x30);
        digits++;
        c = s.charCodeAt(++p);
      } while (c >= 0x30 && c <= 0x39);
    } else throw DECLINE;
    let frac = 0;
    c = s.charCodeAt(p);
    if (c === 0x2e) {
      c = s.charCodeAt(++p);
      if (!(c >= 0x30 && c <= 0x39)) throw DECLINE;
      do {
        m = m * 10 + (c - 0x30);
        if (m !== 0) digits++;
        frac++;
        c = s.charCodeAt(++p);
      } while (c >= 0x30 && c <= 0x39);
    }
    let exact = digits <= 15 && frac <= 22;
    if (c === 0x65 || c === 0x45) {
      exact = false;
      c = s.charCodeAt(++p);
      if (c === 0x2b || c === 0x2d) c = s.charCodeAt(++p);
      if (!(c >= 0x30 && c <= 0x39)) throw DECLINE;
      do c = s.charCodeAt(++p);
      while (c >= 0x30 && c <= 0x39);
    }
    if (exact) {
      const v = m / POW10[frac]!;
      this.value = negative ? -v : v;
    } else this.value = Number(s.slice(start, p));
    return p;
  }

  /** Past any value at p (not the spans): JSON.parse of the message's own fields then checks it. */
  private skipValue(p: number): number {
    const s = this.s;
    const first = s.charCodeAt(p);
    if (first === QUOTE) return this.stringEnd(p) + 1;
    if (first === 0x7b || first === 0x5b) {
      for (let depth = 0; ;) {
        const c = s.charCodeAt(p);
        if (c === QUOTE) {
          p = this.stringEnd(p) + 1;
          continue;
        }
        if (c === 0x7b || c === 0x5b) depth++;
        else if (c === 0x7d || c === 0x5d) {
          if (--depth === 0) return p + 1;
        } else if (Number.isNaN(c)) throw DECLINE;
        p++;
      }
    }
    // a number or a literal: up to the next delimiter
    for (;;) {
      const c = s.charCodeAt(p);
      if (Number.isNaN(c) || c === 0x2c || c === 0x7d || c === 0x5d || c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) return p;
      p++;
    }
  }

  /** Past JSON whitespace at p. */
  private ws(p: number): number {
    const s = this.s;
    for (;;) {
      const c = s.charCodeAt(p);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) p++;
      else return p;
    }
  }
}
