// contract §2 validation: a parsed JSON value becomes a Message or a plain-sentence error.
//
// The zod schemas in wire.ts are the contract. Running zod over every span of every
// snapshot costs about 40% of JSON.parse on a 200-span snapshot, so the hot path runs
// `fastAccepts`, a hand-written check of exactly the same rules, and only a value it
// rejects goes through zod to get the precise reason. A property test
// (validate.property.test.ts) holds the two to the same verdict on random input.
import type { z } from 'zod';
import { spanNestsTooDeep, spanObjectHash } from './equality.ts';
import { exceedsNesting, tooDeepMessage } from './nesting.ts';
import { schemaRefusal } from './schemaRefusal.ts';
import { SpanTable } from './spanTable.ts';
import type { Message, Span } from './wire.ts';

/**
 * `spans` (snapshots): the spans column by column, read once here and handed on to the
 * analysis and the replay fingerprint, with the id → index map built to find duplicate ids.
 */
export type Validated = { ok: true; message: Message; spans?: SpanTable } | { ok: false; error: string };

/**
 * `stringsWellFormed`: the caller knows no string of the value can hold a lone surrogate,
 * because the JSON text it was parsed from has no `\uD800`–`\uDFFF` escape (see
 * `mayHoldLoneSurrogate`). Checking every span text with isWellFormed was about 13% of the
 * engine's time per snapshot (PERF: two-byte texts are scanned char by char).
 */
export function validateMessage(value: unknown, stringsWellFormed = false, session: SessionTables = NO_SESSION_TABLES): Validated {
  const out: { table: SpanTable | null } = { table: null };
  if (fastCheck(value, out)) return checkExtraRules(value as Message, out.table, stringsWellFormed, session);
  const refusal = schemaRefusal(value);
  if (refusal !== null) return { ok: false, error: describeIssue(value, refusal.issue) };
  // zod accepted what the fast path refused: the fast path is stricter than the schema
  // somewhere. Trust the schema (it is the contract) and keep the caller's object.
  const message = value as Message;
  return checkExtraRules(message, message.type === 'snapshot' ? SpanTable.of(message.spans) : null, stringsWellFormed);
}

/**
 * validateMessage for a value the fast path accepts, and null for any other (the schema
 * would decide, or refuse). For a caller that then hands the value to validateMessage
 * elsewhere: `check`'s parsing threads, whose code then needs no zod (src/node/lineRecords.ts).
 */
export function validateFast(value: unknown, stringsWellFormed = false): Validated | null {
  const out: { table: SpanTable | null } = { table: null };
  return fastCheck(value, out) ? checkExtraRules(value as Message, out.table, stringsWellFormed) : null;
}

/**
 * Whether the value parsed from this JSON text can hold a lone surrogate. Valid UTF-8 cannot
 * encode a surrogate, and a JavaScript string decoded from UTF-8 holds none, so one can only
 * come from a `\uD800`–`\uDFFF` escape. Conservative: an escaped backslash before "ud…"
 * also answers true. Two `includes` scans cost about 1% of JSON.parse of the same line.
 */
export function mayHoldLoneSurrogate(json: string): boolean {
  return json.includes('\\ud') || json.includes('\\uD');
}

/** What validation may take from the session the message belongs to (the engine's; none by default). */
export interface SessionTables {
  /** a table the session no longer reads (Engine: the one before the last): its id index is taken over where it fits */
  spare: SpanTable | null;
  /**
   * the session's last accepted snapshot's table: its texts were found well-formed, so a span
   * of the same id and the very same text is not scanned again (an adapter hands the same
   * strings turn after turn; scanning every two-byte text of every turn took most of the
   * engine's time on real sessions)
   */
  known: SpanTable | null;
  /** compute each span's spanObjectHash (the replay fingerprint reads them); false: only their depth rule */
  objectHashes: boolean;
}

const NO_SESSION_TABLES: SessionTables = { spare: null, known: null, objectHashes: true };

/**
 * Rules a JSON Schema cannot say: unique span ids, well-formed UTF-16 strings, and the
 * nesting limit (nesting.ts). The limit is checked where it can be cheaply: the wire
 * format's own fields are already known to be shallow, so only the message's other fields
 * are walked, and each span's unknown fields in the same enumeration of its keys that
 * hashes them for the replay fingerprint (`spanObjectHash`, kept in the table).
 */
function checkExtraRules(message: Message, table: SpanTable | null, stringsWellFormed: boolean, session: SessionTables = NO_SESSION_TABLES): Validated {
  const error = messageRuleError(message, stringsWellFormed);
  if (error !== undefined) return { ok: false, error };
  if (message.type !== 'snapshot' || table === null) return { ok: true, message };
  const { ids, texts } = table;
  const spans = message.spans;
  const { spare, known, objectHashes } = session;
  // where the known table's span of the next id is expected: the same order, shifted by what was pruned
  let cursor = 0;
  // `spare`'s ids are unique and its index maps each to its place: where this snapshot begins
  // with those very ids (an agent's context grows at its end), that index already holds them
  let adopted = spare !== null && spare.length <= ids.length && spare.length > 0 ? spare.ids : null;
  if (adopted !== null) table.adoptIndex(spare!);
  const index = table.index;
  if (adopted === null) index.clear(); // SpanTable.of (the zod path) has filled it, keeping the last of duplicate ids
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if (adopted !== null && i < adopted.length && adopted[i] === id) {
      // in the index already, at this place
    } else {
      if (adopted !== null) {
        // not the spare's order after all: the index holds its first i ids (this snapshot's
        // too) and the spare's others, which go
        if (i < adopted.length) for (let k = i; k < adopted.length; k++) index.delete(adopted[k]!);
        adopted = null;
      }
      // one hash lookup, not two (has, then set): a repeated id leaves the size as it was
      index.set(id, i);
      if (index.size === i) return { ok: false, error: `span ${i} repeats span_id ${JSON.stringify(id)}: span ids must be unique within a snapshot` };
    }
    // the depth rule, with the hash the replay fingerprint reads when there is one (an engine
    // that keeps none leaves the table's hashes at 0: Engine.forgoReplays)
    if (objectHashes) {
      const objectHash = spanObjectHash(spans[i]!);
      if (Number.isNaN(objectHash)) return { ok: false, error: tooDeepMessage(`span ${i} (${JSON.stringify(id)})`) };
      table.objectHashes[i] = objectHash;
    } else if (spanNestsTooDeep(spans[i]!)) return { ok: false, error: tooDeepMessage(`span ${i} (${JSON.stringify(id)})`) };
    if (stringsWellFormed) continue;
    // a span the known table holds: its id was found well-formed then, and so was its text when it is the very same string
    const j = known === null ? -1 : known.placeOf(id, cursor);
    if (j >= 0) cursor = j + 1;
    else if (!id.isWellFormed()) return { ok: false, error: `span ${i} has a span_id with a lone surrogate (not valid Unicode)` };
    if (j >= 0 && known!.texts[j] === texts[i]) continue;
    if (!texts[i]!.isWellFormed()) return { ok: false, error: `span ${i} (${JSON.stringify(id)}) has text with a lone surrogate (not valid Unicode)` };
  }
  return { ok: true, message, spans: table };
}

/** checkExtraRules' rules of the message's own fields (its spans aside), broken or not. */
function messageRuleError(message: Message, stringsWellFormed: boolean): string | undefined {
  if (!stringsWellFormed && !message.session_id.isWellFormed()) return 'session_id contains a lone surrogate (not valid Unicode)';
  const deepField = tooDeepField(message);
  return deepField === undefined ? undefined : tooDeepMessage(`field ${JSON.stringify(deepField)}`);
}

/**
 * What validateFast accepts of a snapshot's own fields, `spans` aside (it may hold anything),
 * for a reader that checks the spans itself (src/ingest/snapshotScan.ts): whether a
 * snapshot with these fields and valid spans passes validateFast.
 */
export function fastSnapshotHead(value: unknown, stringsWellFormed: boolean): boolean {
  if (!isObj(value) || typeof value.session_id !== 'string' || value.session_id.length === 0 || value.type !== 'snapshot') return false;
  return snapshotFields(value) && messageRuleError(value as Message, stringsWellFormed) === undefined;
}

/**
 * A value parsed from a text that was validated in full before (the relay's analysis
 * threads: the relay's gate ran contract §2 validation on the very line it stored): the
 * message and its span table, without the rules that cannot fail a second time (unique
 * span ids, well-formed strings, nesting) nor the spans' object hashes, which only the
 * replay fingerprint reads. Whatever the fast check refuses gets the full validation.
 */
export function validateTrusted(value: unknown): Validated {
  const out: { table: SpanTable | null } = { table: null };
  if (!fastCheck(value, out)) return validateMessage(value);
  const message = value as Message;
  const table = out.table;
  if (message.type !== 'snapshot' || table === null) return { ok: true, message };
  const { ids, index } = table;
  index.clear();
  for (let i = 0; i < ids.length; i++) index.set(ids[i]!, i);
  return { ok: true, message, spans: table };
}

/** A top-level field nested deeper than the limit allows; a snapshot's spans are checked span by span. */
function tooDeepField(message: Message): string | undefined {
  for (const key in message) {
    if (key === 'spans' && message.type === 'snapshot') continue;
    if (exceedsNesting((message as Record<string, unknown>)[key], 2)) return key;
  }
  return undefined;
}

function describeIssue(value: unknown, issue: z.core.$ZodIssue | undefined): string {
  if (issue === undefined) return 'the message does not match the wire format';
  const where = describePath(value, issue.path);
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!isObject) return `a message must be a JSON object, got ${kindOf(value)}`;
  const got = kindOf(valueAt(value, issue.path));
  switch (issue.code) {
    case 'invalid_union':
    case 'invalid_value':
      if (issue.path.length === 1 && issue.path[0] === 'type') {
        // a string is quoted; anything else is named by its kind (JSON.stringify of a deeply nested value would overflow)
        const type = valueAt(value, issue.path);
        return `type must be "session" or "snapshot", got ${typeof type === 'string' ? JSON.stringify(type) : kindOf(type)}`;
      }
      return `${where}: ${issue.message}`;
    case 'invalid_type':
      if (got === 'nothing') return `${where} is required but missing`;
      return `${where} must be ${expectedPhrase(issue.expected)}, got ${got}`;
    case 'too_small':
      if (issue.origin === 'string') return `${where} must not be empty`;
      return `${where} must be at least ${String(issue.minimum)}, got ${JSON.stringify(valueAt(value, issue.path))}`;
    case 'too_big':
      return `${where} must be at most ${String(issue.maximum)}, got ${JSON.stringify(valueAt(value, issue.path))}`;
    default:
      return `${where}: ${issue.message}`;
  }
}

function expectedPhrase(expected: string): string {
  if (expected === 'int') return 'an integer';
  if (expected === 'number') return 'a finite number';
  if (expected === 'array') return 'an array';
  if (expected === 'object') return 'an object';
  return `a ${expected}`;
}

function describePath(root: unknown, path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'the message';
  const parts: string[] = [];
  for (let i = 0; i < path.length; i++) {
    const key = path[i];
    if (typeof key === 'number' && path[i - 1] === 'spans') {
      const span = valueAt(root, path.slice(0, i + 1));
      const id = typeof span === 'object' && span !== null ? (span as { span_id?: unknown }).span_id : undefined;
      parts[parts.length - 1] = `span ${key}${typeof id === 'string' ? ` (${JSON.stringify(id)})` : ''}`;
    } else if (typeof key === 'number') {
      parts[parts.length - 1] = `${parts[parts.length - 1] ?? ''}[${key}]`;
    } else {
      parts.push(String(key));
    }
  }
  return parts.join(' ');
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = root;
  for (const key of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

function kindOf(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'number' && !Number.isInteger(v)) return `the number ${v}`;
  if (typeof v === 'number') return `the integer ${v}`;
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)}`;
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

// ---------------------------------------------------------------- fast path
// Mirrors wire.ts exactly; any change there must be made here (the property test fails otherwise).

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
// zod's .int() accepts safe integers only (|n| ≤ 2^53 − 1): 1e20 is not a turn or a count
const isNatural = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const optional = (v: unknown, check: (x: unknown) => boolean): boolean => v === undefined || check(v);
const isStringArray = (v: unknown): boolean => {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string') return false;
  return true;
};
const isFiniteNum = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);

export function fastAccepts(value: unknown): boolean {
  return fastCheck(value, null);
}

/** fastAccepts; given `out`, a snapshot's spans are written into `out.table` as they are checked. */
function fastCheck(value: unknown, out: { table: SpanTable | null } | null): boolean {
  if (!isObj(value)) return false;
  if (typeof value.session_id !== 'string' || value.session_id.length === 0) return false;
  if (value.type === 'snapshot') return fastSnapshot(value, out);
  if (value.type === 'session') return fastHeader(value);
  return false;
}

function fastHeader(h: Record<string, unknown>): boolean {
  if (!optional(h.title, (v) => typeof v === 'string')) return false;
  if (!optional(h.started_at, (v) => typeof v === 'string')) return false;
  if (h.config === undefined) return true;
  const c = h.config;
  if (!isObj(c)) return false;
  const nonNeg = (v: unknown): boolean => isFiniteNum(v) && (v as number) >= 0;
  const intAtLeast =
    (min: number) =>
    (v: unknown): boolean =>
      isNatural(v) && (v as number) >= min;
  return (
    optional(c.relevance_tolerance, nonNeg) &&
    optional(c.drift_turns, intAtLeast(1)) &&
    optional(c.max_rewrites, intAtLeast(0)) &&
    optional(c.min_scored, intAtLeast(0)) &&
    optional(c.spread_floor, nonNeg) &&
    optional(c.collapse_turns, intAtLeast(1)) &&
    optional(c.reference_agreement_floor, (v) => isFiniteNum(v) && (v as number) >= -1 && (v as number) <= 1)
  );
}

function fastSnapshot(s: Record<string, unknown>, out: { table: SpanTable | null } | null): boolean {
  if (!snapshotFields(s)) return false;
  const spans = s.spans;
  if (!Array.isArray(spans)) return false;
  const table = out === null ? null : (out.table = new SpanTable(spans.length));
  for (let i = 0; i < spans.length; i++) if (!fastSpan(spans[i], table, i)) return false;
  return true;
}

/** A snapshot's own fields but `spans`. */
function snapshotFields(s: Record<string, unknown>): boolean {
  if (typeof s.turn !== 'number' || !Number.isSafeInteger(s.turn)) return false;
  if (!optional(s.ts, (v) => typeof v === 'string')) return false;
  if (!optional(s.pruned, isStringArray)) return false;
  if (s.rewrite !== undefined) {
    const r = s.rewrite;
    if (!isObj(r) || !isNatural(r.spans_modified) || !isNatural(r.scores_invalidated)) return false;
    if (!optional(r.modified_span_ids, isStringArray) || !optional(r.invalidated_span_ids, isStringArray)) return false;
  }
  return true;
}

/** Each field is read once, into a local: a span object's property reads are the costly part (see spanTable.ts). */
function fastSpan(v: unknown, table: SpanTable | null, i: number): boolean {
  if (!isObj(v)) return false;
  const sp = v as Partial<Record<keyof Span, unknown>>;
  const id = sp.span_id;
  const text = sp.text;
  if (typeof id !== 'string' || typeof text !== 'string') return false;
  const score = sp.score;
  if (score !== null && !isFiniteNum(score)) return false;
  const claim = sp.text_sha256;
  if (claim !== null && typeof claim !== 'string') return false;
  const tokens = sp.tokens;
  if (tokens !== undefined && !isNatural(tokens)) return false;
  const rewrites = sp.rewrite_count;
  if (rewrites !== undefined && !isNatural(rewrites)) return false;
  const parents = sp.derived_from;
  if (parents !== undefined && !isStringArray(parents)) return false;
  const pinned = sp.pinned;
  if (pinned !== undefined && typeof pinned !== 'boolean') return false;
  const role = sp.role;
  if (role !== undefined && typeof role !== 'string') return false;
  table?.set(
    i,
    id,
    text,
    score as number | null,
    claim as string | null,
    tokens as number | undefined,
    rewrites as number | undefined,
    parents as string[] | undefined,
    pinned as boolean | undefined,
    role as string | undefined,
  );
  return true;
}
