// contract §8.3 in `diff`: two sessions' compaction audits side by side, the researcher's
// experiment ("two compaction prompts, or two agents on the same task"): how many
// compactions, what each kind of item kept, the confirmed losses, and how much each shrank
// the context; then the k-th compaction of A against the k-th of B.
import { AUDIT_ITEM_KINDS, type AuditItemKind } from './compactionAudit.ts';
import type { CompactionRecord, KindRetention } from './compactions.ts';

export interface CompactionTotals {
  compactions: number;
  /** per kind, summed over the session's compactions */
  retention: Partial<Record<AuditItemKind, KindRetention>>;
  /** mean of tokens_after / tokens_before over the compactions that have both, or null */
  mean_shrink: number | null;
}

export interface CompactionPair {
  a: { turn: number; tokens_before: number | null; tokens_after: number; retention: CompactionRecord['retention'] } | null;
  b: { turn: number; tokens_before: number | null; tokens_after: number; retention: CompactionRecord['retention'] } | null;
}

export interface CompactionComparison {
  a: CompactionTotals;
  b: CompactionTotals;
  pairs: CompactionPair[];
}

export function compactionTotals(records: readonly CompactionRecord[]): CompactionTotals {
  const retention: Partial<Record<AuditItemKind, KindRetention>> = {};
  const shrinks: number[] = [];
  for (const r of records) {
    for (const kind of AUDIT_ITEM_KINDS) {
      const k = r.retention[kind];
      if (k === undefined) continue;
      const sum = (retention[kind] ??= { items: 0, kept: 0, paraphrased: 0, lost: 0, confirmed: 0 });
      sum.items += k.items;
      sum.kept += k.kept;
      sum.paraphrased += k.paraphrased;
      sum.lost += k.lost;
      sum.confirmed += k.confirmed;
      // contract §8.3: `unknown` only where some item could not be judged, as in each record
      if (k.unknown !== undefined) sum.unknown = (sum.unknown ?? 0) + k.unknown;
    }
    if (r.tokens_before !== null && r.tokens_before > 0) shrinks.push(r.tokens_after / r.tokens_before);
  }
  const mean = shrinks.length === 0 ? null : Math.round((shrinks.reduce((x, y) => x + y, 0) / shrinks.length) * 1e4) / 1e4;
  return { compactions: records.length, retention, mean_shrink: mean };
}

/** null when neither session has a compaction (diff's output is then exactly as before). */
export function compareCompactions(a: readonly CompactionRecord[] | undefined, b: readonly CompactionRecord[] | undefined): CompactionComparison | null {
  const left = a ?? [];
  const right = b ?? [];
  if (left.length === 0 && right.length === 0) return null;
  const side = (r: CompactionRecord | undefined): CompactionPair['a'] =>
    r === undefined ? null : { turn: r.turn, tokens_before: r.tokens_before, tokens_after: r.tokens_after, retention: r.retention };
  const pairs: CompactionPair[] = [];
  for (let k = 0; k < Math.max(left.length, right.length); k++) pairs.push({ a: side(left[k]), b: side(right[k]) });
  return { a: compactionTotals(left), b: compactionTotals(right), pairs };
}
