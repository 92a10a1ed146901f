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
 * BM25 of each document against the query, in document order. idf is the non-negative
 * form ln(1 + (N − df + 0.5) / (df + 0.5)), so a term in every span still counts a little
 * and no score is negative. A repeated query term counts once per occurrence.
 */
export function bm25(query: readonly string[], docs: readonly TermCounts[]): number[] {
  const n = docs.length;
  const out = new Array<number>(n).fill(0);
  if (n === 0 || query.length === 0) return out;
  let totalLength = 0;
  for (const d of docs) totalLength += d.length;
  const avgdl = totalLength / n || 1;
  const queryCounts = new Map<string, number>();
  for (const q of query) queryCounts.set(q, (queryCounts.get(q) ?? 0) + 1);
  // sorted, so the sum is taken in the same order whatever the query's order
  const unique = [...queryCounts.keys()].sort();
  for (const q of unique) {
    let df = 0;
    for (const d of docs) if (d.tf.has(q)) df++;
    if (df === 0) continue;
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    const weight = idf * queryCounts.get(q)!;
    for (let i = 0; i < n; i++) {
      const d = docs[i]!;
      const f = d.tf.get(q);
      if (f === undefined) continue;
      out[i]! += (weight * (f * (BM25_K1 + 1))) / (f + BM25_K1 * (1 - BM25_B + (BM25_B * d.length) / avgdl));
    }
  }
  return out;
}
