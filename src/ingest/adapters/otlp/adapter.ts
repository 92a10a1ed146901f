// OpenTelemetry traces turned into contract §2 messages (contract §7.4; the mapping
// rules are docs/adapters.md "OpenTelemetry", each rule below names the one it
// implements). Pure: the relay's receiver (src/server/otlp/) decodes the body, hands the
// request here, sends what comes out through the same ingest path as every other message.
//
// A conversation becomes one session whose turns are its model calls, in start-time order
// (reorder.ts holds them for a short window first); the documents of its RETRIEVER /
// RERANKER spans become a second session, `<conversation>/retrieval`, whose turns are the
// retrievals and whose spans carry the retriever's real scores. Two sessions, because the
// detectors compare scores within a snapshot (contract §4.14–§4.16): the retriever's scores
// and the reference scorer's (contract §7) are not on one scale.
import { firstWords } from '../spanLabels.ts';
import { judgeItems, type AuditItem } from '../../../core/compactionAudit.ts';
import type { Sha256Hex } from '../../../core/analyse.ts';
import type { SessionHeader, Snapshot, Span } from '../../../core/wire.ts';
import { estimateTokens, fitTokens } from '../tokens.ts';
import { SkippedRecords } from '../skipped.ts';
import { extract, type Extracted, type ModelCall, type Retrieval } from './conventions.ts';
import { readSpan, readTraceRequest, type Attributes, type Rejected } from './model.ts';
import { ReorderBuffer } from './reorder.ts';

/** docs/adapters.md: the default reorder window (`serve --otlp-reorder-ms`). */
export const DEFAULT_REORDER_MS = 2000;
/** span keys (trace id + span id) remembered to recognise an exporter's retry */
const SEEN_SPANS = 100_000;
/** conversations whose state is kept; the least recently used beyond are forgotten (then numbered from the stored turn) */
const KEPT_SESSIONS = 10_000;
/** input errors carried by one snapshot at most; the rest are counted */
const LISTED_INPUT_ERRORS = 100;

export interface OtlpAdapterOptions {
  sha256: Sha256Hex;
  reorderMs?: number;
  /**
   * The last turn already stored for a session (null: none stored): a relay restarted
   * mid-conversation numbers the next call after it and sends no second header.
   */
  storedTurn?: (sessionId: string) => number | null;
}

export interface OtlpMessage {
  value: SessionHeader | Snapshot;
  /** the session carries no score of its own: the reference scorer fills them (contract §7) */
  unscored: boolean;
}

export interface ReceiveResult {
  /** spans read (mapped, skipped or already seen) */
  accepted: number;
  /** spans that could not be read or placed, each with where and why */
  rejected: Rejected[];
  /** a warning for the sender when nothing was rejected (OTLP partial_success) */
  warning: string | null;
}

export interface OtlpInputError {
  trace_id: string;
  span_id: string;
  message: string;
}

/** An export's spans as events: what the adapter's state is not needed for (prepareExport). */
export interface PreparedExport {
  events: { key: string; event: Extracted }[];
  rejected: Rejected[];
}

/**
 * The stateless half of receive(): the request read and each span's event extracted. Pure,
 * so the relay runs it on its decode thread with the decoding; a skipped span leaves only
 * its key and why, so little crosses back to the event loop.
 */
export function prepareExport(request: unknown): PreparedExport {
  const { spans, rejected } = readTraceRequest(request);
  const events: PreparedExport['events'] = [];
  for (const span of spans) {
    try {
      events.push({ key: `${span.traceId}/${span.spanId}`, event: extract(span) });
    } catch (e) {
      rejected.push({ where: span.where, message: (e as Error).message });
    }
  }
  return { events, rejected };
}

/**
 * One span read into `into` (prepareExport one span at a time): the relay's protobuf path
 * decodes a request span by span, so no copy of the whole request is held as objects.
 */
export function prepareSpan(raw: unknown, resource: Attributes, where: string, into: PreparedExport): void {
  // a span that cannot be read or extracted (a JSON attribute nested too deep) is that span's
  // rejection, never the whole export's failure
  let span, event;
  try {
    span = readSpan(raw, resource, where);
    event = extract(span);
  } catch (e) {
    into.rejected.push({ where, message: (e as Error).message });
    return;
  }
  into.events.push({ key: `${span.traceId}/${span.spanId}`, event });
}

interface Item {
  session: string;
  startNs: bigint;
  key: string;
  event: ModelCall | Retrieval;
}

interface SessionState {
  id: string;
  retrieval: boolean;
  turn: number;
  /** the previous snapshot's span ids, in order: what disappears is pruned */
  previous: string[];
  /** docs/adapters.md pinned: the first user message of the conversation (the task) */
  task: Set<string> | null;
  /** docs/adapters.md summaries: a summary span → the spans it replaced, kept on later turns */
  lineage: Map<string, string[]>;
  /** the previous snapshot's user-prompt texts by span id: a compaction's items (contract §8.3) */
  previousPrompts: Map<string, string>;
  /** what could not be placed since the last snapshot (carried by the next one) */
  errors: OtlpInputError[];
  unlisted: number;
}

export class OtlpAdapter {
  readonly skipped = new SkippedRecords();
  private readonly buffer: ReorderBuffer<Item>;
  private readonly sessions = new Map<string, SessionState>();
  private readonly seen = new Set<string>();
  private readonly sha256: Sha256Hex;
  private readonly storedTurn: (sessionId: string) => number | null;

  constructor(options: OtlpAdapterOptions) {
    this.sha256 = options.sha256;
    this.storedTurn = options.storedTurn ?? (() => null);
    this.buffer = new ReorderBuffer(options.reorderMs ?? DEFAULT_REORDER_MS);
  }

  get reorderMs(): number {
    return this.buffer.windowMs;
  }

  /** One ExportTraceServiceRequest (as an object); throws only when it is not one. */
  receive(request: unknown, nowMs: number): ReceiveResult {
    return this.receivePrepared(prepareExport(request), nowMs);
  }

  /** An export read by prepareExport (which may run on another thread: it is pure). */
  receivePrepared(prepared: PreparedExport, nowMs: number): ReceiveResult {
    const rejected = [...prepared.rejected];
    let accepted = 0;
    let noContent = 0;
    // a batch is placed in start order, so one request never makes its own spans late
    const items: Item[] = [];
    for (const { key, event } of prepared.events) {
      if (this.seen.has(key)) {
        accepted++; // an exporter's retry: acknowledged again, mapped once
        continue;
      }
      if (event.kind === 'skip') {
        this.skipped.add(event.what);
        this.remember(key);
        accepted++;
        continue;
      }
      if (event.kind === 'call' && event.messages.length === 0) {
        this.skipped.add(`${event.convention} call without input messages`);
        this.remember(key);
        noContent++;
        accepted++;
        continue;
      }
      const session = sessionOfConversation(event.conversation, event.kind === 'retrieval');
      items.push({ session, startNs: event.startNs, key, event });
    }
    items.sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    for (const item of items) {
      if (this.buffer.add(item, nowMs) === 'held') {
        this.remember(item.key);
        accepted++;
        continue;
      }
      const message = this.late(item);
      rejected.push({ where: item.event.where, message });
    }
    const warning =
      noContent > 0
        ? `${noContent} model call span${noContent === 1 ? '' : 's'} carried no input messages and were not mapped: enable message content capture in the instrumentation (for the GenAI conventions, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true)`
        : null;
    return { accepted, rejected, warning };
  }

  /** The messages of every call whose reorder window has passed. */
  due(nowMs: number): OtlpMessage[] {
    return [...this.dueEach(nowMs)];
  }

  /** Everything held, whatever its window (the relay is closing). */
  flush(): OtlpMessage[] {
    return [...this.flushEach()];
  }

  /**
   * due(), one message at a time: the calls are taken from the window now, each message is
   * built only when the one before it was taken, so a caller that stores each before asking
   * for the next never holds a large export's snapshots all at once (docs/security.md
   * "Bounded amplification"). Take them all before calling due() again.
   */
  dueEach(nowMs: number): Iterable<OtlpMessage> {
    return this.map(this.buffer.due(nowMs));
  }

  /** flush(), one message at a time (dueEach). */
  flushEach(): Iterable<OtlpMessage> {
    return this.map(this.buffer.flush());
  }

  nextDueMs(): number | null {
    return this.buffer.nextDueMs();
  }

  get held(): number {
    return this.buffer.size;
  }

  private remember(key: string): void {
    this.seen.add(key);
    if (this.seen.size > SEEN_SPANS) this.seen.delete(this.seen.values().next().value!);
  }

  /** docs/adapters.md ordering: a span later than the window is refused and listed in its session's input errors. */
  private late(item: Item): string {
    const s = this.sessions.get(item.session);
    const turn = s === undefined ? 'a later turn' : `turn ${s.turn}`;
    const message =
      `span ${item.event.spanId} of trace ${item.event.traceId} (${item.event.where}) started at ${iso(item.startNs)}, before ${turn} of session ` +
      `${JSON.stringify(item.session)} was stored: it arrived more than the reorder window (${this.buffer.windowMs} ms) late and could not be placed`;
    if (s !== undefined) {
      if (s.errors.length < LISTED_INPUT_ERRORS) s.errors.push({ trace_id: item.event.traceId, span_id: item.event.spanId, message });
      else s.unlisted++;
    }
    return message;
  }

  private *map(items: Item[]): Generator<OtlpMessage> {
    for (const item of items) {
      const e = item.event;
      let s = this.sessions.get(item.session);
      if (s !== undefined) {
        // least recently used first: a Map keeps insertion order
        this.sessions.delete(item.session);
        this.sessions.set(item.session, s);
      } else {
        const stored = this.storedTurn(item.session);
        s = {
          id: item.session,
          retrieval: e.kind === 'retrieval',
          turn: stored ?? 0,
          previous: [],
          task: null,
          lineage: new Map(),
          previousPrompts: new Map(),
          errors: [],
          unlisted: 0,
        };
        this.sessions.set(item.session, s);
        if (this.sessions.size > KEPT_SESSIONS) {
          const oldest = this.sessions.keys().next().value!;
          this.sessions.delete(oldest);
          this.buffer.forget(oldest);
        }
        if (stored === null) yield { value: this.header(s, e), unscored: !s.retrieval };
      }
      s.turn++;
      const snap = e.kind === 'call' ? this.callSnapshot(s, e) : this.retrievalSnapshot(s, e);
      if (s.errors.length > 0) {
        // an extra field (contract §2.2): what could not be placed, in the session's own log
        snap.input_errors = s.errors;
        if (s.unlisted > 0) snap.input_errors_not_listed = s.unlisted;
        s.errors = [];
        s.unlisted = 0;
      }
      yield { value: snap, unscored: !s.retrieval };
    }
  }

  private header(s: SessionState, e: ModelCall | Retrieval): SessionHeader {
    const header: SessionHeader = {
      type: 'session',
      session_id: s.id,
      title: `${s.retrieval ? 'Retrievals of OpenTelemetry conversation' : 'OpenTelemetry conversation'} ${e.conversation}`,
      started_at: iso(e.startNs),
      source: 'otlp',
    };
    // contract §8.1: the relay scores model calls with the reference scorer (retrievals keep the retriever's)
    if (!s.retrieval) header.scores = 'reference';
    if (e.service !== null) header.service = e.service;
    return header;
  }

  private callSnapshot(s: SessionState, c: ModelCall): Snapshot {
    const spans: Span[] = [];
    const occurrences = new Map<string, number>();
    const summaries: Span[] = [];
    let firstUser: string[] | null = null;
    for (const m of c.messages) {
      const ids: string[] = [];
      for (const p of m.parts) {
        // docs/adapters.md span id: the content's hash, numbered when the same content recurs,
        // so a message keeps its id in every call even when earlier ones are removed
        const h = this.sha256(`${m.role}\u0000${p.type}\u0000${p.text}`).slice(0, 16);
        const n = (occurrences.get(h) ?? 0) + 1;
        occurrences.set(h, n);
        const id = n === 1 ? `m-${h}` : `m-${h}~${n}`;
        ids.push(id);
        const span: Span = { span_id: id, text: p.text, score: null, text_sha256: null, role: m.summary ? 'summary' : m.role, kind: p.type };
        // contract §8.8: named by what it is
        span.label = m.summary ? 'compaction summary' : p.type === 'text' ? firstWords(`${m.role}: ${p.text}`) : firstWords(`${m.role} ${p.type}: ${p.text}`);
        if (m.role === 'system') span.pinned = true;
        if (m.summary) summaries.push(span);
        spans.push(span);
      }
      if (firstUser === null && m.role === 'user' && !m.summary && m.parts.some((p) => p.type === 'text')) firstUser = ids;
    }
    s.task ??= new Set(firstUser ?? []);
    const live = new Set(spans.map((x) => x.span_id));
    const pruned = s.previous.filter((id) => !live.has(id));
    const newSummaries: string[] = [];
    for (const span of spans) {
      if (s.task.has(span.span_id)) span.pinned = true;
      // docs/adapters.md summaries: a marked summary derives from what its call no longer sees
      if (summaries.includes(span) && !s.lineage.has(span.span_id)) {
        s.lineage.set(span.span_id, pruned);
        newSummaries.push(span.span_id);
      }
      const parents = s.lineage.get(span.span_id);
      if (parents !== undefined && parents.length > 0) span.derived_from = parents;
    }
    if (c.inputTokens !== null && spans.length > 0) {
      // docs/adapters.md tokens: the call's input tokens exactly; what the trace does not show
      // (tool definitions, formatting) is counted on the first span
      const shares = fitTokens(
        spans.map((x) => estimateTokens(x.text)),
        c.inputTokens,
      );
      shares[0]! += c.inputTokens - shares.reduce((a, b) => a + b, 0);
      spans.forEach((x, i) => (x.tokens = shares[i]!));
    }
    s.previous = spans.map((x) => x.span_id);
    const snap: Snapshot = { type: 'snapshot', session_id: s.id, turn: s.turn, ts: iso(c.startNs), spans };
    if (pruned.length > 0) snap.pruned = pruned;
    if ((newSummaries.length > 0 || c.compacted) && pruned.length > 0) {
      // contract §8.2–§8.3: the trace still holds the replaced messages (earlier calls carry them); one compaction event
      snap.archived = pruned;
      const items: AuditItem[] = pruned.flatMap((id) => {
        const text = s.previousPrompts.get(id);
        return text === undefined ? [] : [{ kind: 'user_prompt' as const, text, status: 'lost' as const, from_turn: s.turn - 1, span_id: id }];
      });
      // one index over the call's text for every pruned prompt (docs/security.md "Linear time")
      const { statuses } = judgeItems(spans.map((x) => x.text).join('\n'), items);
      items.forEach((it, i) => (it.status = statuses[i]!));
      snap.compaction = { kind: 'compact', trigger: null, pre_tokens: null, replaced: pruned, summary: newSummaries, items, carried: [] };
    }
    s.previousPrompts = new Map(spans.filter((x) => x.role === 'user').map((x) => [x.span_id, x.text]));
    snap.otlp = { trace_id: c.traceId, span_id: c.spanId, convention: c.convention, ...(c.model === null ? {} : { model: c.model }) };
    return snap;
  }

  private retrievalSnapshot(s: SessionState, r: Retrieval): Snapshot {
    const spans: Span[] = [];
    const occurrences = new Map<string, number>();
    const used = new Set<string>();
    for (const d of r.documents) {
      const base = d.id !== null ? `doc-${d.id}` : `doc-${this.sha256(d.text).slice(0, 16)}`;
      let n = (occurrences.get(base) ?? 0) + 1;
      let id = n === 1 ? base : `${base}~${n}`;
      // a document id the sender wrote as `x~2` is the id of x's repeat: the next number free,
      // so two documents never share a span id (the engine refused the retrieval)
      while (used.has(id)) id = `${base}~${++n}`;
      occurrences.set(base, n);
      used.add(id);
      // contract §2.3: the retriever computed the score on this text, so the binding is its hash
      const span: Span = {
        span_id: id,
        text: d.text,
        score: d.score,
        text_sha256: d.score === null ? null : this.sha256(d.text),
        role: 'document',
        kind: r.source,
      };
      if (d.pinned) span.pinned = true;
      spans.push(span);
    }
    const live = new Set(spans.map((x) => x.span_id));
    const pruned = s.previous.filter((id) => !live.has(id));
    s.previous = spans.map((x) => x.span_id);
    const snap: Snapshot = { type: 'snapshot', session_id: s.id, turn: s.turn, ts: iso(r.startNs), spans };
    if (pruned.length > 0) snap.pruned = pruned;
    snap.otlp = { trace_id: r.traceId, span_id: r.spanId, convention: 'openinference', span_kind: r.source.toUpperCase() };
    return snap;
  }
}

function iso(ns: bigint): string {
  return new Date(Number(ns / BigInt(1_000_000))).toISOString();
}

/**
 * The session a conversation's events go to. A conversation's retrievals are the session
 * `<conversation>/retrieval`; a `/` (and the `%` that escapes it) in the conversation id
 * itself is percent-encoded, so conversation "a/retrieval" cannot write into conversation
 * "a"'s retrieval session.
 */
export function sessionOfConversation(conversation: string, retrieval: boolean): string {
  const id = conversation.replace(/%/g, '%25').replace(/\//g, '%2F');
  return retrieval ? `${id}/retrieval` : id;
}
