// Gemini CLI sessions (~/.gemini/tmp/<project>/chats/session-*.json, and .jsonl since
// gemini-cli 0.3x of April 2026) turned into contract §2 messages: one session header, then
// one snapshot per model call (a `gemini` message that reports `tokens`). The legacy file is
// one pretty-printed `ConversationRecord` (JSON.stringify(conversation, null, 2)), rewritten
// whole as it grows; the newer one is JSON Lines: a metadata line, each message record
// (appended again, whole, each time it changes: the last version wins), `{"$set": {…}}`
// updates and `{"$rewindTo": id}` (packages/core/src/services/chatRecordingService.ts).
// The pipeline hands a legacy document over as the same records: its members before
// `messages` as one metadata record, each message, then each later member as a `$set`.
// The mapping rules are docs/adapters.md "Gemini CLI"; each rule below names the one it implements.
import { CompactionAuditor } from '../../core/compactionAudit.ts';
import type { SessionHeader, Snapshot } from '../../core/wire.ts';
import type { AdaptedMessage } from './claudeCode.ts';
import { closeCall } from './callTail.ts';
import { callSpans, contextItem, type ContextItem } from './contextItems.ts';
import {
  checkPartCount,
  FILE_TOOLS,
  geminiCallLabel,
  messageKey,
  partView,
  partsOf,
  plainText,
  READ_TOOLS,
  resultText,
  stringify,
  toolPath,
} from './geminiParts.ts';
import { isObject, type JsonObject } from './json.ts';
import { SkippedRecords } from './skipped.ts';
import { firstWords } from './spanLabels.ts';
import { appendAll } from '../../core/arrays.ts';

/** adapters.md: the session file lacks the system prompt and tool declarations; this span stands for them (never pinned). */
export const GEMINI_SYSTEM_SPAN_ID = 'system';
const SYSTEM_TEXT = '(system prompt and tool declarations: not in the session file)';

/** adapters.md: the compression summary's marker (packages/core/src/context/chatCompressionService.ts). */
const STATE_SNAPSHOT = '<state_snapshot>';
/** adapters.md: the environment context Gemini CLI puts first (packages/core/src/utils/environmentContext.ts; newer versions wrap it in `<session_context>`). */
const ENVIRONMENT_CONTEXT = 'This is the Gemini CLI. We are setting up the context';

function isEnvironmentContext(text: string): boolean {
  const head = text.trimStart();
  return head.startsWith(ENVIRONMENT_CONTEXT) || (head.startsWith('<session_context>') && head.slice(0, 200).includes(ENVIRONMENT_CONTEXT));
}

interface Held {
  record: JsonObject;
  /** the items this version of the message gives the context (cached: a message is in every later call) */
  items: ContextItem[] | null;
  /** tool call ids this message has already given the audit */
  audited: Set<string>;
  /** the turn of the call that wrote this message, once known */
  turn: number | null;
}

export class GeminiAdapter {
  readonly skipped = new SkippedRecords();
  private sessionId: string | null = null;
  private startedAt: string | null = null;
  private cwd: string | null = null;
  private headerSent = false;
  /** message ids in the order the model sees them */
  private order: string[] = [];
  private messages = new Map<string, Held>();
  /** adapters.md: the first prompt is pinned (the operator's task) */
  private firstPromptId: string | null = null;
  private firstPrompt: string | null = null;
  /** span ids that left the context since the last call: pruned and archived at the next */
  private removed: string[] = [];
  private compaction: { replaced: string[]; summary: string[] } | null = null;
  private readonly audit = new CompactionAuditor();
  /** adapters.md: the tool calls a gemini message holds the results of; a later tool-response message repeating one adds nothing */
  private readonly answered = new Set<string>();
  private turn = 0;

  constructor(private readonly fallbackSessionId = 'gemini') {}

  get turns(): number {
    return this.turn;
  }

  /** the work the scaling tests count (docs/security.md "Linear time"): message ids a rewind looked at, span ids a compression listed */
  work = 0;

  /** One record (a JSONL line, or a piece of a legacy document); returns the wire messages it completes. */
  record(value: unknown, line: number): AdaptedMessage[] {
    if (!isObject(value)) {
      this.skipped.add('not an object');
      return [];
    }
    if (typeof value.$rewindTo === 'string') {
      this.rewind(messageKey(value.$rewindTo));
      return [];
    }
    if (isObject(value.$set)) return this.update(value.$set, line);
    if (typeof value.id === 'string') return this.message(value, line);
    if (typeof value.sessionId === 'string') return this.metadata(value, line);
    this.skipped.add('not a Gemini CLI record');
    return [];
  }

  truncatedLastLine(): void {
    this.skipped.add('truncated last line');
  }

  /** The first line (or the legacy document's members before `messages`; a one-line document whole). */
  private metadata(meta: JsonObject, line: number): AdaptedMessage[] {
    if (this.sessionId === null) {
      this.sessionId = meta.sessionId !== '' ? (meta.sessionId as string) : this.fallbackSessionId;
      if (typeof meta.startTime === 'string') this.startedAt = meta.startTime;
    } else if (meta.sessionId !== this.sessionId) this.skipped.add('metadata of another session');
    this.directories(meta.directories);
    const out: AdaptedMessage[] = [];
    if (Array.isArray(meta.messages)) for (const m of meta.messages) appendAll(out, this.record(m, line));
    return out;
  }

  private directories(dirs: unknown): void {
    if (this.cwd === null && Array.isArray(dirs) && typeof dirs[0] === 'string' && dirs[0] !== '') this.cwd = dirs[0];
  }

  /**
   * adapters.md `$set`: metadata, or (`messages`) the whole history again: a checkpoint
   * Gemini CLI writes when it replaces its history (a compression, a rollback, masked tool
   * outputs). The new list replaces the context; a new message in it holding a
   * `<state_snapshot>` makes it a compaction.
   */
  private update(set: JsonObject, line: number): AdaptedMessage[] {
    this.directories(set.directories);
    if (!Array.isArray(set.messages)) return [];
    // a checkpoint holding a message over the part limit is refused whole, before any of it is taken
    for (const m of set.messages) if (isObject(m) && typeof m.id === 'string' && isModelMessage(m)) checkPartCount(m);
    const before = this.order;
    const kept = new Set<string>();
    const next: string[] = [];
    const listed = new Set<string>();
    const fresh: string[] = [];
    for (const m of set.messages) {
      if (!isObject(m) || typeof m.id !== 'string' || !isModelMessage(m)) {
        if (isObject(m) && typeof m.id === 'string') this.skipped.add(`${String(m.type)} (not sent to the model)`);
        else this.skipped.add('malformed checkpoint message');
        continue;
      }
      const id = messageKey(m.id);
      if (listed.has(id)) continue;
      listed.add(id);
      const held = this.messages.get(id);
      if (held === undefined) {
        this.messages.set(id, { record: m, items: null, audited: new Set(), turn: null });
        fresh.push(id);
      } else {
        kept.add(id);
        if (stringify(held.record) !== stringify(m)) {
          held.record = m;
          held.items = null;
        }
      }
      next.push(id);
    }
    const gone = before.filter((id) => !kept.has(id));
    const goneSpans = gone.flatMap((id) => this.visibleItems(id).map((i) => i.id));
    for (const id of gone) this.messages.delete(id);
    this.order = next;
    appendAll(this.removed, goneSpans);
    const summaryIds = fresh.filter((id) => plainText(this.messages.get(id)!.record.content).includes(STATE_SNAPSHOT));
    if (summaryIds.length > 0 && gone.length > 0) {
      // adapters.md compression: the replaced messages' spans, the summary's spans
      this.audit.compact();
      for (const id of fresh) for (const item of this.itemsOf(id)) item.derivedFrom = goneSpans;
      const summary = summaryIds.flatMap((id) => this.itemsOf(id).map((i) => i.id));
      // two compressions before a call: appended to, never copied (n of them copied n lists: docs/security.md "Linear time")
      this.work += goneSpans.length;
      this.compaction = { replaced: appendAll(this.compaction?.replaced ?? [], goneSpans), summary };
    } else if (gone.length > 0) {
      // a rollback (an interrupted prompt, a failed call): what it drops is gone as a rewind's is
      this.audit.forget(new Set(goneSpans));
      this.forgetFirstPrompt(gone);
    }
    const out: AdaptedMessage[] = [];
    for (const id of fresh) appendAll(out, this.took(id, line));
    return out;
  }

  /**
   * adapters.md `$rewindTo`: the message and everything after it leave the history. Looked for
   * from the end (an id is in the history once) and cut in place, so a rewind costs what it drops:
   * a scan from the start and a copy of what stays made n rewinds of the last message n²
   * (docs/security.md "Linear time").
   */
  private rewind(id: string): void {
    const at = this.order.lastIndexOf(id);
    const cut = at === -1 ? 0 : at;
    this.work += this.order.length - cut;
    const gone = this.order.slice(cut);
    const spans = gone.flatMap((g) => this.visibleItems(g).map((i) => i.id));
    for (const g of gone) this.messages.delete(g);
    this.order.length = cut;
    appendAll(this.removed, spans);
    this.audit.forget(new Set(spans));
    this.forgetFirstPrompt(gone);
  }

  /** The first prompt, rewound or rolled back: the next one the user types is the operator's task. */
  private forgetFirstPrompt(gone: readonly string[]): void {
    if (this.firstPromptId !== null && gone.includes(this.firstPromptId)) {
      this.firstPromptId = null;
      this.firstPrompt = null;
    }
  }

  private message(record: JsonObject, line: number): AdaptedMessage[] {
    if (!isModelMessage(record)) {
      // info, error, warning: the UI's own lines, never sent to the model
      this.skipped.add(`${typeof record.type === 'string' ? record.type : '(no type)'} (not sent to the model)`);
      return [];
    }
    // docs/security.md "The new importers": refused (one input error) before it is held
    checkPartCount(record);
    const id = messageKey(record.id as string);
    const held = this.messages.get(id);
    if (held === undefined) {
      this.messages.set(id, { record, items: null, audited: new Set(), turn: null });
      this.order.push(id);
    } else {
      // adapters.md: a message written again (its tokens, its tool calls, their results) replaces its earlier version
      held.record = record;
      held.items = null;
    }
    return this.took(id, line);
  }

  /** A message's version is known: its audit items, and the call it reports. */
  private took(id: string, line: number): AdaptedMessage[] {
    const held = this.messages.get(id)!;
    const record = held.record;
    const out: AdaptedMessage[] = [];
    for (const c of answeredCalls(record)) this.answered.add(c);
    const tokens = isObject(record.tokens) ? record.tokens.input : undefined;
    if (record.type === 'gemini' && held.turn === null && typeof tokens === 'number' && Number.isInteger(tokens) && tokens > 0) {
      appendAll(out, this.call(id, tokens, record, line));
      held.turn = this.turn;
    }
    this.auditItems(id, held);
    return out;
  }

  /** contract §8.4 items: the prompts the user typed, the files the file tools named. */
  private auditItems(id: string, held: Held): void {
    const record = held.record;
    if (record.type === 'user' && !held.audited.has('')) {
      held.audited.add('');
      const prompt = userPrompt(record);
      if (prompt !== null) {
        this.audit.promptWritten(prompt, this.turn + 1);
        this.audit.add('user_prompt', prompt, this.turn + 1, id);
        if (this.firstPromptId === null) {
          this.firstPromptId = id;
          this.firstPrompt = prompt;
          held.items = null;
        }
      }
      return;
    }
    if (record.type !== 'gemini' || !Array.isArray(record.toolCalls)) return;
    const turn = held.turn ?? this.turn + 1;
    record.toolCalls.forEach((tc: unknown, i) => {
      if (!isObject(tc)) return;
      const key = typeof tc.id === 'string' ? tc.id : `#${i}`;
      if (held.audited.has(key)) return;
      held.audited.add(key);
      const name = typeof tc.name === 'string' ? tc.name : '';
      const path = isObject(tc.args) ? toolPath(tc.args) : null;
      if (path === null || !FILE_TOOLS.has(name)) return;
      if (READ_TOOLS.has(name)) this.audit.fileRead(path, turn);
      this.audit.add('file', path, turn, `${id}#call${i}`);
    });
  }

  /** adapters.md turns: one model call; its snapshot is every message before the one it wrote. */
  private call(id: string, total: number, record: JsonObject, line: number): AdaptedMessage[] {
    const out: AdaptedMessage[] = [];
    this.turn++;
    if (!this.headerSent) out.push({ value: this.header(), line });
    const at = this.order.indexOf(id);
    const seen = this.order.slice(0, at === -1 ? this.order.length : at);
    const items: ContextItem[] = [];
    for (const m of seen) appendAll(items, this.visibleItems(m));
    const system = contextItem(GEMINI_SYSTEM_SPAN_ID, SYSTEM_TEXT, 'system', 'placeholder', 'system prompt and tools (not in the session file)');
    const snap: Snapshot = { type: 'snapshot', session_id: this.sid, turn: this.turn, spans: callSpans(system, items, total) };
    if (typeof record.timestamp === 'string') snap.ts = record.timestamp;
    // contract §8.7: the model names the context window
    if (typeof record.model === 'string' && record.model !== '') snap.model = record.model;
    closeCall(snap, items, this.removed, this.compaction, this.audit, null);
    this.removed = [];
    this.compaction = null;
    out.push({ value: snap, line });
    return out;
  }

  /** A message's items less the tool responses a gemini message already holds. */
  private visibleItems(id: string): ContextItem[] {
    return this.itemsOf(id).filter((item) => !(item.kind === 'tool_result' && item.callId !== null && this.answered.has(item.callId)));
  }

  /** adapters.md spans: what one message gives the context, cached per version. */
  private itemsOf(id: string): (ContextItem & { callId: string | null })[] {
    const held = this.messages.get(id);
    if (held === undefined) return [];
    if (held.items === null) held.items = this.makeItems(id, held.record);
    return held.items as (ContextItem & { callId: string | null })[];
  }

  private makeItems(id: string, record: JsonObject): (ContextItem & { callId: string | null })[] {
    const out: (ContextItem & { callId: string | null })[] = [];
    // The call id is set on the item contextItem made, not spread into a copy: each copy
    // `{ ...item, callId }` got a hidden class of its own (684 for 692 items of a real session),
    // and reading the spans off objects of hundreds of shapes took a fifth of `check`.
    const add = (item: ContextItem, callId: string | null = null): void => {
      const withCall = item as ContextItem & { callId: string | null };
      withCall.callId = callId;
      out.push(withCall);
    };
    if (record.type === 'gemini' && Array.isArray(record.thoughts) && record.thoughts.length > 0) {
      const text = record.thoughts
        .filter(isObject)
        .map((t) => [t.subject, t.description].filter((s) => typeof s === 'string' && s !== '').join(': '))
        .join('\n');
      if (text !== '') add(contextItem(`${id}#thoughts`, text, 'assistant', 'thinking', 'thinking'));
    }
    const texts: string[] = [];
    const thoughts: string[] = [];
    partsOf(record.content).forEach((p, i) => {
      const v = partView(p);
      if (v === null) return;
      if (v.kind === 'thought') thoughts.push(v.text);
      else if (v.kind === 'text' || v.kind === 'media') texts.push(v.text);
      else if (v.kind === 'call') add(contextItem(`${id}#p${i}`, v.text, 'assistant', 'tool_use', firstWords(v.tool ?? 'tool call'), v.tool));
      // a tool response sent as a user message: told apart by its call id from the results a gemini message holds (see call())
      else add(contextItem(`${id}#p${i}`, v.text, 'tool', 'tool_result', v.tool === null ? 'tool result' : `result of ${v.tool}`, v.tool), v.callId);
    });
    if (thoughts.length > 0) add(contextItem(`${id}#thought`, thoughts.join('\n'), 'assistant', 'thinking', 'thinking'));
    const text = texts.join('\n');
    if (text !== '') {
      if (record.type === 'gemini') add(contextItem(id, text, 'assistant', 'text', firstWords(text)));
      else if (record.type === 'info') add(contextItem(id, text, 'user', 'text', firstWords(`media read by a tool: ${mediaTypes(record)}`)));
      else add(this.userItem(id, record, text));
    }
    if (record.type === 'gemini' && Array.isArray(record.toolCalls)) {
      record.toolCalls.forEach((tc: unknown, i) => {
        if (!isObject(tc)) return;
        const name = typeof tc.name === 'string' ? tc.name : 'tool';
        const args = isObject(tc.args) ? tc.args : {};
        const label = geminiCallLabel(name, args, this.cwd);
        add(contextItem(`${id}#call${i}`, `${name} ${stringify(tc.args)}`, 'assistant', 'tool_use', label, name));
        if (tc.result === undefined || tc.result === null) return;
        const error = tc.status === 'error';
        add(contextItem(`${id}#result${i}`, resultText(tc.result), 'tool', 'tool_result', `${error ? 'error from' : 'result of'} ${label}`, name));
      });
    }
    return out;
  }

  /** adapters.md roles: a prompt, the environment context, or a compression summary. */
  private userItem(id: string, record: JsonObject, text: string): ContextItem {
    if (isEnvironmentContext(text)) return contextItem(id, text, 'meta', 'text', 'environment context');
    if (text.includes(STATE_SNAPSHOT)) return contextItem(id, text, 'summary', 'text', 'compaction summary');
    const shown = record.displayContent === undefined ? '' : plainText(record.displayContent).trim();
    const item = contextItem(id, text, 'user', 'text', firstWords(shown !== '' ? shown : text));
    if (id === this.firstPromptId) item.pinned = true;
    return item;
  }

  private header(): SessionHeader {
    this.headerSent = true;
    const folder = this.cwd === null ? null : baseName(this.cwd);
    const prompt = this.firstPrompt === null ? null : titleWords(this.firstPrompt);
    const parts = [folder, prompt].filter((p): p is string => p !== null && p !== '');
    const header: SessionHeader = {
      type: 'session',
      session_id: this.sid,
      title: parts.length > 0 ? parts.join(' — ') : `Gemini CLI session ${this.sid}`,
      source: 'gemini',
    };
    if (this.startedAt !== null) header.started_at = this.startedAt;
    return header;
  }

  private get sid(): string {
    return this.sessionId ?? this.fallbackSessionId;
  }
}

/**
 * adapters.md slash commands: what the user wrote is the message's `displayContent` when
 * Gemini CLI sent the model something else (a custom command expanded, `@file` read in).
 * For a slash command, the prompt is its arguments, and a command without any is none.
 * null: not a prompt (a tool response, the environment context, a compression summary).
 */
export function userPrompt(record: JsonObject): string | null {
  if (record.type !== 'user') return null;
  const text = plainText(record.content);
  if (isEnvironmentContext(text) || text.includes(STATE_SNAPSHOT)) return null;
  const shown = record.displayContent === undefined ? '' : plainText(record.displayContent).trim();
  if (shown.startsWith('/')) {
    const args = shown.replace(/^\/\S*\s*/, '').trim();
    return args === '' ? null : args;
  }
  if (shown !== '') return shown;
  return text.trim() === '' ? null : text;
}

/** user and gemini messages are what the model sees; info, error and warning are the UI's, except media a tool read (isMediaRead). */
function isModelMessage(record: JsonObject): boolean {
  return record.type === 'user' || record.type === 'gemini' || isMediaRead(record);
}

/**
 * adapters.md media read by a tool: Gemini CLI sends no audio or video inside a function
 * response; read_file's media parts go to the model as the next user turn, which
 * geminiChat.ts (`extractBinaryInjections`, since May 2026, gemini-cli 4d1ca92a; still in 0.61) records as an `info` message of
 * inlineData parts and nothing else. A UI line is text, so it is never one of these.
 */
function isMediaRead(record: JsonObject): boolean {
  if (record.type !== 'info') return false;
  const parts = partsOf(record.content);
  return parts.length > 0 && parts.every((p) => isObject(p) && isObject(p.inlineData));
}

/** The ids of the tool calls a gemini message holds the results of (a later tool-response message repeats them). */
function answeredCalls(record: JsonObject): string[] {
  if (record.type !== 'gemini' || !Array.isArray(record.toolCalls)) return [];
  const ids: string[] = [];
  for (const tc of record.toolCalls) if (isObject(tc) && typeof tc.id === 'string' && tc.result !== undefined && tc.result !== null) ids.push(tc.id);
  return ids;
}

/** The distinct MIME types of a media message's parts, for its label. */
function mediaTypes(record: JsonObject): string {
  const types = partsOf(record.content).map((p) =>
    isObject(p) && isObject(p.inlineData) && typeof p.inlineData.mimeType === 'string' ? p.inlineData.mimeType : 'media',
  );
  return [...new Set(types)].join(', ');
}

function baseName(path: string): string {
  const parts = path.split(/[/\\]+/).filter((p) => p !== '');
  return parts[parts.length - 1] ?? path;
}

function titleWords(text: string): string {
  const words = text.trim().split(/\s+/);
  return words.slice(0, 8).join(' ') + (words.length > 8 ? '…' : '');
}
