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
  /** a record's items not yet gone back for, by kind and text, in item order (built at its first refetch) */
  private readonly waiting = new Map<CompactionRecord, Map<string, number[]>>();
  private readonly position = new Map<CompactionRecord, number>();
  /** confirmed losses whose refetch turn is past the latest turn asked of tally(), earliest first */
  private readonly later = new LossHeap();
  private tallied: { losses: number; latest: HeldLoss | null } = { losses: 0, latest: null };
  private talliedTurn = Number.NEGATIVE_INFINITY;
  /** items indexed, refetches and losses handled, records and items passed: the work the scaling tests count */
  steps = 0;

  private waitingOf(record: CompactionRecord): Map<string, number[]> {
    let m = this.waiting.get(record);
    if (m === undefined) {
      m = new Map();
      this.steps += record.items.length;
      record.items.forEach((it, i) => {
        if (it.refetched_at !== null) return;
        const key = `${it.kind}\0${it.text}`;
        const list = m!.get(key);
        if (list === undefined) m!.set(key, [i]);
        else list.push(i);
      });
      this.waiting.set(record, m);
    }
    return m;
  }

  private noteLoss(record: CompactionRecord, index: number): void {
    const item = record.items[index]!;
    this.steps++;
    this.later.push({
      refetchTurn: item.refetched_at!,
      compactionTurn: record.turn,
      record: this.position.get(record)!,
      index,
      kind: item.kind,
      text: item.text,
    });
  }

  /**
   * contract §8.9 what the headline needs of the compactions as of `turn`: how many took effect,
   * how many confirmed losses were known, the latest. The same figures as confirmedLosses() over
   * the records, kept as the turns come (the relay asks at every turn: a pass over every item
   * was n × n, docs/security.md "Linear time"); a turn before the latest one asked is counted
   * afresh.
   */
  tally(turn: number): LossTally {
    if (turn < this.talliedTurn) {
      for (const r of this.records) this.steps += 1 + r.items.length;
      return tallyOf(this.records, turn);
    }
    this.talliedTurn = turn;
    let compactions = this.records.length;
    this.steps++;
    while (compactions > 0 && this.records[compactions - 1]!.turn > turn) {
      compactions--;
      this.steps++;
    }
    let { losses, latest } = this.tallied;
    for (let l = this.later.peek(); l !== undefined && l.refetchTurn <= turn && l.compactionTurn <= turn; l = this.later.peek()) {
      this.later.pop();
      this.steps++;
      losses++;
      if (latest === null || laterLoss(l, latest)) latest = l;
    }
    this.tallied = { losses, latest };
    return {
      compactions,
      losses,
      latest: latest === null ? null : { compactionTurn: latest.compactionTurn, refetchTurn: latest.refetchTurn, kind: latest.kind, text: latest.text },
    };
  }

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
      this.position.set(record, this.records.length - 1);
    }
    const refetched: CompactionTurn['refetched'] = [];
    const confirmedNow = new Map<CompactionRecord, RecordItem[]>();
    this.steps += refetches.length;
    for (const r of refetches) {
      const target = this.byTurn.get(r.compaction_turn);
      if (target === undefined) continue;
      // the record's first item of that kind and text not yet gone back for, through an index (docs/security.md "Linear time")
      const index = this.waitingOf(target).get(`${r.kind}\0${r.text}`)?.shift();
      if (index === undefined) continue;
      const item = target.items[index]!;
      item.refetched_at = r.turn;
      refetched.push({ record: target, index });
      if (item.status !== 'lost') continue;
      item.confirmed = true;
      // the kind's count of confirmed losses, in place: the same figures retentionOf() gives, without a pass over every item
      target.retention[item.kind]!.confirmed++;
      this.noteLoss(target, index);
      const now = confirmedNow.get(target);
      if (now === undefined) confirmedNow.set(target, [item]);
      else now.push(item);
    }
    const losses: CompactionTurn['losses'] = [];
    for (const [target, items] of confirmedNow) {
      if (this.raised.has(target)) continue;
      let confirmed = 0;
      for (const k of Object.values(target.retention)) confirmed += k.confirmed;
      if (confirmed < lossMin) continue;
      this.raised.add(target);
      if (confirmed !== items.length) this.steps += target.items.length;
      losses.push({ record: target, items: confirmed === items.length ? items : target.items.filter((it) => it.confirmed) });
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

/** What the headline of contract §8.9 reads of a session's compactions as of a turn. */
export interface LossTally {
  compactions: number;
  losses: number;
  latest: { compactionTurn: number; refetchTurn: number; kind: string; text: string } | null;
}

interface HeldLoss {
  refetchTurn: number;
  compactionTurn: number;
  /** the record's place in the ledger and the item's in the record: confirmedLosses()'s order among equal turns */
  record: number;
  index: number;
  kind: string;
  text: string;
}

/** confirmedLosses()'s order: the latest refetch first, then the latest compaction, then the first record and item */
function laterLoss(a: HeldLoss, b: HeldLoss): boolean {
  return a.refetchTurn !== b.refetchTurn
    ? a.refetchTurn > b.refetchTurn
    : a.compactionTurn !== b.compactionTurn
      ? a.compactionTurn > b.compactionTurn
      : a.record !== b.record
        ? a.record < b.record
        : a.index < b.index;
}

/** The tally by a pass over the records (a turn before the latest one asked). */
function tallyOf(records: readonly CompactionRecord[], turn: number): LossTally {
  let compactions = 0;
  let losses = 0;
  let latest: HeldLoss | null = null;
  records.forEach((c, r) => {
    if (c.turn > turn) return;
    compactions++;
    c.items.forEach((item, index) => {
      if (!item.confirmed || item.refetched_at === null || item.refetched_at > turn) return;
      losses++;
      const l = { refetchTurn: item.refetched_at, compactionTurn: c.turn, record: r, index, kind: item.kind, text: item.text };
      if (latest === null || laterLoss(l, latest)) latest = l;
    });
  });
  const top = latest as HeldLoss | null;
  return {
    compactions,
    losses,
    latest: top === null ? null : { compactionTurn: top.compactionTurn, refetchTurn: top.refetchTurn, kind: top.kind, text: top.text },
  };
}

/** A binary min-heap of losses by the turn they become known (the refetch's, or the compaction's when later). */
class LossHeap {
  private readonly heap: HeldLoss[] = [];
  private static due(l: HeldLoss): number {
    return Math.max(l.refetchTurn, l.compactionTurn);
  }
  peek(): HeldLoss | undefined {
    return this.heap[0];
  }
  push(l: HeldLoss): void {
    const h = this.heap;
    h.push(l);
    for (let i = h.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (LossHeap.due(h[p]!) <= LossHeap.due(h[i]!)) break;
      [h[p], h[i]] = [h[i]!, h[p]!];
      i = p;
    }
  }
  pop(): void {
    const h = this.heap;
    const last = h.pop()!;
    if (h.length === 0) return;
    h[0] = last;
    for (let i = 0; ;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && LossHeap.due(h[l]!) < LossHeap.due(h[m]!)) m = l;
      if (r < h.length && LossHeap.due(h[r]!) < LossHeap.due(h[m]!)) m = r;
      if (m === i) break;
      [h[m], h[i]] = [h[i]!, h[m]!];
      i = m;
    }
  }
}
