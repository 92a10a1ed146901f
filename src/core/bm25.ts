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

/** What BM25 needs of one document: its length in terms and how often each term occurs. */
export interface TermCounts {
  length: number;
  tf: Map<string, number>;
}

export function termCounts(text: string): TermCounts {
  const tf = new Map<string, number>();
  const all = terms(text);
  for (const t of all) tf.set(t, (tf.get(t) ?? 0) + 1);
  return { length: all.length, tf };
}

/**
 * Which of a query's terms each document holds, with their counts, remembered per document
 * (by identity) while the query stays the same: a span unchanged since the last turn is
 * not looked through again. The scores do not depend on it.
 */
export class QueryHits {
  private key = '';
  private byDoc = new WeakMap<TermCounts, number[]>();

  /** For each document, its (query term index, count) pairs, flat: [q0, f0, q1, f1, …] in term order. */
  of(queryTerms: readonly string[], docs: readonly TermCounts[]): number[][] {
    const key = queryTerms.join('\u0000');
    if (key !== this.key) {
      this.key = key;
      this.byDoc = new WeakMap();
    }
    return docs.map((d) => {
      let hits = this.byDoc.get(d);
      if (hits === undefined) {
        hits = [];
        for (let q = 0; q < queryTerms.length; q++) {
          const f = d.tf.get(queryTerms[q]!);
          if (f !== undefined) hits.push(q, f);
        }
        this.byDoc.set(d, hits);
      }
      return hits;
    });
  }
}

/**
 * BM25 of each document against the query, in document order. idf is the non-negative
 * form ln(1 + (N − df + 0.5) / (df + 0.5)), so a term in every span still counts a little
 * and no score is negative. A repeated query term counts once per occurrence. Terms are
 * summed in sorted order, so the result does not depend on the query's order.
 */
export function bm25(query: readonly string[], docs: readonly TermCounts[], memo: QueryHits = new QueryHits()): number[] {
  const n = docs.length;
  const out = new Array<number>(n).fill(0);
  if (n === 0 || query.length === 0) return out;
  let totalLength = 0;
  for (const d of docs) totalLength += d.length;
  const avgdl = totalLength / n || 1;
  const queryCounts = new Map<string, number>();
  for (const q of query) queryCounts.set(q, (queryCounts.get(q) ?? 0) + 1);
  const unique = [...queryCounts.keys()].sort();
  const hits = memo.of(unique, docs);
  const df = new Array<number>(unique.length).fill(0);
  for (const h of hits) for (let k = 0; k < h.length; k += 2) df[h[k]!]!++;
  const weight = unique.map((t, q) => (df[q]! === 0 ? 0 : Math.log(1 + (n - df[q]! + 0.5) / (df[q]! + 0.5)) * queryCounts.get(t)!));
  for (let i = 0; i < n; i++) {
    const d = docs[i]!;
    const norm = BM25_K1 * (1 - BM25_B + (BM25_B * d.length) / avgdl);
    let score = 0;
    const h = hits[i]!;
    // hits are in term order: the same summation order as term by term
    for (let k = 0; k < h.length; k += 2) {
      const f = h[k + 1]!;
      score += (weight[h[k]!]! * (f * (BM25_K1 + 1))) / (f + norm);
    }
    out[i] = score;
  }
  return out;
}
