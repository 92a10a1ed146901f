// Okapi BM25 (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and
// Beyond", 2009) over the spans of one snapshot: the corpus is the live buffer itself, so
// a term common to every span weighs little. Pure and deterministic: the same texts give
// the same numbers in the Worker and the CLI (contract §7 reference scorer).

/** The usual constants: term-frequency saturation and length normalisation. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** A text's terms: runs of letters and digits (any script), lower-cased. */
export function terms(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * Terms numbered in order of first sight. One per scorer (a session): a document is a
 * sorted list of term numbers, so finding the query's terms in it is a walk over small
 * integers, not a hash lookup per query term and document (contract §7 reference scorer:
 * the scores do not depend on the numbering). It grows with the session's distinct terms.
 */
export class TermDictionary {
  private readonly ids = new Map<string, number>();
  /** the query last scored (its sorted distinct terms) and a number that changes when it does */
  private queryKey = '';
  private queryVersion = 0;
  /** per term number: its position in the query being scored, −1 when not in it */
  private queryPosition = new Int32Array(256).fill(-1);

  id(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(term, id);
    }
    return id;
  }

  get size(): number {
    return this.ids.size;
  }

  /** A number for this query (its sorted distinct terms), the same as last time when it did not change. */
  versionOf(unique: readonly string[]): number {
    const key = unique.join('\u0000');
    if (key !== this.queryKey) {
      this.queryKey = key;
      this.queryVersion++;
    }
    return this.queryVersion;
  }

  /** Marks the query's term numbers with their positions for the length of `use`. */
  withQuery<T>(queryIds: readonly number[], use: (position: Int32Array) => T): T {
    if (this.queryPosition.length < this.ids.size) {
      const grown = new Int32Array(Math.max(this.ids.size, 2 * this.queryPosition.length)).fill(-1);
      this.queryPosition = grown;
    }
    const position = this.queryPosition;
    queryIds.forEach((id, q) => (position[id] = q));
    try {
      return use(position);
    } finally {
      for (const id of queryIds) position[id] = -1;
    }
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
   * The query's terms this document holds, flat as [position, count, position, count, …] in query order,
   * kept for the query version they were found for: the query seldom changes from turn to
   * turn, and a span unchanged since the last turn is then not looked through again.
   */
  hits?: { version: number; flat: number[] };
}

export function termCounts(text: string, dictionary: TermDictionary): TermCounts {
  const tf = new Map<number, number>();
  const all = terms(text);
  for (const t of all) {
    const id = dictionary.id(t);
    tf.set(id, (tf.get(id) ?? 0) + 1);
  }
  const ids = Int32Array.from(tf.keys());
  const counts = new Int32Array(ids.length);
  ids.forEach((id, i) => (counts[i] = tf.get(id)!));
  return { length: all.length, ids, counts };
}

/**
 * BM25 of each document against the query, in document order. idf is the non-negative
 * form ln(1 + (N − df + 0.5) / (df + 0.5)), so a term in every span still counts a little
 * and no score is negative. A repeated query term counts once per occurrence. Terms are
 * summed in sorted order, so the result does not depend on the query's order. The
 * documents' counts must come from the same dictionary.
 */
export function bm25(query: readonly string[], docs: readonly TermCounts[], dictionary: TermDictionary): number[] {
  const n = docs.length;
  const out = new Array<number>(n).fill(0);
  if (n === 0 || query.length === 0) return out;
  let totalLength = 0;
  for (const d of docs) totalLength += d.length;
  const avgdl = totalLength / n || 1;
  const queryCounts = new Map<string, number>();
  for (const q of query) queryCounts.set(q, (queryCounts.get(q) ?? 0) + 1);
  const unique = [...queryCounts.keys()].sort();
  const queryIds = unique.map((t) => dictionary.id(t));
  const version = dictionary.versionOf(unique);
  return dictionary.withQuery(queryIds, (position) => {
    const hits = docs.map((d) => hitsOf(d, position, version));
    const df = new Array<number>(unique.length).fill(0);
    for (const h of hits) for (let k = 0; k < h.length; k += 2) df[h[k]!]!++;
    const weight = unique.map((t, q) => (df[q]! === 0 ? 0 : Math.log(1 + (n - df[q]! + 0.5) / (df[q]! + 0.5)) * queryCounts.get(t)!));
    for (let i = 0; i < n; i++) {
      const d = docs[i]!;
      const h = hits[i]!;
      if (h.length === 0) continue;
      const norm = BM25_K1 * (1 - BM25_B + (BM25_B * d.length) / avgdl);
      let score = 0;
      // hits are in query order: the same summation order, hence the same floating-point
      // result, as term by term in sorted order
      for (let k = 0; k < h.length; k += 2) {
        const f = h[k + 1]!;
        score += (weight[h[k]!]! * (f * (BM25_K1 + 1))) / (f + norm);
      }
      out[i] = score;
    }
    return out;
  });
}

/** A document's hits for this query version, found again only when the query changed. */
function hitsOf(d: TermCounts, position: Int32Array, version: number): number[] {
  if (d.hits?.version === version) return d.hits.flat;
  // pairs kept in query order (insertion: a span holds a few dozen query terms at most), so
  // the sum runs term by term in sorted order whatever order the span's terms came in
  const flat: number[] = [];
  for (let k = 0; k < d.ids.length; k++) {
    const at = position[d.ids[k]!]!;
    if (at < 0) continue;
    let j = flat.length;
    flat.push(at, d.counts[k]!);
    for (; j > 0 && flat[j - 2]! > at; j -= 2) {
      flat[j] = flat[j - 2]!;
      flat[j + 1] = flat[j - 1]!;
    }
    flat[j] = at;
    flat[j + 1] = d.counts[k]!;
  }
  d.hits = { version, flat };
  return flat;
}
