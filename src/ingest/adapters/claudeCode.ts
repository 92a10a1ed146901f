// Claude Code session transcripts (~/.claude/projects/<project>/<session>.jsonl) turned
// into contract §2 messages: one session header, then one snapshot per API call of the
// main chain. The mapping rules are docs/adapters.md "Claude Code"; each rule below names
// the one it implements. The output is ordinary wire messages, so every door (check, the
// Worker, the relay) analyses them with the unchanged engine.
import { CompactionAuditor, notFollowedField } from '../../core/compactionAudit.ts';
import type { SessionHeader, Snapshot, Span } from '../../core/wire.ts';
import { SkippedRecords } from './skipped.ts';
import { firstLine, firstWords, toolCallLabel } from './spanLabels.ts';
import { attachmentView, skippedSystem } from './claudeCodeAttachments.ts';
import { isAutoCompaction } from './claudeCodeFiles.ts';
import { isObject, str, type JsonObject } from './json.ts';
import { promptTokens } from './tokens.ts';
import { appendAll } from '../../core/arrays.ts';
import { isWrapper, promptText, slashCommand } from './claudeCodePrompts.ts';
import { callOf, fitSpans } from './claudeCodeCalls.ts';
import { block, contentBlock, nameUserBlock, recordId, type ContextBlock, type ToolCall } from './claudeCodeBlocks.ts';
import { LineIds } from './lineIds.ts';
import { ChainEnds } from './claudeCodeBranches.ts';
import { KeptMessages } from './claudeCodeKept.ts';
import { replacementTexts, rewriteInPlace, ToolResultIndex } from './claudeCodeRewrites.ts';
import { fittedSpansOf, fittedSystemSpan, spansOf, systemSpan } from './claudeCodeSpans.ts';
import { AbridgedContext } from './claudeCodeAbridged.ts';

export interface AdaptedMessage {
  value: SessionHeader | Snapshot;
  /** the transcript line the message comes from, for input errors */
  line: number;
}

export { SYSTEM_SPAN_ID, SYSTEM_SPAN_TEXT } from './claudeCodeSpans.ts';
/** adapters.md microcompaction: what a cleared tool result reads as from then on. */
export const CLEARED_TOOL_RESULT = '[Old tool result content cleared]';

/** adapters.md rewinds: the stretch's todo lists kept, the last and those a rewind may return to */
const TODO_LISTS_KEPT = 32;

/** contract §8.4 `file`: the tools whose `file_path` / `notebook_path` input names a file. */
const FILE_TOOLS: ReadonlySet<string> = new Set(['Read', 'Edit', 'MultiEdit', 'Write', 'NotebookEdit']);

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
  /** adapters.md compaction: the blocks a compact boundary kept (claudeCodeKept.ts), waiting for the record they follow (its anchor) */
  private readonly kept = new KeptMessages();
  /** adapters.md compaction: the boundary (its kind and compactMetadata), marked on the next call's snapshot */
  private compaction: { kind: 'compact' | 'microcompact'; trigger: string | null; preTokens: number | null; replaced: string[] } | null = null;
  /** contract §8.4: the session's compaction audit */
  private readonly audit = new CompactionAuditor();
  /** contract §8.4 `todo`: the stretch's todo lists, in order (the last one's pending items are its items), and where each came from */
  private todos: { items: string[]; turn: number; spanId: string }[] = [];
  /** adapters.md span id: the line id of the record being read, for one without a uuid (LineIds: records may share a line) */
  private readonly lineIds = new LineIds();
  private lineId = '';
  /** adapters.md rewinds: the context's length after each main-chain record (by uuid) since the last compact boundary */
  private readonly endOf = new ChainEnds();
  /** adapters.md microcompaction, replaced tool results: the context's tool results by tool_use id */
  private readonly toolResults = new ToolResultIndex();
  /** adapters.md microcompaction: ids whose text was cleared since the last call */
  private modified = new Set<string>();
  /** adapters.md turn: the calls seen, by requestId (else message.id) */
  private readonly requestIds = new Set<string>();
  /**
   * adapters.md tokens: a call whose first record reported no usage (other backends stream one
   * call over several records, usage zero on all but one): its snapshot, held until a record of
   * it reports one, the next call starts or the transcript ends
   */
  private pending: { callId: string; out: AdaptedMessage; estimates: number[] } | null = null;
  /** adapters.md session: the name the user gave the session (`custom-title`), else Claude Code's (`ai-title`), when read before the first call */
  private customTitle: string | null = null;
  private aiTitle: string | null = null;
  private readonly seenUuids = new Set<string>();
  /** adapters.md rewinds: the uuid of every record read, of any type (a record may be written before the one it follows) */
  private readonly uuidsRead = new Set<string>();
  private turn = 0;
  private firstPromptSeen = false;
  /** adapters.md session: the first prompt the user wrote (not a command wrapper), for the title */
  private firstPromptText: string | null = null;
  private startedAt: string | null = null;
  /** contract §8.8: the project folder, for paths in labels */
  private cwd: string | null = null;
  /**
   * adapters.md sub-agents: null until the first user or assistant record; true when that one is
   * a sidechain's (a sub-agent's own file: every record is), whose chain is then the one read
   */
  private subAgent: boolean | null = null;
  /** the sub-agent's `agentId`, when its records carry one */
  private agentId: string | null = null;
  /** tool_use id → its call's label and tool, for the results that answer it */
  private readonly calls = new Map<string, ToolCall>();

  constructor(
    private readonly fallbackSessionId = 'claude-code',
    /** contract §8.4: false leaves the audit's items out (the bench's baseline) */
    private readonly auditing = true,
    /** docs/hooks.md: 'compactions' gives the spans only to snapshots that mark a compaction (the hook reads no other); 'abridged': claudeCodeAbridged.ts */
    private readonly spansIn: 'all' | 'compactions' | 'abridged' = 'all',
  ) {
    this.abridged = spansIn === 'abridged' ? new AbridgedContext() : null;
  }

  /** contract §8.8 labels made: not for abridged snapshots, whose callers read no per-span figure (claudeCodeBlocks.ts block) */
  private get named(): boolean {
    return this.abridged === null;
  }

  private readonly abridged: AbridgedContext | null;
  private contextEdits = 0; // the context's changes other than blocks added at its end (AbridgedContext.follow)

  get turns(): number {
    return this.turn;
  }

  /** the work the scaling tests count (docs/security.md "Linear time"): chain ends a rewind looked at, audit items forgotten or judged, a compaction's blocks listed, tool results looked up */
  get work(): number {
    return this.endOf.looked + this.audit.scanned + this.compactionWork + this.kept.looked + this.toolResults.looked;
  }

  /** ids a compact boundary wrote to the lists of what the summary replaces (the scaling tests count them) */
  private compactionWork = 0;

  /** One parsed transcript record; returns the wire messages it completes (often none). */
  record(value: unknown, line: number): AdaptedMessage[] {
    if (!isObject(value)) {
      this.skipped.add('not an object');
      return [];
    }
    const out: AdaptedMessage[] = [];
    this.lineId = this.lineIds.next(line);
    const type = typeof value.type === 'string' ? value.type : '(no type)';
    const lengthBefore = this.context.length;
    if (this.cwd === null && typeof value.cwd === 'string' && value.cwd !== '') this.cwd = value.cwd;
    if (this.sessionId === null && typeof value.sessionId === 'string' && value.sessionId !== '') {
      this.sessionId = value.sessionId;
      // adapters.md session: the header waits for the first call, so its title can name the first prompt
      if (typeof value.timestamp === 'string') this.startedAt = value.timestamp;
    }
    if (this.subAgent === null && (type === 'user' || type === 'assistant')) {
      this.subAgent = value.isSidechain === true;
      if (this.subAgent && typeof value.agentId === 'string' && value.agentId !== '') this.agentId = value.agentId;
    }
    // adapters.md: sub-agent traffic is not the main context (unless the file is the sub-agent's own)
    if (value.isSidechain === true && this.subAgent !== true && (type === 'user' || type === 'assistant' || type === 'system' || type === 'attachment')) {
      this.skipped.add(`${type} (sidechain)`);
      return out;
    }
    if (type === 'user') this.rewind(value);
    switch (type) {
      case 'user':
        this.user(value);
        break;
      case 'assistant':
        this.assistant(value, line, out);
        break;
      case 'system':
        this.system(value);
        break;
      case 'attachment':
        this.attachment(value);
        break;
      case 'content-replacement':
        this.contentReplacement(value);
        break;
      case 'custom-title':
      case 'ai-title':
        this.titleRecord(value, type);
        break;
      default:
        // summary, progress, file-history-snapshot, queue-operation, …: not sent to the model
        this.skipped.add(type);
    }
    // adapters.md compaction, kept messages: they follow their anchor from here on
    if (this.kept.anchoredBy(value.uuid)) this.kept.restore(this.context, this.endOf);
    if (typeof value.uuid === 'string') {
      // adapters.md rewinds: a record that added nothing, written before the record it follows, ends where that one ends
      const parent = value.parentUuid;
      if (this.context.length === lengthBefore && typeof parent === 'string' && !this.uuidsRead.has(parent)) this.endOf.follow(value.uuid, parent);
      else this.endOf.mark(value.uuid, this.context.length);
      this.uuidsRead.add(value.uuid);
    }
    return out;
  }

  /**
   * adapters.md rewinds: Claude Code's records form a tree by `parentUuid`, and the model sees
   * the chain from a record back to the root. A prompt the user wrote after going back (an
   * edited earlier prompt, `/rewind`) names an earlier record as its parent; what came after
   * that record is an abandoned branch, which no later call sees: it leaves the context (pruned
   * and archived at the next call: the file still holds it) and the audit. A tool result or a
   * compaction summary never starts a branch (it answers the chain it is on), and a parent
   * not seen since the last compact boundary changes nothing (the file order stands).
   */
  private rewind(record: JsonObject): void {
    const parent = record.parentUuid;
    if (typeof parent !== 'string' || record.isCompactSummary === true) return;
    const cut = this.endOf.end(parent);
    if (cut === undefined || cut >= this.context.length) return;
    if (typeof record.uuid === 'string' && this.seenUuids.has(record.uuid)) return; // a repeat, skipped
    const content = isObject(record.message) ? record.message.content : undefined;
    if (Array.isArray(content) && content.some((b) => isObject(b) && b.type === 'tool_result')) return;
    const abandoned = this.context.splice(cut);
    this.contextEdits++;
    const ids = new Set(abandoned.map((b) => b.id));
    for (const id of ids) this.removed.push(id);
    for (const id of ids) this.modified.delete(id);
    this.audit.forget(ids);
    this.todos = this.todos.filter((t) => !ids.has(t.spanId));
    // the first prompt, edited: the one written in its place is the operator's task
    if (abandoned.some((b) => b.pinned === true)) this.firstPromptSeen = false;
    this.endOf.cut(cut);
  }

  /** adapters.md attachments (claudeCodeAttachments.ts): a queued prompt is a user record, context the model is sent a meta span. */
  private attachment(record: JsonObject): void {
    const view = attachmentView(record);
    if ('skip' in view) {
      this.skipped.add(view.skip);
      return;
    }
    if ('prompt' in view) {
      // a background task's report in a prompt's place is not the user's words: meta
      this.user({ ...record, type: 'user', isMeta: view.typed ? record.isMeta : true, message: { role: 'user', content: view.prompt } });
      return;
    }
    if (!this.fresh(record)) return;
    const b = block(`${recordId(record, this.lineId)}#0`, view.text, 'attachment', null, false, this.named);
    b.role = 'meta';
    if (this.named) b.label = view.label;
    this.context.push(b);
  }

  /** The last line could not be parsed: a file still being written (adapters.md), not an input error. */
  truncatedLastLine(): void {
    this.skipped.add('truncated last line');
  }

  /** The transcript ended: a call still waiting for its usage is estimated (adapters.md tokens). */
  end(): AdaptedMessage[] {
    const out: AdaptedMessage[] = [];
    this.releasePending(out);
    return out;
  }

  /**
   * adapters.md session: `custom-title` (the name the user gave it, `/rename`) and `ai-title`
   * (the name Claude Code's side call wrote) name the session when they come before the first
   * call; the header is sent with the first call and never changes (contract §2.4), so a later
   * one is counted, not mapped.
   */
  private titleRecord(record: JsonObject, type: 'custom-title' | 'ai-title'): void {
    const raw = type === 'custom-title' ? record.customTitle : record.aiTitle;
    const title = typeof raw === 'string' ? raw.trim() : '';
    if (title === '') this.skipped.add(`${type} (empty)`);
    else if (this.headerSent) this.skipped.add(`${type} (after the first call)`);
    else if (type === 'custom-title') this.customTitle = title;
    else this.aiTitle = title;
  }

  private header(record: JsonObject, line: number, out: AdaptedMessage[]): void {
    if (this.headerSent) return;
    this.headerSent = true;
    const sid = this.sid();
    const header: SessionHeader = { type: 'session', session_id: sid, title: this.title(sid), source: 'claude-code' };
    const started = this.startedAt ?? (typeof record.timestamp === 'string' ? record.timestamp : null);
    if (started !== null) header.started_at = started;
    if (this.cwd !== null) header.project = this.cwd;
    out.push({ value: header, line });
  }

  /**
   * adapters.md session: the first sessionId, else the file's name. A sub-agent's records carry
   * its parent's sessionId: its own session is that id and its agentId (or its file's name), so
   * it never merges with the parent's when both are loaded.
   */
  private sid(): string {
    if (this.subAgent !== true || this.sessionId === null) return this.sessionId ?? this.fallbackSessionId;
    return `${this.sessionId}:agent-${this.agentId ?? this.fallbackSessionId}`;
  }

  /** adapters.md session: the project folder and the first prompt tell sessions apart; the id when neither is known */
  private title(sid: string): string {
    const own = this.ownTitle(sid);
    if (this.subAgent !== true) return own;
    const of = this.sessionId?.slice(0, 8) ?? 'a session';
    if (isAutoCompaction(this.agentId ?? this.fallbackSessionId)) return `auto-compaction call of ${of}: ${own}`;
    const agent = this.agentId === null ? '' : `${this.agentId} `;
    return `sub-agent ${agent}of ${of}: ${own}`;
  }

  private ownTitle(sid: string): string {
    const folder =
      this.cwd === null
        ? null
        : (this.cwd
            .replace(/[/\\]+$/, '')
            .split(/[/\\]/)
            .pop() ?? null);
    const named = this.customTitle ?? this.aiTitle;
    const prompt = named !== null ? firstWords(named, 50) : this.firstPromptText === null ? null : firstWords(this.firstPromptText, 50);
    if (folder !== null && folder !== '' && prompt !== null) return `${folder} — ${prompt}`;
    if (prompt !== null) return prompt;
    return folder !== null && folder !== '' ? `${folder} — Claude Code session ${sid.slice(0, 8)}` : `Claude Code session ${sid}`;
  }

  private user(record: JsonObject): void {
    if (!this.fresh(record)) return;
    const message = isObject(record.message) ? record.message : null;
    const content = message?.content;
    const base = recordId(record, this.lineId);
    const summary = record.isCompactSummary === true;
    const blocks: ContextBlock[] = [];
    if (typeof content === 'string') {
      blocks.push(block(`${base}#0`, content, 'text', null, false, this.named));
    } else if (Array.isArray(content)) {
      content.forEach((b, i) => {
        const made = contentBlock(b, `${base}#${i}`, this.named);
        if (made === null) this.skipped.add('malformed content block');
        else blocks.push(made);
      });
    } else {
      this.skipped.add('user without content');
      return;
    }
    // the typed text only of a record that may be a prompt (most user records are tool results);
    // a record of injected blocks alone (injectedText.ts) is no prompt: nothing in it was typed
    const typed = !summary && record.isMeta !== true && blocks.every((b) => b.kind !== 'tool_result') ? promptText(blocks) : '';
    const authored = typed !== '';
    for (const b of blocks) {
      if (b.kind === 'tool_result') b.role = 'tool';
      else if (summary) b.role = 'summary';
      else if (record.isMeta === true) b.role = 'meta';
      else b.role = 'user';
      nameUserBlock(b, this.calls, this.named);
    }
    // contract §8.4 user_prompt: the prompt as written (its text blocks joined), first seen by the
    // next call; a slash command's arguments are the user's words too (adapters.md slash commands)
    const command = authored ? slashCommand(blocks) : null;
    if (command !== null && this.named) blocks[0]!.label = firstWords(`${command.name} ${command.args}`.trim());
    const prompt = command !== null ? command.args : authored && !isWrapper(blocks) ? typed : null;
    if (prompt !== null) this.firstPromptText ??= prompt;
    if (this.auditing && prompt !== null) {
      const text = prompt;
      this.audit.promptWritten(text, this.turn + 1);
      this.audit.add('user_prompt', text, this.turn + 1, blocks[0]!.id);
    }
    if (this.auditing) for (const b of blocks) if (b.kind === 'tool_result' && b.isError) this.audit.add('error', firstLine(b.text), this.turn + 1, b.id);
    if (summary) {
      // adapters.md compaction: the model-written summary cites every span it replaced
      for (const b of blocks) b.derivedFrom = this.replaced ?? [];
      this.replaced = null;
    } else if (prompt !== null && !this.firstPromptSeen && this.subAgent !== true) {
      // adapters.md: the first user prompt is pinned (the operator's task: a canary; a
      // sub-agent's first prompt is its parent agent's words, contract §8.1); a wrapper (a
      // `!` shell command, a local command's output, a slash command without arguments) is
      // typed but no task, so the prompt after it is the one pinned
      this.firstPromptSeen = true;
      for (const b of blocks) b.pinned = true;
    }
    appendAll(this.context, blocks);
  }

  private assistant(record: JsonObject, line: number, out: AdaptedMessage[]): void {
    const message = isObject(record.message) ? record.message : null;
    const call = callOf(record, message);
    if (call === null) {
      // adapters.md: a synthetic record (an error, "No response requested.") is no API call
      this.skipped.add('assistant without requestId');
      return;
    }
    if (!this.fresh(record)) return;
    const total = promptTokens(message);
    const reported = total !== null && total > 0;
    if (!this.requestIds.has(call.id)) {
      // adapters.md: a turn is one API call; its first record decides the snapshot (what the call saw)
      this.releasePending(out);
      // kept messages whose anchor never came (Claude Code then adds them at the end)
      this.kept.restore(this.context, this.endOf);
      this.kept.called();
      this.requestIds.add(call.id);
      this.turn++;
      this.header(record, line, out);
      // a call that reports its usage now gets its spans with their tokens (made in one go)
      const snap = this.snapshot(record, call, message, reported ? total : null);
      const made = { value: snap, line };
      if (reported) out.push(made);
      else if (call.byRequest) {
        // Anthropic's own API: Claude Code writes the call's usage on each of its records, so a
        // record without one is a call without one (estimated), not one still streaming; it goes
        // out now, as `watch` needs it to
        out.push(made);
      } else {
        // a lean snapshot (spansIn 'compactions') carries the system placeholder alone
        const estimates = snap.spans.length > 1 ? this.context.map((b) => b.estimate) : [];
        this.pending = { callId: call.id, out: made, estimates };
      }
    } else if (reported && this.pending?.callId === call.id) {
      // adapters.md tokens: the call's one record that reports its usage
      fitSpans(this.pending.out.value as Snapshot, this.pending.estimates, total);
      out.push(this.pending.out);
      this.pending = null;
    }
    const content = message?.content;
    const base = recordId(record, this.lineId);
    if (!Array.isArray(content)) return;
    content.forEach((b, i) => {
      const made = contentBlock(b, `${base}#${i}`, this.named);
      if (made === null) this.skipped.add('malformed content block');
      else {
        this.context.push(made);
        if (made.kind === 'tool_use') {
          const raw = b as JsonObject;
          const name = str(raw.name);
          made.tool = name;
          if (this.named) made.label = toolCallLabel(name, isObject(raw.input) ? raw.input : {}, this.cwd);
          if (typeof raw.id === 'string') this.calls.set(raw.id, { label: made.label, tool: name });
          if (this.auditing) this.toolCall(raw, made.id);
        } else if (made.kind === 'text' && this.named) made.label = `assistant: ${firstWords(made.text, 48)}`;
      }
    });
  }

  /** contract §8.4: what a tool call of the main chain adds to the audit (the call that made it is this.turn). */
  private toolCall(raw: JsonObject, spanId: string): void {
    const name = str(raw.name);
    const input = isObject(raw.input) ? raw.input : {};
    if (FILE_TOOLS.has(name)) {
      const path = typeof input.file_path === 'string' ? input.file_path : typeof input.notebook_path === 'string' ? input.notebook_path : '';
      if (path !== '') {
        if (name === 'Read') this.audit.fileRead(path, this.turn);
        this.audit.add('file', path, this.turn, spanId);
      }
    } else if (name === 'Bash' && typeof input.command === 'string') {
      this.audit.add('command', input.command, this.turn, spanId);
    } else if (name === 'TodoWrite' && Array.isArray(input.todos)) {
      const items = input.todos
        .filter((t): t is JsonObject => isObject(t) && t.status !== 'completed' && typeof t.content === 'string')
        .map((t) => t.content as string);
      this.todos.push({ items, turn: this.turn, spanId });
      // the earlier lists serve a rewind past the later ones (adapters.md rewinds): a few suffice
      if (this.todos.length > TODO_LISTS_KEPT) this.todos.shift();
    }
  }

  private system(record: JsonObject): void {
    const subtype = typeof record.subtype === 'string' ? record.subtype : null;
    // a resumed session repeats records: a boundary read twice would be two compactions
    if ((subtype === 'compact_boundary' || subtype === 'microcompact_boundary') && !this.fresh(record)) return;
    if (subtype === 'compact_boundary') {
      // two boundaries before a call: the first one's kept messages are in the context the second replaces
      this.kept.restore(this.context, this.endOf);
      const meta = isObject(record.compactMetadata) ? record.compactMetadata : null;
      // adapters.md compaction: a new context starts; everything before is replaced by the
      // summary, except the messages the boundary lists as kept (held until their anchor)
      const kept = this.kept.boundary(meta, this.context, this.skipped);
      const ids: string[] = [];
      for (const b of this.context) if (!kept.has(b)) ids.push(b.id);
      appendAll(this.removed, ids);
      // two boundaries before a call: appended to, never copied (n boundaries copied n lists: docs/security.md "Linear time")
      this.replaced ??= [];
      appendAll(this.replaced, ids);
      this.compactionWork += 2 * ids.length;
      this.context = [];
      this.contextEdits++;
      for (const id of ids) this.modified.delete(id);
      this.compaction = {
        kind: 'compact',
        trigger: typeof meta?.trigger === 'string' ? meta.trigger : null,
        preTokens: typeof meta?.preTokens === 'number' ? meta.preTokens : null,
        replaced: appendAll(this.compaction?.kind === 'compact' ? this.compaction.replaced : [], ids),
      };
      // contract §8.4: the stretch ends; its last todo list's pending items are items of it
      const last = this.todos.at(-1);
      if (last !== undefined) for (const t of last.items) this.audit.add('todo', t, last.turn, last.spanId);
      this.todos = [];
      // a rewind goes back within a context, never across a boundary
      this.endOf.clear();
      this.audit.compact();
      return;
    }
    if (subtype === 'microcompact_boundary') {
      const meta = isObject(record.microcompactMetadata) ? record.microcompactMetadata : null;
      const cleared = new Map<string, string>();
      if (Array.isArray(meta?.compactedToolIds)) for (const id of meta.compactedToolIds) if (typeof id === 'string') cleared.set(id, CLEARED_TOOL_RESULT);
      const [trigger, pre] = [typeof meta?.trigger === 'string' ? meta.trigger : null, typeof meta?.preTokens === 'number' ? meta.preTokens : null];
      // adapters.md microcompaction: same ids, placeholder text from then on
      this.rewriteResults(cleared, trigger, pre, true);
      return;
    }
    this.skipped.add(skippedSystem(subtype));
  }

  /** adapters.md microcompaction, replaced tool results (claudeCodeRewrites.ts): reported at the next call; `always`: a record even when nothing changed. */
  private rewriteResults(texts: ReadonlyMap<string, string>, trigger: string | null, preTokens: number | null, always: boolean): number {
    const changed = rewriteInPlace(this.context, texts, this.modified, this.toolResults);
    if (changed.count > 0) this.contextEdits++;
    // contract §8.4: a record with no items, and the stretch goes on (a compaction pending wins)
    if (changed.count === 0 && !always) return 0;
    if (this.compaction === null) this.compaction = { kind: 'microcompact', trigger, preTokens, replaced: changed.ids };
    else if (this.compaction.kind === 'microcompact') appendAll(this.compaction.replaced, changed.ids);
    return changed.count;
  }

  /** adapters.md replaced tool results: `content-replacement`; a sub-agent's (its `agentId`) belongs to its own file. */
  private contentReplacement(record: JsonObject): void {
    if (typeof record.agentId === 'string' && this.subAgent !== true) return this.skipped.add('content-replacement (a sub-agent’s)');
    const texts = replacementTexts(record);
    // none live to change (a resumed session writes its replacements again): counted
    if (this.rewriteResults(texts, 'tool result budget', null, false) === 0) this.skipped.add('content-replacement (no live tool result changed)');
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

  /** A call still waiting for a record that reports its usage goes out estimated (adapters.md tokens). */
  private releasePending(out: AdaptedMessage[]): void {
    if (this.pending === null) return;
    out.push(this.pending.out);
    this.pending = null;
  }

  /** `total`: the call's reported prompt tokens, spread over the spans as they are made (adapters.md tokens); null: none yet */
  private snapshot(record: JsonObject, call: { id: string; byRequest: boolean }, message: JsonObject | null, total: number | null): Snapshot {
    const lean = this.spansIn === 'compactions' && this.compaction === null;
    let spans: Span[];
    if (lean) {
      spans = [total === null ? systemSpan() : fittedSystemSpan(total)]; // fitSpans with no visible span: the system span has it all
    } else {
      // docs/engine.md "Snapshots abridged": never where the engine reads more than a summary needs, at this call or the next
      const settled = this.compaction === null && this.replaced === null && this.removed.length === 0 && this.modified.size === 0;
      const abridged = settled ? (this.abridged?.spansOf(this.context, this.contextEdits, total) ?? null) : null;
      spans = abridged ?? (total === null ? spansOf(systemSpan(), this.context) : fittedSpansOf(this.context, total));
    }
    const snap: Snapshot = {
      type: 'snapshot',
      session_id: this.sid(),
      turn: this.turn,
      spans,
    };
    // an extra field: the API's request id, or the message id that stands for it (adapters.md turn)
    if (call.byRequest) snap.request_id = call.id;
    else snap.message_id = call.id;
    if (typeof record.timestamp === 'string') snap.ts = record.timestamp;
    // contract §8.7: the model names the context window (an extra field)
    if (typeof message?.model === 'string' && message.model !== '' && !message.model.startsWith('<')) snap.model = message.model;
    if (this.removed.length > 0) {
      snap.pruned = this.removed;
      // contract §8.2: the transcript still holds every span a compaction removed
      snap.archived = this.removed;
    }
    const c = this.compaction;
    if (c !== null) {
      // contract §8.3: the compaction takes effect at this call; §8.4 judges its items against what the call saw
      const audit =
        c.kind === 'compact' && this.auditing
          ? this.audit.judge(this.turn, this.context.map((b) => b.text).join('\n'))
          : { items: [], carried: [], notFollowed: 0 };
      snap.compaction = {
        kind: c.kind,
        trigger: c.trigger,
        pre_tokens: c.preTokens,
        replaced: c.replaced,
        summary: this.context.filter((b) => b.role === 'summary').map((b) => b.id),
        items: audit.items,
        carried: audit.carried,
        ...notFollowedField(audit),
      };
    }
    this.compaction = null;
    const refetched = this.audit.takeRefetches();
    if (refetched.length > 0) snap.refetched = refetched;
    // the ids cleared since the last call that are still in the context (most calls: none, and no set of the context's ids made)
    const live = this.modified.size === 0 || lean ? null : new Set(this.context.map((b) => b.id));
    const modified = live === null ? [] : [...this.modified].filter((id) => live.has(id));
    if (modified.length > 0) snap.rewrite = { spans_modified: modified.length, scores_invalidated: modified.length, modified_span_ids: modified };
    this.removed = [];
    this.modified = new Set();
    return snap;
  }
}
