// How far two scorings of the same spans rank them alike (contract §7
// reference_disagreement): Kendall's τ-b, which counts tied pairs correctly (many spans
// share a score, e.g. 0 under BM25 when they share no term with the task).

/**
 * Kendall τ-b of two equally long score lists, in [-1, 1]; null when it is undefined
 * (fewer than two items, or every item tied in either list). O(n²): n is one buffer's spans.
 */
export function kendallTauB(a: readonly number[], b: readonly number[]): number | null {
  const n = Math.min(a.length, b.length);
  let concordant = 0;
  let discordant = 0;
  let tiesA = 0;
  let tiesB = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const da = Math.sign(a[i]! - a[j]!);
      const db = Math.sign(b[i]! - b[j]!);
      if (da === 0 && db === 0) continue;
      if (da === 0) tiesA++;
      else if (db === 0) tiesB++;
      else if (da === db) concordant++;
      else discordant++;
    }
  }
  const denominator = Math.sqrt((concordant + discordant + tiesA) * (concordant + discordant + tiesB));
  return denominator === 0 ? null : (concordant - discordant) / denominator;
}
