// A snapshot's spans, column by column. JSON.parse gives span objects of several shapes
// (which optional fields they carry, in which order: five in the bench transcript), so
// every read of a span's property is a megamorphic lookup, and every function that reads
// them is deoptimised as each new shape turns up. Validation reads every field of every
// span anyway; it writes them here, and the analysis and the replay fingerprint read the
// columns instead of the objects. Measured on the bench transcript: with span objects of one
// shape, the analysis and the fingerprint ran ~25 µs per snapshot faster (of ~70).
import { spanObjectHash } from './equality.ts';
import type { Span } from './wire.ts';

/** A table's columns as arrays of their own (the snapshot scanner fills them as it reads). */
export type SpanColumns = Pick<SpanTable, 'ids' | 'texts' | 'scores' | 'claims' | 'tokens' | 'rewrites' | 'parents' | 'pinned' | 'roles'>;

export class SpanTable {
  readonly ids: string[];
  readonly texts: string[];
  /** a null score is NaN (a score that is set is finite) */
  readonly scores: number[];
  readonly claims: (string | null)[];
  /** an absent `tokens` is NaN */
  readonly tokens: number[];
  /** an absent `rewrite_count` is NaN */
  readonly rewrites: number[];
  readonly parents: (string[] | undefined)[];
  /** −1 absent, 0 false, 1 true */
  readonly pinned: number[];
  readonly roles: (string | undefined)[];
  /** per span, `spanObjectHash` of its object (its unknown fields and key count), for the replay fingerprint */
  readonly objectHashes: Int32Array;
  /** span id → index; validation fills it (it looks for duplicate ids), `of` too (the last of duplicates) */
  index = new Map<string, number>();

  /**
   * Room for `length` spans, each to be `set` (sized up front: 200 pushes grow each column
   * several times); or, with `columns`, those very arrays as the table's columns, each
   * `length` long and already in the table's representation (NaN, −1; not copied).
   */
  constructor(
    readonly length: number,
    columns?: SpanColumns,
  ) {
    this.ids = columns?.ids ?? new Array(length);
    this.texts = columns?.texts ?? new Array(length);
    this.scores = columns?.scores ?? new Array(length);
    this.claims = columns?.claims ?? new Array(length);
    this.tokens = columns?.tokens ?? new Array(length);
    this.rewrites = columns?.rewrites ?? new Array(length);
    this.parents = columns?.parents ?? new Array(length);
    this.pinned = columns?.pinned ?? new Array(length);
    this.roles = columns?.roles ?? new Array(length);
    this.objectHashes = new Int32Array(length);
  }

  /** The columns of spans already validated. */
  static of(spans: readonly Span[]): SpanTable {
    const t = new SpanTable(spans.length);
    for (let i = 0; i < spans.length; i++) {
      const s = spans[i]!;
      t.set(i, s.span_id, s.text, s.score, s.text_sha256, s.tokens, s.rewrite_count, s.derived_from, s.pinned, s.role);
      t.index.set(s.span_id, i);
      t.objectHashes[i] = spanObjectHash(s);
    }
    return t;
  }

  /**
   * Where span `id` stands in this table, or −1: `guess` first (a snapshot keeps the order of
   * the one before it, shifted by what was pruned), else the index. The analysis and validation
   * each walk a turn's spans against the last turn's table this way.
   */
  placeOf(id: string, guess: number): number {
    return guess < this.ids.length && this.ids[guess] === id ? guess : (this.index.get(id) ?? -1);
  }

  /**
   * Takes `spare`'s index as this table's own, to be brought up to date by the caller
   * (validation): a table no one reads any more (the engine's from two turns back), whose
   * map of ~300 ids need not be built again. `spare` is left with an empty one.
   */
  adoptIndex(spare: SpanTable): void {
    this.index = spare.index;
    spare.index = new Map();
  }

  set(
    i: number,
    id: string,
    text: string,
    score: number | null,
    claim: string | null,
    tokens: number | undefined,
    rewrites: number | undefined,
    parents: string[] | undefined,
    pinned: boolean | undefined,
    role: string | undefined,
  ): void {
    this.ids[i] = id;
    this.texts[i] = text;
    this.scores[i] = score ?? Number.NaN;
    this.claims[i] = claim;
    this.tokens[i] = tokens ?? Number.NaN;
    this.rewrites[i] = rewrites ?? Number.NaN;
    this.parents[i] = parents;
    this.pinned[i] = pinned === undefined ? -1 : pinned ? 1 : 0;
    this.roles[i] = role;
  }
}
