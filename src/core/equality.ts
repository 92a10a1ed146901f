// SPEC §2 replayed frames: "a snapshot equal (as parsed JSON) to one already received".
import type { SpanTable } from './spanTable.ts';

/** Deep equality of two parsed JSON values (object key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.hasOwn(b, k)) return false;
    if (!jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/**
 * Per span of the previous fingerprinted snapshot, by index: the hash of its id and text
 * (`spanHead`), so that a span with the same id and text costs no string work.
 */
export type TextHashes = Int32Array;

export const NO_TEXT_HASHES: TextHashes = new Int32Array(0);

/** What the caller already knows of span i, so that an unchanged span costs no string work. */
export interface SpanFacts {
  /** the index in the previous fingerprinted snapshot of the span with this id and this very text, or −1 (none, or not known) */
  sameTextAt(i: number): number;
  /** its text_sha256, when set, equals sha256 of its text */
  claimMatches(i: number): boolean;
}

/**
 * SPEC §2: "a snapshot equal (as parsed JSON) to one already received" is a replay. The
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
 * wrote them there; see spanTable.ts); the span objects are only enumerated, for fields the
 * wire format does not name.
 */
export function snapshotFingerprint(snap: { spans: readonly object[] }, table: SpanTable, memo: TextHashes, facts: SpanFacts): { hash: number; memo: TextHashes } {
  const spans = snap.spans;
  const n = spans.length;
  const hashes = new Int32Array(n);
  let spansHash = 0x5bd1e995 ^ n;
  for (let i = 0; i < n; i++) {
    const j = facts.sameTextAt(i);
    const head = j >= 0 && j < memo.length ? memo[j]! : spanHead(table.ids[i]!, valueHash(table.texts[i]!));
    hashes[i] = head;
    const claim = table.claims[i]!;
    const claimHash = claim !== null && claim !== '' && facts.claimMatches(i) ? CLAIM_MATCHES_TEXT : valueHash(claim);
    spansHash = Math.imul(spansHash ^ spanHash(spans[i]!, table, i, head, claimHash), 0x01000193);
  }
  let sum = 0;
  let keys = 0;
  for (const key in snap) {
    const v = (snap as Record<string, unknown>)[key];
    sum = (sum + entryHash(key, key === 'spans' ? fmix(spansHash) : valueHash(v))) | 0;
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

function valueHash(v: unknown): number {
  if (v === null) return 0x3c6ef372;
  switch (typeof v) {
    case 'string':
      return fmix(stringHash(v) ^ 0x1b873593);
    case 'number':
      return numberHash(v);
    case 'boolean':
      return v ? 0x2545f491 : 0x4f1bbcdd;
    case 'object': {
      if (Array.isArray(v)) {
        let h = 0x7feb352d ^ v.length;
        for (let i = 0; i < v.length; i++) h = Math.imul(h ^ valueHash(v[i]), 0x01000193);
        return fmix(h);
      }
      return objectHash(v);
    }
    default:
      return 0x68e31da4;
  }
}

/** Order-independent: the entries' hashes are summed. */
function objectHash(o: object): number {
  let sum = 0;
  let keys = 0;
  for (const key in o) {
    sum = (sum + entryHash(key, valueHash((o as Record<string, unknown>)[key]))) | 0;
    keys++;
  }
  return fmix(sum ^ Math.imul(keys, 0x165667b1));
}

const ABSENT = 0x2f0f5d1b;

/** The start of a span's hash: its id and its text's hash. */
function spanHead(id: string, textHash: number): number {
  return Math.imul(Math.imul(0x9747b28c ^ fmix(stringHash(id)), 0x01000193) ^ textHash, 0x01000193);
}

/**
 * Span i, validated: the wire format's fields by name (so their order does not matter),
 * from its `spanHead` and its text_sha256's hash, then any unknown fields of the object.
 */
function spanHash(span: object, t: SpanTable, i: number, head: number, claimHash: number): number {
  const score = t.scores[i]!;
  let h = Math.imul(head ^ (Number.isNaN(score) ? ABSENT ^ 1 : numberHash(score)), 0x01000193);
  h = Math.imul(h ^ claimHash, 0x01000193);
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
  let unknown = 0;
  let keys = 0;
  for (const key in span) {
    keys++;
    if (!isSpanKey(key)) unknown = (unknown + entryHash(key, valueHash((span as Record<string, unknown>)[key]))) | 0;
  }
  return fmix(h ^ unknown ^ Math.imul(keys, 0x165667b1));
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
