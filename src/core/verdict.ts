// contract §5 recompute list: the stale spans and every span one hop from them.
import type { SpanTable } from './spanTable.ts';

/**
 * `seeds` are the spans whose scores are null, unbound or stale (plus, on a shortfall or
 * unreported rewrite, the changed and reported-modified spans). When no span is
 * identified at all, every live span is to be recomputed. One hop = the spans right
 * before and after in snapshot order, and live `derived_from` parents and children.
 * Returned in snapshot order.
 */
export function recomputeSet(spans: SpanTable, seeds: ReadonlySet<string>): string[] {
  const { ids } = spans;
  if (seeds.size === 0) return [...ids];
  const n = ids.length;
  const marked = new Uint8Array(n);
  const seedAt = new Uint8Array(n);
  // the seeds found by a pass over the ids, and a span's own id among its parents as itself:
  // a map lookup only for a parent that is another span (a span rewritten in place cites itself)
  for (let i = 0; i < n; i++) if (seeds.has(ids[i]!)) seedAt[i] = 1;
  const at = (i: number, p: string): number | undefined => (p === ids[i] ? i : spans.index.get(p));
  for (let i = 0; i < n; i++) {
    const parents = spans.parents[i] ?? [];
    if (seedAt[i] === 1) {
      marked[i] = 1;
      if (i > 0) marked[i - 1] = 1;
      if (i + 1 < n) marked[i + 1] = 1;
      for (const p of parents) {
        const j = at(i, p);
        if (j !== undefined) marked[j] = 1;
      }
    }
    // a child of a seed is one hop from it
    for (const p of parents) {
      const j = at(i, p);
      if (j !== undefined && seedAt[j] === 1) marked[i] = 1;
    }
  }
  const out: string[] = [];
  for (let i = 0; i < n; i++) if (marked[i] === 1) out.push(ids[i]!);
  return out;
}
