// contract §2 replayed frames: "a snapshot equal (as parsed JSON) to one already received".
import { exceedsNesting, MAX_NESTING } from './nesting.ts';
import type { SpanTable } from './spanTable.ts';

/**
 * Deep equality of two parsed JSON values (object key order does not matter). Iterative,
 * with its own stack: whatever the nesting, it cannot overflow the call stack.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const pending: unknown[] = [a, b];
  while (pending.length > 0) {
    const y = pending.pop();
    const x = pending.pop();
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) pending.push(x[i], y[i]);
      continue;
    }
    if (Array.isArray(y)) return false;
    const kx = Object.keys(x);
    if (kx.length !== Object.keys(y).length) return false;
    for (const k of kx) {
      if (!Object.hasOwn(y, k)) return false;
      pending.push((x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k]);
    }
  }
  return true;
}

/**
 * Per span of the previous fingerprinted snapshot, by index, two: the hash of its id and
 * text (`spanHead`), and of all its values but the score (`restHash`), so that a span with
 * the same id and text costs no string work, and one with every value but its score the
 * same (most spans of most turns) no hashing at all but its score's.
 */
export type TextHashes = Int32Array;

export const NO_TEXT_HASHES: TextHashes = new Int32Array(0);

/** What the caller already knows of span i, so that an unchanged span costs no string work. */
export interface SpanFacts {
  /** the index in the previous fingerprinted snapshot of the span with this id and this very text, or −1 (none, or not known) */
  sameTextAt(i: number): number;
  /** its text_sha256, when set, equals sha256 of its text */
  claimMatches(i: number): boolean;
  /** the previous fingerprinted snapshot's table (the one `memo` is of), or null */
  previous: SpanTable | null;
}

/**
 * contract §2: "a snapshot equal (as parsed JSON) to one already received" is a replay. The
 * previous snapshot is compared exactly with jsonEqual; for older ones the engine keeps
 * this 32-bit hash per accepted turn instead of every snapshot. It covers every value of
 * the parsed snapshot and ignores object key order, so a replay re-serialised with other
 * spacing, key order or number spelling is still recognised, and a different snapshot
 * (one changed score, anywhere in a long line) is not mistaken for one.
 *
 * Span texts and their sha256 are the bulk of a line, and the analysis has already
 * compared them: a span whose id and text are unchanged reuses their hash from `memo` (the
 * previous snapshot's, by index; the returned one replaces it), and a text_sha256 that
 * matches its text counts as "matches" (it is then a function of the text), so only
 * changed spans are hashed. The wire format's span fields are read from `table` (validation
 * wrote them there; see spanTable.ts), and so is the hash of the fields it does not name
 * (`spanObjectHash`: validation enumerates each span's keys for the nesting limit anyway).
 */
export function snapshotFingerprint(
  snap: { spans: readonly object[] },
  table: SpanTable,
  memo: TextHashes,
  facts: SpanFacts,
): { hash: number; memo: TextHashes } {
  const n = snap.spans.length;
  const hashes = new Int32Array(2 * n);
  const previous = facts.previous;
  let spansHash = 0x5bd1e995 ^ n;
  for (let i = 0; i < n; i++) {
    const j = facts.sameTextAt(i);
    const known = j >= 0 && 2 * j + 1 < memo.length;
    const head = known ? memo[2 * j]! : spanHead(table.ids[i]!, stringValueHash(table.texts[i]!));
    let rest: number;
    // the same id and text, and every other value but the score: the same hash of them (a
    // text_sha256 then matches its text as it did)
    if (known && previous !== null && sameButScore(table, i, previous, j)) rest = memo[2 * j + 1]!;
    else {
      const claim = table.claims[i]!;
      const claimHash = claim !== null && claim !== '' && facts.claimMatches(i) ? CLAIM_MATCHES_TEXT : claim === null ? NULL_HASH : stringValueHash(claim);
      rest = restHash(table, i, head, claimHash);
    }
    hashes[2 * i] = head;
    hashes[2 * i + 1] = rest;
    const score = table.scores[i]!;
    spansHash = Math.imul(spansHash ^ fmix(Math.imul(rest ^ (Number.isNaN(score) ? ABSENT ^ 1 : numberHash(score)), 0x01000193)), 0x01000193);
  }
  let sum = 0;
  let keys = 0;
  for (const key in snap) {
    const v = (snap as Record<string, unknown>)[key];
    sum = (sum + entryHash(key, key === 'spans' ? fmix(spansHash) : valueHash(v, 2))) | 0;
    keys++;
  }
  return { hash: fmix(sum ^ Math.imul(keys, 0x27d4eb2f)) >>> 0, memo: hashes };
}

const CLAIM_MATCHES_TEXT = 0x61c88647;

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

function stringHash(s: string): number {
  let h = 0x811c9dc5 ^ s.length;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}

function numberHash(v: number): number {
  if ((v | 0) === v) return fmix(v ^ 0x1f83d9ab); // small integers (and -0, which equals 0 as jsonEqual says)
  f64[0] = v;
  return fmix(u32[0]! ^ Math.imul(fmix(u32[1]!), 0x9e3779b1));
}

/** murmur3's finaliser: spreads every input bit over the output */
function fmix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

const NULL_HASH = 0x3c6ef372;

function stringValueHash(s: string): number {
  return fmix(stringHash(s) ^ 0x1b873593);
}

/**
 * Set when valueHash met an array or object deeper than MAX_NESTING: the walk stops there
 * (so it cannot overflow the stack), and validation turns the message into an input error.
 */
let tooDeep = false;

/** `level`: the nesting level `v` stands at (the message is 1). */
function valueHash(v: unknown, level: number): number {
  if (v === null) return NULL_HASH;
  switch (typeof v) {
    case 'string':
      return stringValueHash(v);
    case 'number':
      return numberHash(v);
    case 'boolean':
      return v ? 0x2545f491 : 0x4f1bbcdd;
    case 'object': {
      if (level > MAX_NESTING) {
        tooDeep = true;
        return 0;
      }
      if (Array.isArray(v)) {
        let h = 0x7feb352d ^ v.length;
        for (let i = 0; i < v.length; i++) h = Math.imul(h ^ valueHash(v[i], level + 1), 0x01000193);
        return fmix(h);
      }
      return objectHash(v, level);
    }
    default:
      return 0x68e31da4;
  }
}

/** Order-independent: the entries' hashes are summed. */
function objectHash(o: object, level: number): number {
  let sum = 0;
  let keys = 0;
  for (const key in o) {
    sum = (sum + entryHash(key, valueHash((o as Record<string, unknown>)[key], level + 1))) | 0;
    keys++;
  }
  return fmix(sum ^ Math.imul(keys, 0x165667b1));
}

/**
 * The part of a span's fingerprint that comes from the span object itself: the fields the
 * wire format does not name, and how many keys it has. NaN when an unknown field nests
 * deeper than MAX_NESTING. Validation calls this (it enumerates each span's keys once, for
 * the depth limit and this hash together) and keeps the result in the SpanTable.
 */
export function spanObjectHash(span: object): number {
  const id = (span as { span_id?: unknown }).span_id;
  const memo = typeof id === 'string' ? objectMemo.get(id) : undefined;
  if (memo !== undefined && sameUnknownFields(span, memo)) return memo.hash;
  const hash = computedSpanObjectHash(span);
  if (typeof id === 'string' && !Number.isNaN(hash)) {
    const fields = memoFields(span);
    if (fields !== null) {
      if (objectMemo.size >= OBJECT_MEMO_MAX) objectMemo.clear();
      objectMemo.set(id, { keys: keyCount(span), fields, hash });
    }
  }
  return hash;
}

/**
 * The last spanObjectHash of each span id, with what it was of: the object's key count and
 * its unknown fields as (key, value) pairs in enumeration order, each value a short
 * primitive. An adapter's span of one turn has the fields of its span of the turn before
 * (`kind`, `label`, `tool`: the very strings), so comparing them costs no character work,
 * where hashing them again was a third of validation's time per span
 * (docs/perf-log/2026-12-03-per-turn.md). Any difference hashes the object again, so the
 * number is always the one computed. Bounded: emptied when full.
 */
interface ObjectMemo {
  keys: number;
  fields: unknown[];
  hash: number;
}

const objectMemo = new Map<string, ObjectMemo>();
const OBJECT_MEMO_MAX = 16_384;
/** a longer string is not kept: comparing two different strings of one length may read them */
const MEMO_MAX_CHARS = 256;

function sameUnknownFields(span: object, memo: ObjectMemo): boolean {
  const fields = memo.fields;
  let u = 0;
  let keys = 0;
  for (const key in span) {
    keys++;
    if (isSpanKey(key)) continue;
    if (u >= fields.length || fields[u] !== key || fields[u + 1] !== (span as Record<string, unknown>)[key]) return false;
    u += 2;
  }
  return keys === memo.keys && u === fields.length;
}

/** The unknown fields as (key, value) pairs, or null when one is not a short primitive (then nothing is kept). */
function memoFields(span: object): unknown[] | null {
  const fields: unknown[] = [];
  for (const key in span) {
    if (isSpanKey(key)) continue;
    const v = (span as Record<string, unknown>)[key];
    if (typeof v === 'object' && v !== null) return null;
    if (typeof v === 'string' && v.length > MEMO_MAX_CHARS) return null;
    if (typeof v === 'number' && Number.isNaN(v)) return null;
    fields.push(key, v);
  }
  return fields;
}

function keyCount(span: object): number {
  let keys = 0;
  for (const _ in span) keys++;
  return keys;
}

/**
 * Whether a field of the span that the wire format does not name nests deeper than
 * MAX_NESTING: spanObjectHash's NaN, without its hash (for an engine that keeps no replay
 * fingerprint, Engine.forgoReplays). A span stands at level 3: its fields' values at level 4.
 */
export function spanNestsTooDeep(span: object): boolean {
  for (const key in span) {
    const v = (span as Record<string, unknown>)[key];
    if (typeof v === 'object' && v !== null && !isSpanKey(key) && exceedsNesting(v, 4)) return true;
  }
  return false;
}

/** spanObjectHash from the object's own values, nothing remembered. */
function computedSpanObjectHash(span: object): number {
  tooDeep = false;
  let unknown = 0;
  let keys = 0;
  for (const key in span) {
    keys++;
    // a span stands at level 3 (message, spans, span): its fields' values at level 4
    if (!isSpanKey(key)) unknown = (unknown + entryHash(key, valueHash((span as Record<string, unknown>)[key], 4))) | 0;
  }
  return tooDeep ? Number.NaN : unknown ^ knownSpanObjectHash(keys);
}

/** spanObjectHash of a span of `keys` keys, every one a wire-format field (none unknown). */
export function knownSpanObjectHash(keys: number): number {
  return Math.imul(keys, 0x165667b1);
}

const ABSENT = 0x2f0f5d1b;

/** The start of a span's hash: its id and its text's hash. */
function spanHead(id: string, textHash: number): number {
  return Math.imul(Math.imul(0x9747b28c ^ fmix(stringHash(id)), 0x01000193) ^ textHash, 0x01000193);
}

/**
 * Span i, validated, all but its score: the wire format's fields by name (so their order
 * does not matter), from its `spanHead` and its text_sha256's hash, then any unknown fields
 * of the object. The score is mixed in last (snapshotFingerprint), so this part is kept.
 */
function restHash(t: SpanTable, i: number, head: number, claimHash: number): number {
  let h = Math.imul(head ^ claimHash, 0x01000193);
  const tokens = t.tokens[i]!;
  h = Math.imul(h ^ (Number.isNaN(tokens) ? ABSENT : numberHash(tokens)), 0x01000193);
  const rewrites = t.rewrites[i]!;
  h = Math.imul(h ^ (Number.isNaN(rewrites) ? ABSENT : numberHash(rewrites)), 0x01000193);
  const parents = t.parents[i];
  if (parents === undefined) h = Math.imul(h ^ ABSENT, 0x01000193);
  else {
    h = Math.imul(h ^ 0x7feb352d ^ parents.length, 0x01000193);
    for (let k = 0; k < parents.length; k++) h = Math.imul(h ^ fmix(stringHash(parents[k]!)), 0x01000193);
  }
  const pinned = t.pinned[i]!;
  h = Math.imul(h ^ (pinned === -1 ? ABSENT : pinned === 1 ? 0x2545f491 : 0x4f1bbcdd), 0x01000193);
  const role = t.roles[i];
  h = Math.imul(h ^ (role === undefined ? ABSENT : fmix(stringHash(role))), 0x01000193);
  return h ^ t.objectHashes[i]!;
}

/** Span i of `t` and span j of `p` hold the same values but for the score (and id and text, which the caller knows). */
function sameButScore(t: SpanTable, i: number, p: SpanTable, j: number): boolean {
  return (
    t.claims[i] === p.claims[j] &&
    sameNumber(t.tokens[i]!, p.tokens[j]!) &&
    sameNumber(t.rewrites[i]!, p.rewrites[j]!) &&
    t.pinned[i] === p.pinned[j] &&
    t.roles[i] === p.roles[j] &&
    t.objectHashes[i] === p.objectHashes[j] &&
    sameStrings(t.parents[i], p.parents[j])
  );
}

/** As numberHash tells numbers: NaN (absent) equals NaN, and 0 equals −0. */
function sameNumber(a: number, b: number): boolean {
  return a === b || (Number.isNaN(a) && Number.isNaN(b));
}

/** The same strings in the same order (both absent counts as the same). */
export function sameStrings(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

function isSpanKey(key: string): boolean {
  switch (key) {
    case 'span_id':
    case 'text':
    case 'score':
    case 'text_sha256':
    case 'tokens':
    case 'rewrite_count':
    case 'derived_from':
    case 'pinned':
    case 'role':
      return true;
    default:
      return false;
  }
}

function entryHash(key: string, hashOfValue: number): number {
  return fmix(stringHash(key) ^ Math.imul(hashOfValue, 0xcc9e2d51));
}
