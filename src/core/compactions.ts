// contract §8.3 compactions: a rewrite that replaces spans is one event. This module reads
// the snapshot fields that say so (`compaction`, `refetched`, `archived`: extra fields of
// §2.2, so a version-1 snapshot without them reads exactly as before), keeps one record
// per compaction of a session, and words the two signals: `compaction` (info) at the turn it
// takes effect, `compaction_loss` (warning) at the turn that confirms a loss.
import { AUDIT_ITEM_KINDS, AUDIT_STATUSES, type AuditItem, type AuditItemKind, type AuditStatus, type CarriedItem } from './compactionAudit.ts';
import type { Snapshot } from './wire.ts';

/** One item of a compaction record: the wire's item, plus what the session did later. */
export interface RecordItem extends AuditItem {
  /** the turn the agent went back for it, or null (contract §8.4 `refetched_at`) */
  refetched_at: number | null;
  /** lost and then gone back for: a confirmed loss (contract §8.5) */
  confirmed: boolean;
}

export interface KindRetention {
  items: number;
  kept: number;
  paraphrased: number;
  lost: number;
  /** lost items the agent went back for */
  confirmed: number;
  /** items the audit could not judge (an encrypted summary, contract §8.4); present only when there are some, so older outputs read as before */
  unknown?: number;
}

/** contract §8.3 `summary_state`: said only when the summary cannot be read; a clear summary or none is told by `summary_span_ids`. */
export type SummaryState = 'encrypted';

/** contract §8.3: one compaction of a session, as `check --json` lists it in `sessions[].compactions[]`. */
export interface CompactionRecord {
  turn: number;
  /** `compact` (a summary replaces the context), `microcompact` (tool results cleared in place), `elision`, `rewrite` (native) */
  kind: string;
  /** what set it off, in the agent's words (`auto`, `manual`), or null */
  trigger: string | null;
  /** tokens_total of the last turn before it, null on a first turn */
  tokens_before: number | null;
  /** tokens_total of the turn it takes effect */
  tokens_after: number;
  /** the agent's own count of the context before it (Claude Code's `preTokens`), or null */
  agent_tokens_before: number | null;
  spans_replaced: number;
  summary_span_ids: string[];
  /** the summary's own text (its spans' texts joined by "\n"), "" when there is none */
  summary_text: string;
  /** the summary is there but cannot be read (Codex's encrypted summaries); absent otherwise */
  summary_state?: SummaryState;
  items: RecordItem[];
  /** items of earlier compactions judged again against this one's surviving text */
  carried: CarriedItem[];
  /** items earlier compactions held that this one did not judge again (the audit follows at most CARRIED_MAX); absent when none */
  carried_not_followed?: number;
  retention: Partial<Record<AuditItemKind, KindRetention>>;
}

/** What a snapshot says about compactions, read leniently: a malformed field is left out (contract §8.3). */
export interface CompactionMark {
  kind: string;
  trigger: string | null;
  preTokens: number | null;
  replaced: string[];
  summary: string[];
  /** `encrypted` when the wire says the summary cannot be read, else null */
  summaryState: SummaryState | null;
  items: AuditItem[];
  carried: CarriedItem[];
  /** contract §8.3 `carried_not_followed`, 0 when the wire has none */
  carriedNotFollowed: number;
}

type JsonObject = Record<string, unknown>;

const STATUSES = new Set<AuditStatus>(AUDIT_STATUSES);
const KINDS = new Set<string>(AUDIT_ITEM_KINDS);

/** contract §8.3 `compaction`: the mark, or null when the snapshot carries none (or not an object). */
export function readCompaction(snap: Snapshot): CompactionMark | null {
  const raw = snap.compaction;
  if (!isObject(raw)) return null;
  return {
    kind: typeof raw.kind === 'string' && raw.kind !== '' ? raw.kind : 'compact',
    trigger: typeof raw.trigger === 'string' ? raw.trigger : null,
    preTokens: typeof raw.pre_tokens === 'number' && Number.isFinite(raw.pre_tokens) ? raw.pre_tokens : null,
    replaced: strings(raw.replaced),
    summary: strings(raw.summary),
    summaryState: raw.summary_state === 'encrypted' ? 'encrypted' : null,
    items: Array.isArray(raw.items) ? raw.items.filter(isItem) : [],
    carried: Array.isArray(raw.carried) ? raw.carried.filter(isCarried) : [],
    carriedNotFollowed: Number.isSafeInteger(raw.carried_not_followed) && (raw.carried_not_followed as number) > 0 ? (raw.carried_not_followed as number) : 0,
  };
}

/** contract §8.2 `archived`: ids that left the live context and that the agent's own transcript still holds. */
export function readArchived(snap: Snapshot): string[] {
  return strings(snap.archived);
}

export interface RefetchMark {
  compaction_turn: number;
  kind: string;
  text: string;
  turn: number;
}

/** contract §8.3 `refetched`: audited items the agent went back for. */
export function readRefetched(snap: Snapshot): RefetchMark[] {
  const raw = snap.refetched;
  if (!Array.isArray(raw)) return [];
  return raw.filter(
    (r): r is RefetchMark =>
      isObject(r) && Number.isInteger(r.compaction_turn) && typeof r.kind === 'string' && typeof r.text === 'string' && Number.isInteger(r.turn),
  );
}

export function retentionOf(items: readonly RecordItem[]): Partial<Record<AuditItemKind, KindRetention>> {
  const out: Partial<Record<AuditItemKind, KindRetention>> = {};
  for (const it of items) {
    const r = (out[it.kind] ??= { items: 0, kept: 0, paraphrased: 0, lost: 0, confirmed: 0 });
    r.items++;
    if (it.status === 'unknown') r.unknown = (r.unknown ?? 0) + 1;
    else r[it.status]++;
    if (it.confirmed) r.confirmed++;
  }
  return out;
}

/** contract §8.3: what one turn added to the session's compactions. */
export interface CompactionTurn {
  /** the compaction that took effect at this turn, if one did */
  record: CompactionRecord | null;
  /** items whose refetch this turn reported: [record, item index] */
  refetched: { record: CompactionRecord; index: number }[];
  /** records whose confirmed losses reached `compaction_loss_min` at this turn, with the items that did it */
  losses: { record: CompactionRecord; items: RecordItem[] }[];
}

/** One session's compactions, turn by turn. */
export class CompactionLedger {
  readonly records: CompactionRecord[] = [];
  private readonly byTurn = new Map<number, CompactionRecord>();
  /** records whose compaction_loss has been raised (once per compaction, contract §8.5) */
  private readonly raised = new Set<CompactionRecord>();

  /**
   * `mark`: the snapshot's own `compaction`, or the one the engine recognised (a native
   * rewrite, contract §8.3). `summaryText`: the summary spans' texts.
   */
  observe(
    snap: Snapshot,
    mark: CompactionMark | null,
    summaryText: string,
    tokensBefore: number | null,
    tokensAfter: number,
    lossMin: number,
  ): CompactionTurn | null {
    const refetches = readRefetched(snap);
    if (mark === null && refetches.length === 0) return null;
    let record: CompactionRecord | null = null;
    if (mark !== null) {
      const items: RecordItem[] = mark.items.map((it) => ({
        kind: it.kind,
        text: it.text,
        status: it.status,
        from_turn: it.from_turn,
        span_id: it.span_id,
        refetched_at: null,
        confirmed: false,
      }));
      record = {
        turn: snap.turn,
        kind: mark.kind,
        trigger: mark.trigger,
        tokens_before: tokensBefore,
        tokens_after: tokensAfter,
        agent_tokens_before: mark.preTokens,
        spans_replaced: mark.replaced.length,
        summary_span_ids: mark.summary,
        summary_text: summaryText,
        ...(mark.summaryState === null ? {} : { summary_state: mark.summaryState }),
        items,
        carried: mark.carried,
        ...(mark.carriedNotFollowed > 0 ? { carried_not_followed: mark.carriedNotFollowed } : {}),
        retention: retentionOf(items),
      };
      this.records.push(record);
      this.byTurn.set(snap.turn, record);
    }
    const refetched: CompactionTurn['refetched'] = [];
    const confirmedNow = new Map<CompactionRecord, RecordItem[]>();
    for (const r of refetches) {
      const target = this.byTurn.get(r.compaction_turn);
      if (target === undefined) continue;
      const index = target.items.findIndex((it) => it.kind === r.kind && it.text === r.text && it.refetched_at === null);
      if (index < 0) continue;
      const item = target.items[index]!;
      item.refetched_at = r.turn;
      refetched.push({ record: target, index });
      if (item.status !== 'lost') continue;
      item.confirmed = true;
      confirmedNow.set(target, [...(confirmedNow.get(target) ?? []), item]);
    }
    const losses: CompactionTurn['losses'] = [];
    for (const [target, items] of confirmedNow) {
      target.retention = retentionOf(target.items);
      const confirmed = target.items.filter((it) => it.confirmed);
      if (this.raised.has(target) || confirmed.length < lossMin) continue;
      this.raised.add(target);
      losses.push({ record: target, items: confirmed.length === items.length ? items : confirmed });
    }
    return { record, refetched, losses };
  }
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function isItem(v: unknown): v is AuditItem {
  if (!isObject(v)) return false;
  return (
    typeof v.kind === 'string' &&
    KINDS.has(v.kind) &&
    typeof v.text === 'string' &&
    typeof v.status === 'string' &&
    STATUSES.has(v.status as AuditStatus) &&
    Number.isInteger(v.from_turn) &&
    (v.span_id === null || typeof v.span_id === 'string')
  );
}

function isCarried(v: unknown): v is CarriedItem {
  return isItem(v) && isObject(v) && Number.isInteger(v.first_audited_at);
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
