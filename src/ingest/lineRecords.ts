// The hand-off between the parsing threads and the thread that runs the order-dependent
// engine: `check`'s worker threads (src/node/lineRecords.ts, docs/perf-log/notebook.md "Both
// cores") and the dashboard's parsing Workers (src/worker/parsePool.ts, docs/dashboard.md).
// Runtime-neutral: each side brings its own line decoder and sha256. A parsing thread
// decodes, parses and validates a line (contract §2) and
// hashes its new span texts; the main thread, which runs the order-dependent engine, gets a
// record much cheaper to take in than the line. JSON.parse's cost is the objects it makes,
// not the bytes (a snapshot without its texts, a third of its bytes, parsed in 85% of the
// line's time), so the record is the span table's columns (spanTable.ts): numbers in typed
// arrays, and of the strings only those that differ from the previous line's span of the
// same id (ids, texts and hashes mostly repeat; scores change every turn). The main thread
// fills the table from them and makes each span object with one object literal per key
// order (a "shape"; five in the bench transcript), which costs a fraction of parsing it.
// A structured clone of the parsed message would cost more than parsing the line (a 1 MB
// clone is ~20 ms here), which is why the parsed values themselves do not travel.
//
// Exact, not approximate: a record is made only when the main thread's message is provably
// the one the ordinary path would have parsed (the same values, keys in the same order);
// any other line (an error, a header, a compact snapshot, a number JSON cannot write back,
// such as -0) gets none and goes the ordinary way on the main thread.
import { omissionsOf } from '../core/compact.ts';
import { sameStrings } from '../core/equality.ts';
import { SpanTable } from '../core/spanTable.ts';
import { mayHoldLoneSurrogate, validateFast, type Validated } from '../core/validate.ts';
import type { Message } from '../core/wire.ts';
import { SnapshotScanner, type ScanView } from './snapshotScan.ts';

export interface LineRecord {
  /** the message with `spans` set to 0, as JSON: its own fields, keys in their order */
  top: string;
  /** per span, three: the previous line's span of its id (or −1), its spanObjectHash, its bits (below) */
  meta: Int32Array;
  /** per span, three: score (NaN: null), tokens and rewrite_count (NaN: absent) */
  nums: Float64Array;
  /** per span in order, the strings not repeated from the previous line: id, text, text_sha256, role */
  strings: string[];
  /** the derived_from lists not repeated, in order */
  parents: string[][];
  /** the spans with fields the wire format does not name, as one JSON array (they go whole) */
  json: string;
  /** per span whose text is not repeated (or that goes whole): sha256 of its text when it carries a text_sha256, else '' */
  digests: string[];
  /**
   * the main thread's line parser would have handed this line on parsed (a line with bytes
   * ≥ 0x80), not as text: the pipeline's value path, which check treats a little
   * differently from its text path (it observes reference_disagreement)
   */
  parsed: boolean;
}

export type Sha256 = (text: string) => string;

type JsonObject = Record<string, unknown>;

// a span's bits: its shape (the index of its key order; WHOLE: sent as JSON), pinned + 1, and what repeats
const SHAPE = 0xff;
const WHOLE = 0xff;
const PINNED_SHIFT = 8;
const SAME_TEXT = 1 << 10;
const SAME_CLAIM = 1 << 11;
const NULL_CLAIM = 1 << 12;
const SAME_ROLE = 1 << 13;
const NO_ROLE = 1 << 14;
const SAME_PARENTS = 1 << 15;
const NO_PARENTS = 1 << 16;

/** The wire format's span fields (contract §2), and how a shape's object literal reads each from the table. */
const FIELD: Readonly<Record<string, string>> = {
  span_id: 't.ids[k]',
  text: 't.texts[k]',
  score: 'Number.isNaN(t.scores[k]) ? null : t.scores[k]',
  text_sha256: 't.claims[k]',
  tokens: 't.tokens[k]',
  rewrite_count: 't.rewrites[k]',
  derived_from: 't.parents[k]',
  pinned: 't.pinned[k] === 1',
  role: 't.roles[k]',
};

/** Key orders met so far, by thread; a batch's result carries the list. */
export class Shapes {
  readonly list: string[][] = [];

  private lastKeys: readonly string[] | null = null;
  private lastShape = 0;

  /** The index of this key order, or WHOLE when it has a field the wire format does not name (or too many orders were met). */
  of(keys: readonly string[]): number {
    // the scanner hands the same array for the same order (and no one changes a key list)
    if (keys === this.lastKeys) return this.lastShape;
    const shape = this.find(keys);
    this.lastKeys = keys;
    this.lastShape = shape;
    return shape;
  }

  private find(keys: readonly string[]): number {
    for (let s = 0; s < this.list.length; s++) if (sameStrings(this.list[s]!, keys)) return s;
    if (this.list.length === WHOLE) return WHOLE;
    for (const key of keys) if (!Object.hasOwn(FIELD, key)) return WHOLE;
    this.list.push([...keys]);
    return this.list.length - 1;
  }
}

/**
 * How a side reads a line's bytes, exactly as its ordinary path would: the UTF-8 text (which
 * the engine would parse), or the line already parsed (Node's fast path, lineParser.ts).
 * Throws where the ordinary path would report the line as not UTF-8.
 */
export type RecordLineDecoder = (bytes: Uint8Array, start: number, end: number) => string | { parsed: unknown };

/**
 * How a side shows a line to the snapshot scanner (snapshotScan.ts), or null where it reads
 * it the ordinary way only: with `parsed`, what its decoder would say of the line (above).
 * Null too for a line its decoder would refuse (not UTF-8).
 */
export type ScanViewOf = (bytes: Uint8Array, start: number, end: number) => (ScanView & { parsed: boolean }) | null;

/** A parsing thread's side: one per thread, `reset` at the start of each batch of lines. */
export class RecordEncoder {
  private prev: SpanTable | null = null;
  readonly shapes = new Shapes();
  private readonly scanner = new SnapshotScanner();
  /** lines whose record the scanner made (the rest were parsed): for tests and benches */
  scanned = 0;

  constructor(
    private readonly sha256: Sha256,
    private readonly decode: RecordLineDecoder,
    private readonly scanView: ScanViewOf | null = null,
  ) {}

  reset(): void {
    this.prev = null;
    this.scanner.reset();
  }

  /** A record of the message in bytes[start, end), or null: the line goes the ordinary way. */
  encode(bytes: Uint8Array, start: number, end: number): LineRecord | null {
    const prev = this.prev;
    this.prev = null;
    const view = this.scanView?.(bytes, start, end) ?? null;
    if (view !== null) {
      const scan = this.scanner.scan(view, prev);
      // the scanner's table is validateFast's; a span it cannot carry (too many shapes) is parsed below
      const record = scan === null ? null : this.build(scan.top, scan.table, (k) => scan.keys[k]!, null, prev, view.parsed);
      if (record !== null) {
        this.prev = scan!.table;
        this.scanned++;
        return record;
      }
    }
    // exactly as the main thread would read it: its decoder, then Engine.ingestLine for a text
    let value: unknown;
    let noSurrogateEscape: boolean;
    let parsed: boolean;
    try {
      const decoded = this.decode(bytes, start, end);
      if (typeof decoded === 'string') {
        value = JSON.parse(decoded);
        noSurrogateEscape = !mayHoldLoneSurrogate(decoded);
        parsed = false;
      } else {
        value = decoded.parsed;
        noSurrogateEscape = true;
        parsed = true;
      }
    } catch {
      return null; // not UTF-8, or not JSON: the main thread words the error
    }
    // a compact snapshot's texts come from the session's previous one: only the engine knows it
    if (omissionsOf(value) !== null) return null;
    // a value only the schema accepts is left to the main thread's validateMessage
    const checked = validateFast(value, noSurrogateEscape);
    if (checked === null || !checked.ok || checked.message.type !== 'snapshot' || checked.spans === undefined) return null;
    const spans = checked.message.spans as unknown as JsonObject[];
    // the message's own fields, `spans` held in its place
    const top = { ...(checked.message as unknown as JsonObject), spans: 0 };
    const record = this.build(top, checked.spans, (k) => Object.keys(spans[k]!), spans, prev, parsed);
    if (record !== null) this.prev = checked.spans;
    return record;
  }

  /**
   * The record of a validated snapshot: its own fields (`spans` set to 0), its table, each
   * span's keys in order and, where the span objects were made, the spans (a span of fields
   * the wire format does not name goes whole). Null: the line goes the ordinary way.
   */
  private build(
    top: JsonObject,
    t: SpanTable,
    keysOf: (k: number) => readonly string[],
    spans: readonly JsonObject[] | null,
    prev: SpanTable | null,
    parsed: boolean,
  ): LineRecord | null {
    // JSON writes every value back as it was parsed except -0 and an overflowed number
    // (Infinity), which exactJson refuses
    if (!exactJson(top)) return null;
    const n = t.length;
    const meta = new Int32Array(3 * n);
    const nums = new Float64Array(3 * n);
    const strings: string[] = [];
    const parents: string[][] = [];
    const whole: JsonObject[] = [];
    const digests: string[] = [];
    let cursor = 0;
    for (let k = 0; k < n; k++) {
      const keys = keysOf(k);
      const shape = keys.length === knownFields(t, k) ? this.shapes.of(keys) : WHOLE;
      const id = t.ids[k]!;
      // the same order as last line, shifted by what was pruned (as the analysis looks spans up)
      let j = -1;
      if (prev !== null) {
        j = cursor < prev.length && prev.ids[cursor] === id ? cursor : (prev.index.get(id) ?? -1);
        if (j >= 0) cursor = j + 1;
      }
      meta[3 * k] = j;
      meta[3 * k + 1] = t.objectHashes[k]!;
      const claim = t.claims[k]!;
      if (shape === WHOLE) {
        const span = spans?.[k];
        if (span === undefined || !exactJson(span)) return null;
        whole.push(span);
        meta[3 * k + 2] = WHOLE;
        digests.push(claim !== null && claim !== '' ? this.sha256(t.texts[k]!) : '');
        continue;
      }
      let bits = shape | ((t.pinned[k]! + 1) << PINNED_SHIFT);
      if (j < 0) strings.push(id);
      const text = t.texts[k]!;
      if (j >= 0 && prev!.texts[j] === text) bits |= SAME_TEXT;
      else {
        strings.push(text);
        digests.push(claim !== null && claim !== '' ? this.sha256(text) : '');
      }
      if (claim === null) bits |= NULL_CLAIM;
      else if (j >= 0 && prev!.claims[j] === claim) bits |= SAME_CLAIM;
      else strings.push(claim);
      const role = t.roles[k];
      if (role === undefined) bits |= NO_ROLE;
      else if (j >= 0 && prev!.roles[j] === role) bits |= SAME_ROLE;
      else strings.push(role);
      const from = t.parents[k];
      if (from === undefined) bits |= NO_PARENTS;
      else if (j >= 0 && sameStrings(prev!.parents[j], from)) bits |= SAME_PARENTS;
      else parents.push(from);
      meta[3 * k + 2] = bits;
      nums[3 * k] = t.scores[k]!;
      nums[3 * k + 1] = t.tokens[k]!;
      nums[3 * k + 2] = t.rewrites[k]!;
    }
    return { top: JSON.stringify(top), meta, nums, strings, parents, json: whole.length === 0 ? '' : JSON.stringify(whole), digests, parsed };
  }
}

export interface TakenRecord {
  checked: Validated & { ok: true };
  /** the texts that were not repeats, in the order of the record's digests */
  texts: string[];
}

type MakeSpan = (t: SpanTable, k: number) => JsonObject;

/** The object-literal makers of the shapes met, by key order (kept for the whole run). */
export type SpanMakers = Map<string, MakeSpan>;

/** The main thread's side: one per batch of lines, fed every line of it in order. */
export class RecordDecoder {
  private prev: SpanTable | null = null;
  private readonly makers: MakeSpan[];

  /** `shapes`: the key orders the batch's thread had met (the result's list) */
  constructor(
    shapes: readonly (readonly string[])[],
    private readonly cache: SpanMakers,
  ) {
    this.makers = [];
    this.learn(shapes);
  }

  /** The thread's list of shapes as it now stands (it only grows): a decoder kept across batches learns the new ones. */
  learn(shapes: readonly (readonly string[])[]): void {
    for (let s = this.makers.length; s < shapes.length; s++) {
      const keys = shapes[s]!;
      const name = keys.join(',');
      let make = this.cache.get(name);
      if (make === undefined) this.cache.set(name, (make = spanMaker(keys)));
      this.makers.push(make);
    }
  }

  /**
   * The record's message, validated as validateMessage would (the parsing thread ran it).
   * Every line that has a record must pass here, used or not: the next may repeat its strings.
   */
  take(record: LineRecord): TakenRecord {
    const message = JSON.parse(record.top) as JsonObject;
    const whole = record.json === '' ? [] : (JSON.parse(record.json) as JsonObject[]);
    const { meta, nums, strings, parents } = record;
    const n = meta.length / 3;
    const t = new SpanTable(n);
    const spans = new Array<JsonObject>(n);
    const texts: string[] = [];
    const p = this.prev;
    let s = 0;
    let f = 0;
    let w = 0;
    for (let k = 0; k < n; k++) {
      const j = meta[3 * k]!;
      const bits = meta[3 * k + 2]!;
      const shape = bits & SHAPE;
      if (shape === WHOLE) {
        const span = whole[w++]!;
        spans[k] = span;
        setFromObject(t, k, span);
        texts.push(span.text as string);
      } else {
        t.ids[k] = j >= 0 ? p!.ids[j]! : strings[s++]!;
        let text: string;
        if ((bits & SAME_TEXT) !== 0) text = p!.texts[j]!;
        else texts.push((text = strings[s++]!));
        t.texts[k] = text;
        t.claims[k] = (bits & NULL_CLAIM) !== 0 ? null : (bits & SAME_CLAIM) !== 0 ? p!.claims[j]! : strings[s++]!;
        t.roles[k] = (bits & NO_ROLE) !== 0 ? undefined : (bits & SAME_ROLE) !== 0 ? p!.roles[j] : strings[s++];
        t.parents[k] = (bits & NO_PARENTS) !== 0 ? undefined : (bits & SAME_PARENTS) !== 0 ? p!.parents[j] : parents[f++];
        t.pinned[k] = ((bits >> PINNED_SHIFT) & 3) - 1;
        t.scores[k] = nums[3 * k]!;
        t.tokens[k] = nums[3 * k + 1]!;
        t.rewrites[k] = nums[3 * k + 2]!;
        spans[k] = this.makers[shape]!(t, k);
      }
      t.objectHashes[k] = meta[3 * k + 1]!;
      t.index.set(t.ids[k]!, k); // the ids are unique (validated)
    }
    message.spans = spans; // in the place the key had in the line
    this.prev = t;
    return { checked: { ok: true, message: message as unknown as Message, spans: t }, texts };
  }

  /** A line without a record: the next line's record repeats none of its strings. */
  skip(): void {
    this.prev = null;
  }
}

/** A line the scanner read on the thread that runs the engine: its message, validated, and the decoder's verdict on it. */
export interface ReadSnapshot {
  checked: Validated & { ok: true };
  /** as LineRecord.parsed: the line the ordinary parser would have handed on parsed */
  parsed: boolean;
}

/**
 * The snapshot scanner (snapshotScan.ts) on the thread that runs the engine, for the lines
 * no parsing thread takes: the message straight from the scanner's table, without a record
 * made and taken in. Each span object is made by its shape's object literal (as `take` does).
 */
export class SnapshotReader {
  private prev: SpanTable | null = null;
  private readonly scanner = new SnapshotScanner();
  /** the makers of the key orders met, by the scanner's (shared) key lists */
  private readonly byKeys = new Map<readonly string[], MakeSpan>();

  constructor(
    private readonly scanView: ScanViewOf,
    private readonly makers: SpanMakers,
  ) {}

  /** The line's message, or null: it goes the ordinary way (and the next line has nothing to compare with). */
  read(bytes: Uint8Array, start: number, end: number): ReadSnapshot | null {
    const prev = this.prev;
    this.prev = null;
    const view = this.scanView(bytes, start, end);
    const scan = view === null ? null : this.scanner.scan(view, prev);
    if (scan === null) return null;
    const t = scan.table;
    const spans = new Array<JsonObject>(t.length);
    for (let k = 0; k < t.length; k++) spans[k] = this.makerOf(scan.keys[k]!)(t, k);
    const message = scan.top;
    message.spans = spans; // in the place the key had in the line
    this.prev = t;
    return { checked: { ok: true, message: message as unknown as Message, spans: t }, parsed: view!.parsed };
  }

  /** Each line of a batch, in order (a line whose read throws goes the ordinary way, which words what went wrong). */
  readAll(bytes: Uint8Array, starts: readonly number[], ends: readonly number[]): (ReadSnapshot | null)[] {
    return starts.map((start, i) => {
      try {
        return this.read(bytes, start, ends[i]!);
      } catch {
        return null;
      }
    });
  }

  private makerOf(keys: readonly string[]): MakeSpan {
    let make = this.byKeys.get(keys);
    if (make === undefined) {
      const name = keys.join(',');
      make = this.makers.get(name);
      if (make === undefined) this.makers.set(name, (make = spanMaker(keys)));
      this.byKeys.set(keys, make);
    }
    return make;
  }
}

/**
 * The engine's sha256 (Sha256Hex) on the main thread, with the digests a parsing thread
 * computed for the record being taken in: the same function of the same text, so the
 * engine's result is the one it computes itself, which it does for any other text.
 */
export class KnownDigests {
  private known: Map<string, string> | null = null;

  constructor(private readonly compute: Sha256) {}

  readonly sha256 = (text: string): string => this.known?.get(text) ?? this.compute(text);

  /** The digests of a record's texts, until the next record. */
  use(record: LineRecord, taken: TakenRecord): void {
    let known: Map<string, string> | null = null;
    for (let i = 0; i < taken.texts.length; i++) {
      const digest = record.digests[i]!;
      if (digest !== '') (known ??= new Map()).set(taken.texts[i]!, digest);
    }
    this.known = known;
  }

  /** No record's digests (a line read without one): the engine computes each. */
  clear(): void {
    this.known = null;
  }
}

/**
 * One object literal per key order, so that V8 makes every span of a shape with the same
 * hidden class in one allocation (assigning keys one by one to `{}` was the slow part of
 * a hand-made object). The code is made from the fixed FIELD table, never from input: a
 * shape holds only its keys.
 */
function spanMaker(keys: readonly string[]): MakeSpan {
  const fields = keys.map((key) => `${JSON.stringify(key)}: ${FIELD[key]!}`);
  return new Function('t', 'k', `return { ${fields.join(', ')} };`) as MakeSpan;
}

function setFromObject(t: SpanTable, k: number, s: JsonObject): void {
  t.set(
    k,
    s.span_id as string,
    s.text as string,
    s.score as number | null,
    s.text_sha256 as string | null,
    s.tokens as number | undefined,
    s.rewrite_count as number | undefined,
    s.derived_from as string[] | undefined,
    s.pinned as boolean | undefined,
    s.role as string | undefined,
  );
}

/** Fields of span k that the wire format names: a span with as many keys has no other. */
function knownFields(t: SpanTable, k: number): number {
  // span_id, text, score and text_sha256 are required (a null is a value)
  return (
    4 +
    (Number.isNaN(t.tokens[k]!) ? 0 : 1) +
    (Number.isNaN(t.rewrites[k]!) ? 0 : 1) +
    (t.parents[k] === undefined ? 0 : 1) +
    (t.pinned[k] === -1 ? 0 : 1) +
    (t.roles[k] === undefined ? 0 : 1)
  );
}

/** JSON.parse(JSON.stringify(v)) is v: no -0 and no non-finite number anywhere in it. */
function exactJson(v: unknown): boolean {
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
  if (typeof v !== 'object' || v === null) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!exactJson(v[i])) return false;
    return true;
  }
  for (const key in v) if (!exactJson((v as JsonObject)[key])) return false;
  return true;
}
