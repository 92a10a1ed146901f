// Okapi BM25 (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and
// Beyond", 2009) over the spans of one snapshot: the corpus is the live buffer itself, so
// a term common to every span weighs little. Pure and deterministic: the same texts give
// the same numbers in the Worker and the CLI (contract §7 reference scorer).
import { grownTo } from './arrays.ts';
import { eachWordRun, wordClass } from './wordRuns.ts';

/** The usual constants: term-frequency saturation and length normalisation. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** A text's terms: runs of letters and digits (any script), lower-cased. */
export function terms(text: string): string[] {
  const out: string[] = [];
  eachTerm(text, (t) => out.push(t));
  return out;
}

/** Each of the text's terms in order, to `visit`: no list of them all (a 5 MB text has ~800,000). */
function eachTerm(text: string, visit: (term: string) => void): void {
  // the same as text.toLowerCase().match(/[\p{L}\p{N}]+/gu) (the property test holds them
  // equal), a few times faster: the regular expression's Unicode classes are slow per char
  const lower = text.toLowerCase();
  eachWordRun(lower, TERM_CLASS, (start, end) => visit(lower.slice(start, end)));
}

/** a term's code points: letters and digits, any script */
const TERM_CLASS = wordClass('\\p{L}\\p{N}');

/** Term numbers below this fit beside a term's two-code-unit prefix in one float (2^21 · 2^32 = 2^53). */
const ID_SPACE = 2 ** 21;

/**
 * A term's first two UTF-16 code units as one number (c0 · 65536 + c1, 0 past the end): two
 * terms in this order are in the same order as strings, or share the prefix. (0 is below
 * every code unit, so a term that ends sorts before those that go on, as strings do.)
 */
function prefixKey(term: string): number {
  return (term.length > 0 ? term.charCodeAt(0) * 65536 : 0) + (term.length > 1 ? term.charCodeAt(1) : 0);
}

/**
 * Terms numbered in order of first sight. One per scorer (a session): a document is a
 * list of term numbers, so finding the query's terms in it is a walk over small integers,
 * not a hash lookup per query term and document (contract §7 reference scorer: the scores
 * do not depend on the numbering). It grows with the session's distinct terms.
 */
export class TermDictionary {
  private readonly ids = new Map<string, number>();
  /** per term number: the term itself */
  private readonly names: string[] = [];
  /** per term number: its position in the query being scored, −1 when not in it */
  private queryPosition = new Int32Array(256).fill(-1);
  /** per term number: its first two code units as one number, the first key of its sort order ({@link prefixKey}) */
  private prefix = new Float64Array(256);
  /** room for the sort keys of one document's terms */
  private sortKeys = new Float64Array(256);
  /** per term number: occurrences in the document being counted, back to zero between documents */
  private counted = new Int32Array(256);
  /** the query last prepared (its distinct term numbers) and a number that changes when it does */

  id(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.names.length;
      this.ids.set(term, id);
      this.names.push(term);
      this.prefix = grownTo(this.prefix, id + 1);
      this.prefix[id] = prefixKey(term);
    }
    return id;
  }

  get size(): number {
    return this.names.length;
  }

  /** The term numbered `id`. */
  term(id: number): string {
    return this.names[id]!;
  }

  /**
   * A document's distinct term numbers (in order of first occurrence) and how often each
   * occurs. Unordered: scoring sums a document's terms in the query's order, whatever theirs.
   */
  count(all: readonly string[]): { ids: Int32Array; counts: Int32Array } {
    const distinct: number[] = [];
    for (const t of all) {
      const id = this.id(t);
      if (this.tallyOne(id, 1)) distinct.push(id);
    }
    return this.takeTally(Int32Array.from(distinct));
  }

  /** count(terms(text)) and the number of terms, each term tallied as it is read (no list of them all). */
  countText(text: string): { ids: Int32Array; counts: Int32Array; length: number } {
    const distinct: number[] = [];
    let length = 0;
    eachTerm(text, (t) => {
      length++;
      const id = this.id(t);
      if (this.tallyOne(id, 1)) distinct.push(id);
    });
    const { ids, counts } = this.takeTally(Int32Array.from(distinct));
    // a literal, not `{ ...tally, length }`: objects copied by spread took on hidden classes
    // of their own, and the loads of `ids` and `counts` from them missed V8's caches
    return { ids, counts, length };
  }

  /**
   * The term counts of several documents added up, as if their texts were one (a query made
   * of parts), in the sorted order of the terms themselves: the order a query is summed in.
   */
  sum(parts: readonly { ids: Int32Array; counts: Int32Array }[]): { ids: Int32Array; counts: Int32Array } {
    const distinct: number[] = [];
    for (const p of parts) for (let k = 0; k < p.ids.length; k++) if (this.tallyOne(p.ids[k]!, p.counts[k]!)) distinct.push(p.ids[k]!);
    return this.takeTally(this.inTermOrder(distinct));
  }

  /**
   * Term numbers in the sorted order of their terms: the default order of
   * Array.prototype.sort on strings (UTF-16 code units). Each number is sorted as one
   * float, its term's first two code units above the number itself, by the typed array's
   * own numeric sort (no comparator called per comparison, ~4× faster than sorting the
   * strings); terms that share their first two code units are then put in order among
   * themselves by comparing the strings.
   */
  private inTermOrder(distinct: readonly number[]): Int32Array {
    const n = distinct.length;
    const out = new Int32Array(n);
    if (this.names.length > ID_SPACE) {
      // more terms than the float has room for beside the prefix: the plain way
      const sorted = distinct.map((id) => this.names[id]!).sort();
      for (let i = 0; i < n; i++) out[i] = this.ids.get(sorted[i]!)!;
      return out;
    }
    if (this.sortKeys.length < n) this.sortKeys = new Float64Array(Math.max(n, 2 * this.sortKeys.length));
    const keys = this.sortKeys.subarray(0, n);
    for (let i = 0; i < n; i++) keys[i] = this.prefix[distinct[i]!]! * ID_SPACE + distinct[i]!;
    keys.sort();
    for (let i = 0; i < n; i++) out[i] = keys[i]! % ID_SPACE;
    // runs of terms with the same prefix, in order by the whole term: short ones by insertion,
    // long ones (a listing of ids sharing a prefix, say) by sorting their strings
    for (let i = 0; i < n;) {
      const prefix = Math.floor(keys[i]! / ID_SPACE);
      let j = i + 1;
      while (j < n && Math.floor(keys[j]! / ID_SPACE) === prefix) j++;
      if (j - i > 16) {
        const run = Array.from(out.subarray(i, j), (id) => this.names[id]!).sort();
        for (let a = i; a < j; a++) out[a] = this.ids.get(run[a - i]!)!;
        i = j;
        continue;
      }
      for (let a = i + 1; a < j; a++) {
        const id = out[a]!;
        const name = this.names[id]!;
        let b = a - 1;
        while (b >= i && this.names[out[b]!]! > name) {
          out[b + 1] = out[b]!;
          b--;
        }
        out[b + 1] = id;
      }
      i = j;
    }
    return out;
  }

  /** Counts `by` more of the term; true when it is the first of it in this tally. */
  private tallyOne(id: number, by: number): boolean {
    if (id >= this.counted.length) this.counted = grownTo(this.counted, id + 1);
    const first = this.counted[id] === 0;
    this.counted[id] = this.counted[id]! + by;
    return first;
  }

  /** The tallied terms, in the order given, with their counts; the tally is back to zero after. */
  private takeTally(ids: Int32Array): { ids: Int32Array; counts: Int32Array } {
    const counts = new Int32Array(ids.length);
    for (let i = 0; i < ids.length; i++) {
      counts[i] = this.counted[ids[i]!]!;
      this.counted[ids[i]!] = 0;
    }
    return { ids, counts };
  }

  /**
   * Per term number, its position in the query, −1 for a term not in it: the lookup table
   * for one scoring pass. Give it back with {@link releaseQuery} before the next.
   */
  markQuery(queryIds: readonly number[]): Int32Array {
    if (this.queryPosition.length < this.names.length) {
      this.queryPosition = new Int32Array(Math.max(this.names.length, 2 * this.queryPosition.length)).fill(-1);
    }
    const position = this.queryPosition;
    for (let q = 0; q < queryIds.length; q++) position[queryIds[q]!] = q;
    return position;
  }

  releaseQuery(queryIds: readonly number[]): void {
    for (let q = 0; q < queryIds.length; q++) this.queryPosition[queryIds[q]!] = -1;
  }
}

/** What BM25 needs of one document: its length in terms and how often each (numbered) term occurs. */
export interface TermCounts {
  length: number;
  /** the distinct terms' numbers, in order of first occurrence */
  ids: Int32Array;
  /** occurrences of ids[i] */
  counts: Int32Array;
  /**
   * Its place in its session's {@link Bm25Buffer} while it is in the buffer: its number
   * there (−1: not in it) and, per distinct term, where it stands in that term's posting
   * list. A span unchanged from turn to turn stays indexed, and is not looked through again
   * when the session's task (the query) changes.
   */
  handle: number;
  slots: Int32Array | null;
  /** the last turn of its session's {@link Bm25Buffer} this document was in (−1: none) */
  seenTurn: number;
}

export function termCounts(text: string, dictionary: TermDictionary): TermCounts {
  const { ids, counts, length } = dictionary.countText(text);
  return { length, ids, counts, handle: -1, slots: null, seenTurn: -1 };
}

/** A query ready to score with: its distinct terms numbered in sorted order, and how often each was asked. */
export interface PreparedQuery {
  /** term numbers, in the sorted order of the terms themselves */
  ids: readonly number[];
  /** occurrences in the query of ids[q] */
  multiplicity: readonly number[];
}

/** The query's distinct terms in sorted order (a repeated term counts once per occurrence). */
export function prepareQuery(query: readonly string[], dictionary: TermDictionary): PreparedQuery {
  return preparedFrom(dictionary.sum([dictionary.count(query)]));
}

/** The query whose text is the parts' texts one after the other (each part's terms already counted). */
export function prepareQueryOf(parts: readonly TermCounts[], dictionary: TermDictionary): PreparedQuery {
  return preparedFrom(dictionary.sum(parts));
}

function preparedFrom(tally: { ids: Int32Array; counts: Int32Array }): PreparedQuery {
  return { ids: Array.from(tally.ids), multiplicity: Array.from(tally.counts) };
}

/**
 * BM25 of each document against the query, in document order. idf is the non-negative
 * form ln(1 + (N − df + 0.5) / (df + 0.5)), so a term in every span still counts a little
 * and no score is negative. A repeated query term counts once per occurrence. Terms are
 * summed in sorted order, so the result does not depend on the query's order. The
 * documents' counts must come from the same dictionary.
 */
export function bm25(query: readonly string[], docs: readonly TermCounts[], dictionary: TermDictionary): number[] {
  return bm25Prepared(prepareQuery(query, dictionary), docs, dictionary);
}

/**
 * {@link bm25} with the query prepared once, from scratch: the plain form {@link Bm25Buffer}
 * is held to. Term at a time, in the query's (sorted) order: each document's score adds its
 * terms in that order, the textbook loop's floating-point result.
 */
export function bm25Prepared(query: PreparedQuery, docs: readonly TermCounts[], dictionary: TermDictionary): number[] {
  const n = docs.length;
  const m = query.ids.length;
  if (n === 0 || m === 0) return new Array<number>(n).fill(0);
  // per query term: the (document, count) pairs of the documents holding it
  const postings: number[][] = Array.from({ length: m }, () => []);
  let totalLength = 0;
  const position = dictionary.markQuery(query.ids);
  for (let i = 0; i < n; i++) {
    const d = docs[i]!;
    totalLength += d.length;
    for (let k = 0; k < d.ids.length; k++) {
      const q = position[d.ids[k]!]!;
      if (q >= 0) postings[q]!.push(i, d.counts[k]!);
    }
  }
  dictionary.releaseQuery(query.ids);
  const avgdl = totalLength / n || 1;
  const out = new Array<number>(n).fill(0);
  for (let q = 0; q < m; q++) {
    const list = postings[q]!;
    const df = list.length / 2;
    if (df === 0) continue;
    const weight = idfWeight(n, df, query.multiplicity[q]!);
    for (let j = 0; j < list.length; j += 2) {
      const i = list[j]!;
      out[i] = out[i]! + termScore(weight, list[j + 1]!, lengthNorm(docs[i]!.length, avgdl));
    }
  }
  return out;
}

/** A query term's weight: the non-negative idf of its df among n documents, times how often the query asks for it. */
function idfWeight(n: number, df: number, multiplicity: number): number {
  return idf(n, df) * multiplicity;
}

/** The non-negative idf of a term in `df` of `n` documents. */
function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** BM25's length normalisation of a document of `length` terms. */
function lengthNorm(length: number, avgdl: number): number {
  return BM25_K1 * (1 - BM25_B + (BM25_B * length) / avgdl);
}

/** One term's share of a document's score: `f` occurrences, the document's `norm`. */
function termScore(weight: number, f: number, norm: number): number {
  return (weight * (f * (BM25_K1 + 1))) / (f + norm);
}

/**
 * BM25 turn after turn over one session's buffer, the same numbers as {@link bm25Prepared},
 * from an inverted index of the documents in the buffer: per term, a posting list of the
 * documents holding it (with the count), updated by the documents that came and went (most
 * stay from one turn to the next). A term's df is its list's length, and a turn is scored
 * term at a time in the query's (sorted) order, so each document's sum takes its terms in
 * the same order as {@link bm25Prepared}'s and gives the same bits. A new query (the
 * session's task changed: nearly every other turn in the bench transcript) costs nothing
 * more than an unchanged one: no document is looked through again. Each document belongs to
 * one buffer.
 */
export class Bm25Buffer {
  /** per term number: (handle, slot index in the document, count) triples of the documents holding it */
  private postings: Int32Array[] = [];
  /** per term number: how many triples its posting list holds (its df) */
  private postingLength = new Int32Array(256);
  /** the documents in the buffer by handle, and the handles free for new ones */
  private byHandle: (TermCounts | null)[] = [];
  private freeHandles: number[] = [];
  /** per handle: the document's length normalisation and its score, this turn */
  private norm = new Float64Array(256);
  private sum = new Float64Array(256);
  private totalLength = 0;
  private turn = 0;
  /** per df: the turn its idf was last taken in, and that idf (score) */
  private idfTurn = new Int32Array(0);
  private idfOfDf = new Float64Array(0);
  private previous: readonly TermCounts[] = [];

  constructor(private readonly dictionary: TermDictionary) {}

  /** Each document's score, in order: a new array each call, the caller's to keep or change. */
  score(query: PreparedQuery, docs: readonly TermCounts[]): number[] {
    const turn = ++this.turn;
    let repeated = false;
    for (const d of docs) {
      if (d.seenTurn === turn) repeated = true;
      else if (d.seenTurn !== turn - 1 || d.handle < 0) this.add(d);
      d.seenTurn = turn;
    }
    // left the buffer (or replaced by a rewritten text's counts)
    for (const d of this.previous) if (d.seenTurn !== turn && d.handle >= 0) this.remove(d);
    this.previous = docs;
    const n = docs.length;
    const m = query.ids.length;
    if (n === 0 || m === 0) return new Array<number>(n).fill(0);
    // the same document twice in one turn (a snapshot with a repeated span, which the engine
    // refuses but the scorer sees first) counts twice, as bm25Prepared counts it
    if (repeated) return bm25Prepared(query, docs, this.dictionary);
    const avgdl = this.totalLength / n || 1;
    const { norm, sum } = this;
    for (const d of docs) {
      norm[d.handle] = lengthNorm(d.length, avgdl);
      sum[d.handle] = 0;
    }
    // a query term's idf depends on its df alone this turn, and most terms share a few dfs
    // (1, 2, …): each df's logarithm is taken once a turn, not once a term (a task of
    // thousands of terms, as a Codex session's pinned instructions make, spent ~4% of check
    // in Math.log). The same expression, so the same bits as idfWeight.
    if (this.idfTurn.length <= n) {
      this.idfTurn = new Int32Array(2 * n + 1);
      this.idfOfDf = new Float64Array(2 * n + 1);
    }
    const { idfTurn, idfOfDf } = this;
    for (let q = 0; q < m; q++) {
      const t = query.ids[q]!;
      const df = t < this.postingLength.length ? this.postingLength[t]! : 0;
      if (df === 0) continue;
      if (idfTurn[df] !== turn) {
        idfTurn[df] = turn;
        idfOfDf[df] = idf(n, df);
      }
      const weight = idfOfDf[df]! * query.multiplicity[q]!;
      const list = this.postings[t]!;
      for (let j = 0; j < 3 * df; j += 3) {
        const h = list[j]!;
        const f = list[j + 2]!;
        sum[h] = sum[h]! + termScore(weight, f, norm[h]!);
      }
    }
    const out = new Array<number>(n);
    for (let i = 0; i < n; i++) out[i] = sum[docs[i]!.handle]!;
    return out;
  }

  /** Indexes a document that came into the buffer. */
  private add(d: TermCounts): void {
    const h = this.freeHandles.pop() ?? this.byHandle.length;
    this.byHandle[h] = d;
    if (h >= this.norm.length) {
      this.norm = grownTo(this.norm, h + 1);
      this.sum = grownTo(this.sum, h + 1);
    }
    d.handle = h;
    const ids = d.ids;
    const slots = d.slots ?? (d.slots = new Int32Array(ids.length));
    for (let k = 0; k < ids.length; k++) {
      const t = ids[k]!;
      if (t >= this.postingLength.length) this.postingLength = grownTo(this.postingLength, t + 1);
      const at = this.postingLength[t]!;
      let list = this.postings[t];
      if (list === undefined || list.length < 3 * (at + 1)) {
        const grown = new Int32Array(Math.max(12, 2 * 3 * (at + 1)));
        if (list !== undefined) grown.set(list);
        this.postings[t] = list = grown;
      }
      list[3 * at] = h;
      list[3 * at + 1] = k;
      list[3 * at + 2] = d.counts[k]!;
      slots[k] = at;
      this.postingLength[t] = at + 1;
    }
    this.totalLength += d.length;
  }

  /** Takes a document that left the buffer out of the index: each of its entries is replaced by its list's last. */
  private remove(d: TermCounts): void {
    const ids = d.ids;
    const slots = d.slots!;
    for (let k = 0; k < ids.length; k++) {
      const t = ids[k]!;
      const list = this.postings[t]!;
      const last = this.postingLength[t]! - 1;
      const at = slots[k]!;
      if (at !== last) {
        const h = list[3 * last]!;
        const lk = list[3 * last + 1]!;
        list[3 * at] = h;
        list[3 * at + 1] = lk;
        list[3 * at + 2] = list[3 * last + 2]!;
        this.byHandle[h]!.slots![lk] = at;
      }
      this.postingLength[t] = last;
    }
    this.totalLength -= d.length;
    this.byHandle[d.handle] = null;
    this.freeHandles.push(d.handle);
    d.handle = -1;
  }
}
