// The per-span half of the analysis (contract §3, §4): one pass over a snapshot's spans that
// checks each score's binding, compares each text with the previous turn's, counts tokens
// and notes every span a detector will name. The detectors (detectors.ts) read its lists.
import type { SpanTable } from './spanTable.ts';

/** sha256 of the UTF-8 bytes of `text`, as 64 lowercase hex digits. Handed in: node:crypto or a browser hash. */
export type Sha256Hex = (text: string) => string;

/** contract §4 score binding of one span. */
export const Binding = {
  Bound: 0,
  /** score is null: invalidated, awaiting recompute */
  Unscored: 1,
  /** finite score, no text_sha256 */
  Unbound: 2,
  /** text_sha256 set and ≠ sha256(text) */
  Stale: 3,
} as const;
export type Binding = (typeof Binding)[keyof typeof Binding];

export interface SpanCheck {
  readonly binding: Binding;
  /** sha256 of the text, when it was computed (only spans that carry a text_sha256). */
  readonly digest: string | undefined;
  readonly textChanged: boolean;
}

/**
 * The checks with no digest, one shared object each (by binding, then whether the text
 * changed): most spans of an agent's session carry no binding, and a new object per span per
 * turn was most of what the scan gave the collector.
 */
const UNHASHED: readonly SpanCheck[] = [Binding.Bound, Binding.Unscored, Binding.Unbound, Binding.Stale].flatMap((binding) =>
  [false, true].map((textChanged) => Object.freeze({ binding, digest: undefined, textChanged })),
);

/** What the scan needs of the previous turn. */
export interface PrevSpans {
  spans: SpanTable;
  checks: readonly SpanCheck[];
  /** per index, contract §2 estimate of the text when the span had no `tokens` (NaN otherwise); null when none had */
  estimates: Float64Array | null;
}

/** What one pass over a snapshot's spans finds: the per-span half of the analysis. */
export interface SpanScan {
  checks: SpanCheck[];
  sameTextAt: Int32Array;
  /** per index, contract §2 estimate when the span had no `tokens` (NaN otherwise); null when every span had them */
  estimates: Float64Array | null;
  /** the finite scores, in its first nScored entries */
  scores: Float64Array;
  nScored: number;
  tokensTotal: number;
  textsChanged: number;
  unbound: string[];
  stale: string[];
  unscored: string[];
  changed: string[];
  repeat: string[];
  poisoned: string[];
  /** indices of the pinned spans with a finite score */
  pinnedScored: number[];
  /** contract §4 orphaned_parent: the citing spans, their missing parents, and the distinct (citing span, missing parent) pairs */
  orphanCiters: string[];
  missingParents: Set<string>;
  orphanEdges: number;
}

// What scanSpans notes of each span, one bit each; collectLists makes the lists from them.
const STALE = 1;
const UNBOUND = 2;
const UNSCORED = 4;
const CHANGED = 8;
const REPEAT = 16;
const POISONED = 32;
/** a parent named in derived_from is not live */
const ORPHAN = 64;
const PINNED_SCORED = 128;
/** STALE … POISONED: the bits that each put the span's id on a list of their own */
const ID_LISTS = 6;
/** the bits kept when the detectors that read the id lists do not run (contract §8.1 reference scope) */
const NO_ID_LISTS = ORPHAN | PINNED_SCORED;
// Binding's values as plain constants: `Binding.Stale` is a property read, which V8 wants to have seen run
const BOUND: Binding = Binding.Bound;
const NULL_SCORE: Binding = Binding.Unscored;
const NO_HASH: Binding = Binding.Unbound;
const STALE_HASH: Binding = Binding.Stale;

/**
 * The per-span loop, kept apart from the turn-level findings, and with no branch that runs
 * only on some spans of some turns: V8 throws away a function's optimised code when code
 * it has never run is first run, and recompiles it. Together with the findings (a signal's
 * first finding comes mid-run) and pushing to the lists itself (a first stale span, orphan
 * or poisoned span mid-run), this loop went back to unoptimised code nine times in a
 * 2,000-turn run and took ~230 ms of compiling (--trace-opt). It notes what it finds in
 * `flags`, the same store on every span; collectLists, small, makes the lists.
 */
export function scanSpans(
  table: SpanTable,
  prev: PrevSpans | null,
  sha256: Sha256Hex,
  maxRewrites: number,
  archived: ReadonlySet<string>,
  /**
   * derived_from lists every parent of which was archived when last looked at, with their
   * length then. `archived` only grows, so such a list makes no orphan again: an agent's
   * compaction summary cites hundreds of replaced spans, which were looked up twice each, every
   * turn, for as long as it lived (half of this scan's time on a Claude Code session). A list is
   * known by its array, which the engine's callers never change once handed over (an adapter
   * hands the same array on turn after turn; a parsed line makes new ones); its length is kept
   * so that one grown in place is looked at again.
   */
  settledParents: WeakMap<readonly string[], number>,
  /**
   * false where no detector reading the id lists (stale … poisoned, changed) runs, nor the
   * verdict's recompute and drop lists made of them (contract §8.1 reference scope): they stay
   * empty, so an agent's session, every span of which is unscored for a caller that reads no
   * score, does not list every id every turn
   */
  idLists = true,
): SpanScan {
  const keep = idLists ? 0xff : NO_ID_LISTS;
  const { ids, texts, index } = table;
  const n = ids.length;
  const checks: SpanCheck[] = new Array(n);
  const sameTextAt = new Int32Array(n);
  const flags = new Uint8Array(n);
  let estimates: Float64Array | null = null;
  const scores = new Float64Array(n);
  let nScored = 0;
  let tokensTotal = 0;
  let textsChanged = 0;

  const prevTexts = prev?.spans.texts;
  const prevChecks = prev?.checks;
  // where the previous snapshot's span of the next id is expected: the same order, shifted by what was pruned
  let cursor = 0;
  for (let i = 0; i < n; i++) {
    const id = ids[i]!;
    const text = texts[i]!;
    const j = prev === null ? -1 : prev.spans.placeOf(id, cursor);
    if (j >= 0) cursor = j + 1;
    const sameText = j >= 0 && prevTexts![j] === text;
    const textChanged = j >= 0 && !sameText;
    sameTextAt[i] = sameText ? j : -1;

    let tokens = table.tokens[i]!;
    if (Number.isNaN(tokens)) {
      // contract §2: absent → ceil(code points / 4); an unchanged text reuses its estimate, not a count the harness sent last turn
      const before = sameText && prev!.estimates !== null ? prev!.estimates[j]! : Number.NaN;
      tokens = Number.isNaN(before) ? estimateTokens(text) : before;
      estimates ??= new Float64Array(n).fill(Number.NaN);
      estimates[i] = tokens;
    }
    tokensTotal += tokens;

    const score = table.scores[i]!;
    const scoreIsNull = Number.isNaN(score);
    const claimed = table.claims[i]!;
    let binding: Binding;
    let digest: string | undefined;
    if (claimed !== null && claimed !== '') {
      // Do not rehash a text already hashed last turn: most spans of most turns are unchanged.
      digest = sameText ? prevChecks![j]!.digest : undefined;
      digest ??= sha256(text);
      binding = digest !== claimed ? STALE_HASH : scoreIsNull ? NULL_SCORE : BOUND;
    } else {
      binding = scoreIsNull ? NULL_SCORE : NO_HASH;
    }
    if (!scoreIsNull) scores[nScored++] = score;
    const rewrites = table.rewrites[i]! || 0; // NaN (absent) → 0
    let orphan = false;
    const parents = table.parents[i];
    if (parents !== undefined && settledParents.get(parents) !== parents.length) {
      let settled = true;
      for (let k = 0; k < parents.length; k++) {
        const parent = parents[k]!;
        const isArchived = archived.has(parent);
        settled &&= isArchived;
        orphan ||= !isArchived && parent !== id && !index.has(parent);
      }
      if (settled) settledParents.set(parents, parents.length);
    }
    flags[i] =
      ((binding === STALE_HASH ? STALE : binding === NO_HASH ? UNBOUND : 0) |
        (textChanged ? CHANGED : 0) |
        (scoreIsNull ? UNSCORED : table.pinned[i] === 1 ? PINNED_SCORED : 0) |
        (rewrites === maxRewrites ? REPEAT : rewrites > maxRewrites ? POISONED : 0) |
        (orphan ? ORPHAN : 0)) &
      keep;
    textsChanged += textChanged ? 1 : 0;

    checks[i] = digest === undefined ? UNHASHED[binding * 2 + (textChanged ? 1 : 0)]! : { binding, digest, textChanged };
  }
  const lists = collectLists(table, flags, archived);
  return {
    checks,
    sameTextAt,
    estimates,
    scores,
    nScored,
    tokensTotal,
    textsChanged,
    unbound: lists.unbound,
    stale: lists.stale,
    unscored: lists.unscored,
    changed: lists.changed,
    repeat: lists.repeat,
    poisoned: lists.poisoned,
    pinnedScored: lists.pinnedScored,
    orphanCiters: lists.orphanCiters,
    missingParents: lists.missingParents,
    orphanEdges: lists.orphanEdges,
  };
}

type SpanLists = Pick<
  SpanScan,
  'unbound' | 'stale' | 'unscored' | 'changed' | 'repeat' | 'poisoned' | 'pinnedScored' | 'orphanCiters' | 'missingParents' | 'orphanEdges'
>;

/** scanSpans' lists, in snapshot order, from its flags. */
function collectLists(table: SpanTable, flags: Uint8Array, archived: ReadonlySet<string>): SpanLists {
  const { ids, index } = table;
  const lists: SpanLists = {
    unbound: [],
    stale: [],
    unscored: [],
    changed: [],
    repeat: [],
    poisoned: [],
    pinnedScored: [],
    orphanCiters: [],
    missingParents: new Set(),
    orphanEdges: 0,
  };
  // The six id lists by their bit (STALE … POISONED), filled at one push: a list's first
  // entry mid-run then runs code that has run before. With a push of its own per list, each
  // list's first entry (a first stale span at turn 121) deoptimised this loop: five times in
  // a 2,000-turn run, each a recompile.
  const byBit = [lists.stale, lists.unbound, lists.unscored, lists.changed, lists.repeat, lists.poisoned];
  for (let i = 0; i < flags.length; i++) {
    const f = flags[i]!;
    if (f === 0) continue;
    const id = ids[i]!;
    for (let b = 0; b < ID_LISTS; b++) if ((f & (1 << b)) !== 0) byBit[b]!.push(id);
    if (f & PINNED_SCORED) lists.pinnedScored.push(i);
    if (f & ORPHAN) {
      // contract §4 orphaned_parent: distinct (citing span, missing parent) pairs
      const missingHere = new Set<string>();
      for (const parent of table.parents[i]!) if (parent !== id && !index.has(parent) && !archived.has(parent)) missingHere.add(parent);
      lists.orphanEdges += missingHere.size;
      lists.orphanCiters.push(id);
      for (const p of missingHere) lists.missingParents.add(p);
    }
  }
  return lists;
}

/** contract §2: absent tokens → ceil(code points / 4). */
export function estimateTokens(text: string): number {
  let codePoints = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) codePoints--;
  }
  return Math.ceil(codePoints / 4);
}
