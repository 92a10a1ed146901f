// Everything the dashboard can ask about one session, kept compactly as the engine's
// results arrive: per-turn metric columns, findings grouped into incidents, canary ranks,
// verdict lists, and per-span rows for the inspector. Memory stays bounded on long runs:
// per-span rows live in fixed-size chunks and the oldest chunks are dropped past a row
// budget; span texts are interned per span (98% of texts repeat turn to turn) and old
// versions are released past a character budget. Snapshots themselves are never kept.
import { Binding, estimateTokens, type TurnResult } from '../core/analyse.ts';
import type { Thresholds } from '../core/config.ts';
import { SIGNALS, type Signal } from '../core/signals.ts';
import type { Snapshot } from '../core/wire.ts';
import { readArchived, type CompactionRecord } from '../core/compactions.ts';
import { lowerBound } from '../core/bisect.ts';
import { compositionKind, type ContextWindow } from '../core/composition.ts';
import { IncidentRuns } from '../core/incidents.ts';
import { Composition } from './composition.ts';
import { Column, f64, i32, u8 } from './columns.ts';
import { FLAG_PINNED, FLAG_TEXT_CHANGED, SpanRows } from './spanRows.ts';
import { recordTurn, SIGNAL_INDEX, turnColumns, type TurnColumns } from './turnColumns.ts';
import type { BindingName } from './series.ts';

export { ACTIONS, bit, SEVERITY_LEVEL, SIGNAL_INDEX } from './turnColumns.ts';
export { FLAG_PINNED, FLAG_TEXT_CHANGED, SpanRows, type SpanRowData } from './spanRows.ts';

export interface StoreLimits {
  /** per-span rows kept (32 bytes each) */
  maxSpanRows: number;
  /** characters of superseded span texts kept */
  maxTextChars: number;
}

export const DEFAULT_STORE_LIMITS: StoreLimits = { maxSpanRows: 2_000_000, maxTextChars: 48_000_000 };

export interface TextVersion {
  /** null once released by the character budget */
  text: string | null;
  firstTurnIndex: number;
  /** sha256 of the text, once known */
  digest: string | undefined;
}

export interface SpanInfo {
  id: string;
  texts: TextVersion[];
  claims: string[];
  parents: string[][];
  role: string | null;
  /** contract §8.8: the span's short human name (its latest), shown wherever the span is named */
  label: string | null;
  /** contract §8.7: the kind `tokens_by_kind` files the span under (from its role, kind and tool) */
  compositionKind: string;
  firstSeen: number;
  lastSeen: number;
  /** turn index of the latest turn whose `pruned` named this id, or -1 */
  prunedAt: number;
  /** turn indices at which this id was listed in `pruned`, in order */
  prunedTurns: number[];
  /** contract §8.2: turn index of the first snapshot whose `archived` named this id (the agent's transcript holds it), or -1 */
  archivedAt: number;
}

/**
 * One session's analysis results in columns, one entry per turn (not the relay's
 * SessionStore, which persists wire messages).
 */
export class TurnColumnStore {
  title: string | null = null;
  /** some snapshot carried reference_agreement (contract §7, `--scorer both`) */
  hasAgreement = false;
  /** turns where a compaction took effect (contract §8.3: one per record), ascending: the charts' markers */
  readonly compactionTurns: number[] = [];
  /**
   * contract §8.3: the session's compaction records, the engine's own objects: its ledger
   * updates them in place when a later turn reports a refetch, so they are always current.
   */
  readonly compactions: CompactionRecord[] = [];
  /** bumped on every turn that added or updated a record (SessionSummary.compactionRevision) */
  compactionRevision = 0;
  /** contract §8.1: signals not evaluated for this session, with the reason (from its header's scope) */
  notApplicable: Partial<Record<Signal, string>> = {};
  /** contract §7 reference scorer: the session's scores are the reference's, not the harness's */
  referenceScored = false;
  /** the header's `source`: the agent an adapter read the transcript of (null: a native session) */
  agent: string | null = null;
  headerConfig: Partial<Thresholds> = {};
  /** contract §8.7: what fills the context, per turn and kind (the composition chart) */
  readonly composition = new Composition();
  /** contract §8.7: the session's context window as the engine knows it at its latest turn */
  contextWindow: ContextWindow | null = null;

  /** the per-turn metric columns (turnColumns.ts declares them), index t = the t-th analysed snapshot */
  readonly col: TurnColumns = turnColumns();
  // ---- per turn, ragged: where turn t's entries start in the lists after them
  /** first row of the turn in `rows` (global numbering); rows of turn t end where t+1's start */
  readonly rowStart = f64();
  readonly recStart = i32();
  readonly recIds = i32();
  readonly dropStart = i32();
  readonly dropIds = i32();

  // ---- canaries: rows per turn
  readonly canaryStart = i32();
  readonly canarySpan = i32();
  readonly canaryRank = i32();
  readonly canaryBelow = u8();

  // ---- findings, in turn order then contract §4 table order
  readonly findingTurn = i32();
  readonly findingSignal = u8();
  readonly findingSpanStart = i32();
  readonly findingSpanIds = i32();
  readonly findingMessage: string[] = [];
  /** per signal: finding indices, in turn order */
  readonly bySignal = SIGNALS.map(() => i32(64));
  readonly signalCounts = new Int32Array(SIGNALS.length);

  // ---- incidents: runs of consecutive turns on which one signal fired
  readonly incidentSignal = u8();
  readonly incidentStart = i32();
  readonly incidentEnd = i32();
  /** position of the incident's first finding in bySignal[signal] */
  readonly incidentFirst = i32();
  readonly incidentCount = i32();
  /** contract-open presentation rule, core's (src/core/incidents.ts): runs of consecutive snapshots per signal */
  private readonly runs = new IncidentRuns();

  firstFault: { turnIndex: number; signal: Signal } | null = null;
  hasCanary = false;
  hasRewrites = false;

  // ---- spans
  readonly spanIndex = new Map<string, number>();
  readonly spans: SpanInfo[] = [];
  readonly rows: SpanRows;
  private textChars = 0;
  private lastIds: string[] = [];
  private lastIdx = new Int32Array(0);
  private readonly textQueue: { span: number; ver: number }[] = [];
  private textQueueHead = 0;

  constructor(
    readonly sessionId: string,
    public thresholds: Thresholds,
    private readonly limits: StoreLimits = DEFAULT_STORE_LIMITS,
  ) {
    this.rows = new SpanRows(limits.maxSpanRows);
  }

  get turnCount(): number {
    return this.col.turn.length;
  }

  /**
   * Bytes of typed arrays this session holds (per-turn columns, span rows): what must
   * grow with what the session holds, so that many small sessions cost little.
   */
  get heldBytes(): number {
    let bytes = this.rows.heldBytes;
    for (const v of [...Object.values(this), ...Object.values(this.col)] as unknown[]) {
      if (v instanceof Column) bytes += v.heldBytes;
      else if (ArrayBuffer.isView(v)) bytes += v.byteLength;
    }
    for (const c of this.bySignal) bytes += c.heldBytes;
    return bytes;
  }

  /** Index of `turn` among the session's turns, or -1. */
  indexOf(turn: number): number {
    const i = lowerBound(this.col.turn.view(), turn);
    return i < this.col.turn.length && this.col.turn.get(i) === turn ? i : -1;
  }

  /** First turn index whose per-span rows are still held. */
  get spansHeldFromIndex(): number {
    const from = this.rows.heldFrom;
    if (from === 0) return 0;
    return lowerBound(this.rowStart.view(), from);
  }

  rowsOf(t: number): { start: number; end: number } | null {
    const start = this.rowStart.get(t);
    const end = t + 1 < this.rowStart.length ? this.rowStart.get(t + 1) : this.rows.length;
    return this.rows.has(start) || start === end ? { start, end } : null;
  }

  intern(id: string): number {
    let idx = this.spanIndex.get(id);
    if (idx === undefined) {
      idx = this.spans.length;
      this.spanIndex.set(id, idx);
      this.spans.push({
        id,
        texts: [],
        claims: [],
        parents: [],
        role: null,
        label: null,
        compositionKind: 'other',
        firstSeen: -1,
        lastSeen: -1,
        prunedAt: -1,
        prunedTurns: [],
        archivedAt: -1,
      });
    }
    return idx;
  }

  record(result: TurnResult, snap: Snapshot): void {
    const t = this.turnCount;
    const m = result.metrics;
    recordTurn(this.col, result, snap);
    this.recordCompaction(result);
    this.composition.record(m.tokens_by_kind, snap.spans, m.tokens_total, result.contextWindow?.tokens ?? Number.NaN);
    this.contextWindow = result.contextWindow;
    if (typeof snap.reference_agreement === 'number') this.hasAgreement = true;
    if (m.spans_modified > 0 || m.texts_changed > 0) this.hasRewrites = true;

    const v = result.verdict;
    this.recStart.push(this.recIds.length);
    for (const id of v.recompute) this.recIds.push(this.intern(id));
    this.dropStart.push(this.dropIds.length);
    for (const id of v.drop) this.dropIds.push(this.intern(id));

    this.canaryStart.push(this.canarySpan.length);
    for (const c of m.canaries) {
      this.canarySpan.push(this.intern(c.span_id));
      this.canaryRank.push(c.rank);
      this.canaryBelow.push(c.below_median ? 1 : 0);
    }
    if (m.canaries.length > 0) this.hasCanary = true;

    this.recordFindings(t, result);
    this.recordSpans(t, result, snap);
    for (const id of snap.pruned ?? []) {
      const info = this.spans[this.intern(id)]!;
      info.prunedAt = t;
      info.prunedTurns.push(t);
    }
    for (const id of readArchived(snap)) {
      const info = this.spans[this.intern(id)]!;
      if (info.archivedAt === -1) info.archivedAt = t;
    }
  }

  /** contract §8.2: whether `id` was declared archived at or before turn index t (a parent gone from the live context, not missing). */
  archivedBy(id: string, t: number): boolean {
    const at = this.spans[this.spanIndex.get(id) ?? -1]?.archivedAt ?? -1;
    return at >= 0 && at <= t;
  }

  /** contract §4 findings of turn index t, and the incidents they open or extend (core's rule). */
  private recordFindings(t: number, result: TurnResult): void {
    for (const f of result.findings) {
      const s = SIGNAL_INDEX[f.signal];
      const fi = this.findingTurn.length;
      this.findingTurn.push(t);
      this.findingSignal.push(s);
      this.findingSpanStart.push(this.findingSpanIds.length);
      for (const id of f.span_ids) this.findingSpanIds.push(this.intern(id));
      this.findingMessage.push(f.message);
      const pos = this.bySignal[s]!.length;
      this.bySignal[s]!.push(fi);
      this.signalCounts[s]!++;
      if (f.severity === 'fault' && this.firstFault === null) this.firstFault = { turnIndex: t, signal: f.signal };
      const { index: k, placement } = this.runs.add(f.signal, t);
      if (placement === 'opened') {
        this.incidentSignal.push(s);
        this.incidentStart.push(t);
        this.incidentEnd.push(t);
        this.incidentFirst.push(pos);
        this.incidentCount.push(1);
      } else {
        this.incidentEnd.set(k, t);
        this.incidentCount.set(k, this.incidentCount.get(k) + 1);
      }
    }
  }

  /** contract §8.3: a record that took effect at this turn, or refetches that updated earlier ones. */
  private recordCompaction(result: TurnResult): void {
    const c = result.compaction;
    if (c === null) return;
    if (c.record !== null) {
      this.compactions.push(c.record);
      this.compactionTurns.push(result.turn);
    }
    this.compactionRevision++;
  }

  private recordSpans(t: number, result: TurnResult, snap: Snapshot): void {
    this.rowStart.push(this.rows.length);
    const spans = snap.spans;
    // Spans mostly keep their order from turn to turn (some pruned, some appended): walking
    // last turn's ids alongside finds most indices without a lookup in a map of every id.
    const prevIds = this.lastIds;
    const prevIdx = this.lastIdx;
    const ids = new Array<string>(spans.length);
    const idxs = new Int32Array(spans.length);
    let j = 0;
    for (let i = 0; i < spans.length; i++) {
      const span = spans[i]!;
      const check = result.checks[i]!;
      const id = span.span_id;
      let idx: number;
      if (j < prevIds.length && prevIds[j] === id) idx = prevIdx[j++]!;
      else if (j + 1 < prevIds.length && prevIds[j + 1] === id) {
        idx = prevIdx[j + 1]!;
        j += 2;
      } else idx = this.intern(id);
      ids[i] = id;
      idxs[i] = idx;
      const info = this.spans[idx]!;

      let ver = info.texts.length - 1;
      const last = info.texts[ver];
      const same = last !== undefined && ((info.lastSeen === t - 1 && !check.textChanged) || last.text === span.text);
      if (!same) {
        info.texts.push({ text: span.text, firstTurnIndex: t, digest: check.digest });
        ver = info.texts.length - 1;
        this.holdText(idx, ver, span.text.length);
      } else if (last.digest === undefined && check.digest !== undefined) {
        last.digest = check.digest;
      }

      let claimVer = -1;
      const claimed = span.text_sha256;
      if (claimed !== null && claimed !== '') {
        claimVer = info.claims.length - 1;
        if (claimVer < 0 || info.claims[claimVer] !== claimed) {
          info.claims.push(claimed);
          claimVer = info.claims.length - 1;
        }
      }

      let parentsVer = -1;
      const df = span.derived_from;
      if (df !== undefined && df.length > 0) {
        parentsVer = info.parents.length - 1;
        if (parentsVer < 0 || !sameStrings(info.parents[parentsVer]!, df)) {
          info.parents.push(df.slice());
          parentsVer = info.parents.length - 1;
        }
      }

      if (span.role !== undefined) info.role = span.role;
      if (typeof span.label === 'string' && span.label !== '') info.label = span.label;
      info.compositionKind = compositionKind(span.role, span.kind, span.tool);
      if (info.firstSeen < 0) info.firstSeen = t;
      info.lastSeen = t;

      this.rows.push(
        idx,
        span.score ?? Number.NaN,
        check.binding,
        span.rewrite_count ?? 0,
        ver,
        claimVer,
        parentsVer,
        span.tokens ?? estimateTokens(span.text),
        (span.pinned === true ? FLAG_PINNED : 0) | (check.textChanged ? FLAG_TEXT_CHANGED : 0),
      );
    }
    this.lastIds = ids;
    this.lastIdx = idxs;
    this.rows.trim();
  }

  private holdText(span: number, ver: number, chars: number): void {
    this.textQueue.push({ span, ver });
    this.textChars += chars;
    // at most one pass over the queue: a span's current text is always kept (the latest
    // snapshot shows it), so it goes back to the end of the queue
    let pass = this.textQueue.length - this.textQueueHead;
    while (this.textChars > this.limits.maxTextChars && pass-- > 0) {
      const old = this.textQueue[this.textQueueHead++]!;
      const info = this.spans[old.span]!;
      if (old.ver === info.texts.length - 1) {
        this.textQueue.push(old);
        continue;
      }
      const v = info.texts[old.ver]!;
      if (v.text !== null) {
        this.textChars -= v.text.length;
        v.text = null;
      }
    }
    if (this.textQueueHead > 4096 && this.textQueueHead * 2 > this.textQueue.length) {
      this.textQueue.splice(0, this.textQueueHead);
      this.textQueueHead = 0;
    }
  }

  /** Finding indices of turn index t: [from, to). */
  findingsAt(t: number): [number, number] {
    const view = this.findingTurn.view();
    return [lowerBound(view, t), lowerBound(view, t + 1)];
  }

  findingSpans(fi: number): number[] {
    const from = this.findingSpanStart.get(fi);
    const to = fi + 1 < this.findingSpanStart.length ? this.findingSpanStart.get(fi + 1) : this.findingSpanIds.length;
    const out: number[] = [];
    for (let k = from; k < to; k++) out.push(this.findingSpanIds.get(k));
    return out;
  }

  verdictLists(t: number): { recompute: number[]; drop: number[] } {
    const slice = (start: ReturnType<typeof i32>, ids: ReturnType<typeof i32>): number[] => {
      const from = start.get(t);
      const to = t + 1 < start.length ? start.get(t + 1) : ids.length;
      const out: number[] = [];
      for (let k = from; k < to; k++) out.push(ids.get(k));
      return out;
    };
    return { recompute: slice(this.recStart, this.recIds), drop: slice(this.dropStart, this.dropIds) };
  }

  canariesAt(t: number): [number, number] {
    const from = this.canaryStart.get(t);
    const to = t + 1 < this.canaryStart.length ? this.canaryStart.get(t + 1) : this.canarySpan.length;
    return [from, to];
  }

  /** contract §8.8: id → label of the spans given (by index) that have a label. */
  labelsOf(spans: Iterable<number>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const idx of spans) {
      const info = this.spans[idx];
      if (info?.label != null) out[info.id] = info.label;
    }
    return out;
  }

  /** contract §8.8: the same, by span id (ids never seen are left out). */
  labelsOfIds(ids: Iterable<string>): Record<string, string> {
    const idx: number[] = [];
    for (const id of ids) {
      const i = this.spanIndex.get(id);
      if (i !== undefined) idx.push(i);
    }
    return this.labelsOf(idx);
  }

  /** The row of span `idx` at turn index t, or -1 (not live, or rows released). */
  rowOf(t: number, idx: number, hint = -1): number {
    const r = this.rowsOf(t);
    if (r === null) return -1;
    if (hint >= 0 && r.start + hint < r.end && this.rows.spanAt(r.start + hint) === idx) return r.start + hint;
    for (let row = r.start; row < r.end; row++) if (this.rows.spanAt(row) === idx) return row;
    return -1;
  }
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function bindingName(b: number): BindingName {
  switch (b) {
    case Binding.Unscored:
      return 'unscored';
    case Binding.Unbound:
      return 'unbound';
    case Binding.Stale:
      return 'stale';
    default:
      return 'bound';
  }
}
