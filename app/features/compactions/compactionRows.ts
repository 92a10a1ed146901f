// What the compactions strip, its panel and the overview say of a compaction record
// (contract §8.3): retention as shares and as words, the items grouped by kind with the lost
// ones first. Pure and tested; the components only draw.
import type { AuditItemKind, CarriedItem, CompactionRecord, KindRetention, RecordItem } from '../../../src/worker/client.ts';
import { lostFirst } from '../../../src/report/markdown.ts';

/** The order kinds are listed in: the two the contract defines exactly first. */
export const KIND_ORDER: readonly AuditItemKind[] = ['file', 'user_prompt', 'todo', 'command', 'error'];

export const KIND_LABEL: Readonly<Record<AuditItemKind, { one: string; many: string }>> = {
  file: { one: 'file', many: 'files' },
  user_prompt: { one: 'prompt', many: 'prompts' },
  todo: { one: 'todo', many: 'todos' },
  command: { one: 'command', many: 'commands' },
  error: { one: 'error', many: 'errors' },
};

export type Retention = Partial<Record<AuditItemKind, KindRetention>>;

/** Every kind added up. */
export function totalRetention(retention: Retention): KindRetention {
  const t: KindRetention = { items: 0, kept: 0, paraphrased: 0, lost: 0, confirmed: 0 };
  for (const k of Object.values(retention)) {
    t.items += k.items;
    t.kept += k.kept;
    t.paraphrased += k.paraphrased;
    t.lost += k.lost;
    t.confirmed += k.confirmed;
    if (k.unknown !== undefined) t.unknown = (t.unknown ?? 0) + k.unknown;
  }
  return t;
}

/** "files 41/58, prompts 22/23": kept of audited, per kind, in KIND_ORDER; "" when nothing was audited. */
export function retentionWords(retention: Retention): string {
  const parts: string[] = [];
  for (const kind of KIND_ORDER) {
    const k = retention[kind];
    if (k !== undefined && k.items > 0) parts.push(`${KIND_LABEL[kind].many} ${k.kept}/${k.items}`);
  }
  return parts.join(', ');
}

/** "167,012 → 31,002 tokens" (the first turn of a session has no before). */
export function tokensWords(r: Pick<CompactionRecord, 'tokens_before' | 'tokens_after'>): string {
  const n = (v: number): string => v.toLocaleString('en-US');
  return r.tokens_before === null ? `${n(r.tokens_after)} tokens after` : `${n(r.tokens_before)} → ${n(r.tokens_after)} tokens`;
}

/** Shares of the audited items (0–1) for the strip's bar: kept at the bottom, then paraphrased, the unjudged (`unknown`), lost on top. */
export function retentionShares(retention: Retention): { kept: number; paraphrased: number; lost: number; unknown: number; confirmed: number; items: number } {
  const t = totalRetention(retention);
  if (t.items === 0) return { kept: 0, paraphrased: 0, lost: 0, unknown: 0, confirmed: 0, items: 0 };
  return {
    kept: t.kept / t.items,
    paraphrased: t.paraphrased / t.items,
    lost: t.lost / t.items,
    unknown: (t.unknown ?? 0) / t.items,
    confirmed: t.confirmed,
    items: t.items,
  };
}

export interface KindGroup<T> {
  kind: AuditItemKind;
  items: T[];
}

/** The items by kind (KIND_ORDER), each kind lost first and confirmed losses first among those. */
export function itemsByKind<T extends RecordItem | CarriedItem>(items: readonly T[]): KindGroup<T>[] {
  const groups: KindGroup<T>[] = [];
  for (const kind of KIND_ORDER) {
    const of = items.filter((it) => it.kind === kind);
    if (of.length > 0) groups.push({ kind, items: lostFirst(of) });
  }
  return groups;
}

/**
 * Rows the panel draws per kind; the rest are counted ("… and N more"). A refetch storm's
 * compaction lists every file it lost (tens of thousands): the panel draws this many of them
 * whatever n is, so opening it costs the same (bench refetch-browser, docs/dashboard.md).
 */
export const ROWS_SHOWN = 200;

/** The rows of one kind's group the panel draws, and how many it counts instead. */
export function shownRows<T>(items: readonly T[], max = ROWS_SHOWN): { rows: readonly T[]; more: number } {
  return items.length > max ? { rows: items.slice(0, max), more: items.length - max } : { rows: items, more: 0 };
}

/** The record that took effect at `turn`, or null. */
export function compactionAt(records: readonly CompactionRecord[] | undefined, turn: number | null): CompactionRecord | null {
  if (records === undefined || turn === null) return null;
  return records.find((r) => r.turn === turn) ?? null;
}
