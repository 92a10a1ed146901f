// Claude Code session transcripts (~/.claude/projects/<project>/<session>.jsonl) turned
// into contract §2 messages: one session header, then one snapshot per API call of the
// main chain. The mapping rules are docs/adapters.md "Claude Code"; each rule below names
// the one it implements. The output is ordinary wire messages, so every door (check, the
// Worker, the relay) analyses them with the unchanged engine.
import type { SessionHeader, Snapshot, Span } from '../../core/wire.ts';
import { SkippedRecords } from './skipped.ts';

export interface AdaptedMessage {
  value: SessionHeader | Snapshot;
  /** the transcript line the message comes from, for input errors */
  line: number;
}

/** adapters.md: the transcript lacks the system prompt and tool definitions; this pinned span stands for them. */
export const SYSTEM_SPAN_ID = 'system';
export const SYSTEM_SPAN_TEXT = '(system prompt and tool definitions: not in the transcript)';
/** adapters.md microcompaction: what a cleared tool result reads as from then on. */
export const CLEARED_TOOL_RESULT = '[Old tool result content cleared]';

type JsonObject = Record<string, unknown>;

interface ContextBlock {
  id: string;
  text: string;
  role: string;
  kind: string;
  pinned: boolean;
  derivedFrom: string[] | null;
  /** tool_result blocks: the tool_use they answer (microcompaction clears by it) */
  toolUseId: string | null;
  /** contract §2.3 estimate of `text`, counted once (a block is in every later snapshot) */
  estimate: number;
}

export class ClaudeCodeAdapter {
  readonly skipped = new SkippedRecords();
  private sessionId: string | null = null;
  private headerSent = false;
  /** the main chain since the last compact boundary, in file order */
  private context: ContextBlock[] = [];
  /** adapters.md compaction: ids dropped by a compact boundary, pruned at the next call */
  private removed: string[] = [];
  /** the spans a pending compaction summary replaces (null: no compaction pending) */
  private replaced: string[] | null = null;
  /** adapters.md compaction: the boundary's compactMetadata, marked on the next call's snapshot */
  private compaction: { trigger: string | null; preTokens: number | null } | null = null;
  /** adapters.md microcompaction: ids whose text was cleared since the last call */
  private modified = new Set<string>();
  private readonly requestIds = new Set<string>();
  private readonly seenUuids = new Set<string>();
  private turn = 0;
  private firstPromptSeen = false;

  constructor(private readonly fallbackSessionId = 'claude-code') {}

  get turns(): number {
    return this.turn;
  }

  /** One parsed transcript record; returns the wire messages it completes (often none). */
  record(value: unknown, line: number): AdaptedMessage[] {
    if (!isObject(value)) {
      this.skipped.add('not an object');
      return [];
    }
    const out: AdaptedMessage[] = [];
    const type = typeof value.type === 'string' ? value.type : '(no type)';
    if (this.sessionId === null && typeof value.sessionId === 'string' && value.sessionId !== '') {
      this.sessionId = value.sessionId;
      this.header(value, line, out);
    }
    // adapters.md: sub-agent traffic is not the main context
    if (value.isSidechain === true && (type === 'user' || type === 'assistant' || type === 'system')) {
      this.skipped.add(`${type} (sidechain)`);
      return out;
    }
    switch (type) {
      case 'user':
        this.user(value, line);
        break;
      case 'assistant':
        this.assistant(value, line, out);
        break;
      case 'system':
        this.system(value);
        break;
      default:
        // summary, progress, file-history-snapshot, queue-operation, …: not sent to the model
        this.skipped.add(type);
    }
    return out;
  }

  /** The last line could not be parsed: a file still being written (adapters.md), not an input error. */
  truncatedLastLine(): void {
    this.skipped.add('truncated last line');
  }

  private header(record: JsonObject, line: number, out: AdaptedMessage[]): void {
    if (this.headerSent) return;
    this.headerSent = true;
    const sid = this.sessionId ?? this.fallbackSessionId;
    const header: SessionHeader = { type: 'session', session_id: sid, title: `Claude Code session ${sid}`, source: 'claude-code' };
    if (typeof record.timestamp === 'string') header.started_at = record.timestamp;
    out.push({ value: header, line });
  }

  private user(record: JsonObject, line: number): void {
    if (!this.fresh(record)) return;
    const message = isObject(record.message) ? record.message : null;
    const content = message?.content;
    const base = recordId(record, line);
    const summary = record.isCompactSummary === true;
    const blocks: ContextBlock[] = [];
    if (typeof content === 'string') {
      blocks.push(block(`${base}#0`, content, 'text', null));
    } else if (Array.isArray(content)) {
      content.forEach((b, i) => {
        const made = contentBlock(b, `${base}#${i}`);
        if (made === null) this.skipped.add('malformed content block');
        else blocks.push(made);
      });
    } else {
      this.skipped.add('user without content');
      return;
    }
    const authored = !summary && record.isMeta !== true && blocks.some((b) => b.kind === 'text') && blocks.every((b) => b.kind !== 'tool_result');
    for (const b of blocks) {
      if (b.kind === 'tool_result') b.role = 'tool';
      else if (summary) b.role = 'summary';
      else if (record.isMeta === true) b.role = 'meta';
      else b.role = 'user';
    }
    if (summary) {
      // adapters.md compaction: the model-written summary cites every span it replaced
      for (const b of blocks) b.derivedFrom = this.replaced ?? [];
      this.replaced = null;
    } else if (authored && !this.firstPromptSeen) {
      // adapters.md: the first user prompt is pinned (the operator's task: a canary)
      this.firstPromptSeen = true;
      for (const b of blocks) b.pinned = true;
    }
    this.context.push(...blocks);
  }

  private assistant(record: JsonObject, line: number, out: AdaptedMessage[]): void {
    const requestId = typeof record.requestId === 'string' && record.requestId !== '' ? record.requestId : null;
    if (requestId === null) {
      // adapters.md: without a requestId it is not an API call (synthetic or error records)
      this.skipped.add('assistant without requestId');
      return;
    }
    if (!this.fresh(record)) return;
    const message = isObject(record.message) ? record.message : null;
    if (!this.requestIds.has(requestId)) {
      // adapters.md: a turn is one API call; its first record decides the snapshot (what the call saw)
      this.requestIds.add(requestId);
      this.turn++;
      this.header(record, line, out);
      out.push({ value: this.snapshot(record, requestId, message), line });
    }
    const content = message?.content;
    const base = recordId(record, line);
    if (!Array.isArray(content)) return;
    content.forEach((b, i) => {
      const made = contentBlock(b, `${base}#${i}`);
      if (made === null) this.skipped.add('malformed content block');
      else this.context.push(made);
    });
  }

  private system(record: JsonObject): void {
    const subtype = typeof record.subtype === 'string' ? record.subtype : null;
    if (subtype === 'compact_boundary') {
      // adapters.md compaction: a new context starts; everything before is replaced by the summary
      const ids = this.context.map((b) => b.id);
      this.removed.push(...ids);
      this.replaced = [...(this.replaced ?? []), ...ids];
      this.context = [];
      for (const id of ids) this.modified.delete(id);
      const meta = isObject(record.compactMetadata) ? record.compactMetadata : null;
      this.compaction = {
        trigger: typeof meta?.trigger === 'string' ? meta.trigger : null,
        preTokens: typeof meta?.preTokens === 'number' ? meta.preTokens : null,
      };
      return;
    }
    if (subtype === 'microcompact_boundary') {
      const meta = isObject(record.microcompactMetadata) ? record.microcompactMetadata : null;
      const cleared = new Set(Array.isArray(meta?.compactedToolIds) ? meta.compactedToolIds.filter((x): x is string => typeof x === 'string') : []);
      // adapters.md microcompaction: same ids, placeholder text from then on
      for (const b of this.context) {
        if (b.toolUseId !== null && cleared.has(b.toolUseId) && b.text !== CLEARED_TOOL_RESULT) {
          b.text = CLEARED_TOOL_RESULT;
          b.estimate = estimateTokens(b.text);
          this.modified.add(b.id);
        }
      }
      return;
    }
    this.skipped.add(`system:${subtype ?? '(no subtype)'}`);
  }

  /** A record already seen (Claude Code repeats some on resume) would duplicate span ids: skipped. */
  private fresh(record: JsonObject): boolean {
    if (typeof record.uuid !== 'string') return true;
    if (this.seenUuids.has(record.uuid)) {
      this.skipped.add('repeated record');
      return false;
    }
    this.seenUuids.add(record.uuid);
    return true;
  }

  private snapshot(record: JsonObject, requestId: string, message: JsonObject | null): Snapshot {
    const visible = this.context.map(toSpan);
    const system: Span = { span_id: SYSTEM_SPAN_ID, text: SYSTEM_SPAN_TEXT, score: null, text_sha256: null, pinned: true, role: 'system' };
    const total = promptTokens(message);
    if (total !== null) {
      const shares = fitTokens(
        this.context.map((b) => b.estimate),
        total,
      );
      visible.forEach((s, i) => (s.tokens = shares[i]!));
      system.tokens = total - shares.reduce((a, b) => a + b, 0);
    }
    const snap: Snapshot = {
      type: 'snapshot',
      session_id: this.sessionId ?? this.fallbackSessionId,
      turn: this.turn,
      spans: [system, ...visible],
      request_id: requestId,
    };
    if (typeof record.timestamp === 'string') snap.ts = record.timestamp;
    if (this.removed.length > 0) snap.pruned = this.removed;
    // an extra field (contract §2.2 keeps unknown fields): the dashboard marks this turn on its charts
    if (this.compaction !== null) snap.compaction = this.compaction;
    this.compaction = null;
    const live = new Set(visible.map((s) => s.span_id));
    const modified = [...this.modified].filter((id) => live.has(id));
    if (modified.length > 0) snap.rewrite = { spans_modified: modified.length, scores_invalidated: modified.length, modified_span_ids: modified };
    this.removed = [];
    this.modified = new Set();
    return snap;
  }
}

/** adapters.md tokens: input + cache creation + cache read of the call; null when the record has no usage. */
export function promptTokens(message: JsonObject | null): number | null {
  const usage = isObject(message?.usage) ? message.usage : null;
  if (usage === null) return null;
  let total = 0;
  let any = false;
  for (const key of ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens']) {
    const v = usage[key];
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0) {
      total += v;
      any = true;
    }
  }
  return any ? total : null;
}

/** contract §2.3's estimate: ⌈code points / 4⌉. */
export function estimateTokens(text: string): number {
  // code points: UTF-16 units less the low halves of surrogate pairs
  let points = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
      const p = text.charCodeAt(i - 1);
      if (p >= 0xd800 && p <= 0xdbff) points--;
    }
  }
  return Math.ceil(points / 4);
}

/**
 * adapters.md tokens: the visible spans keep their estimates when they fit in the call's
 * total; when they do not, each is scaled down by total / sum (rounded down), so the
 * system span (the rest) is never negative and the turn's total is exact.
 */
export function fitTokens(estimates: number[], total: number): number[] {
  const sum = estimates.reduce((a, b) => a + b, 0);
  if (sum <= total) return estimates;
  return estimates.map((e) => Math.floor((e * total) / sum));
}

function toSpan(b: ContextBlock): Span {
  const span: Span = { span_id: b.id, text: b.text, score: null, text_sha256: null, role: b.role, kind: b.kind };
  if (b.pinned) span.pinned = true;
  if (b.derivedFrom !== null) span.derived_from = b.derivedFrom;
  return span;
}

function block(id: string, text: string, kind: string, toolUseId: string | null): ContextBlock {
  return { id, text, role: 'assistant', kind, pinned: false, derivedFrom: null, toolUseId, estimate: estimateTokens(text) };
}

/** One content block as context text; null when it is not a block at all. */
function contentBlock(raw: unknown, id: string): ContextBlock | null {
  if (typeof raw === 'string') return block(id, raw, 'text', null);
  if (!isObject(raw) || typeof raw.type !== 'string') return null;
  switch (raw.type) {
    case 'text':
      return block(id, str(raw.text), 'text', null);
    case 'thinking':
      return block(id, str(raw.thinking), 'thinking', null);
    case 'redacted_thinking':
      return block(id, '[redacted thinking]', 'thinking', null);
    case 'tool_use':
      return block(id, `${str(raw.name)} ${JSON.stringify(raw.input ?? {})}`, 'tool_use', null);
    case 'tool_result':
      return block(id, toolResultText(raw.content), 'tool_result', typeof raw.tool_use_id === 'string' ? raw.tool_use_id : null);
    default:
      // image, document, …: the model saw something; its text is not in the transcript
      return block(id, `[${raw.type}]`, raw.type, null);
  }
}

function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isObject(part) ? (part.type === 'text' ? str(part.text) : `[${str(part.type)}]`) : '')).join('\n');
}

function recordId(record: JsonObject, line: number): string {
  return typeof record.uuid === 'string' && record.uuid !== '' ? record.uuid : `line${line}`;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
