// Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl) turned into contract §2
// messages: one session header, then one snapshot per model call. Each rollout line is a
// `RolloutLine` (codex-rs/protocol/src/protocol.rs): `{timestamp, type, payload}` with type
// `session_meta`, `response_item`, `compacted`, `turn_context` or `event_msg` (and, in 0.14x,
// `inter_agent_communication` and lines Codex keeps for itself, `world_state`, …). The mapping
// rules are docs/adapters.md "Codex CLI"; each rule below names the one it implements.
import { closeCall, type PendingCompaction } from './callTail.ts';
import { CompactionAuditor } from '../../core/compactionAudit.ts';
import type { SessionHeader, Snapshot, Span } from '../../core/wire.ts';
import type { AdaptedMessage } from './claudeCode.ts';
import { estimateTokens, fitTokens } from './tokens.ts';
import { agentMessageText, patchFiles, requestOf, shellPatch, viewOf, type CallLabel, type ItemView } from './codexItems.ts';
import { isObject, str, type JsonObject } from './json.ts';
import { SkippedRecords } from './skipped.ts';
import { isLegacyMeta, LEGACY_ITEM_TYPES } from './codexLegacy.ts';
import { appendAll } from '../../core/arrays.ts';
import { LineIds } from './lineIds.ts';

/** adapters.md: the span that stands for the session's instructions (and what else the rollout does not show). */
export const INSTRUCTIONS_SPAN_ID = 'instructions';

interface ContextItem extends ItemView {
  id: string;
  pinned: boolean;
  derivedFrom: string[] | null;
  /** contract §2.3 estimate of `text`, counted once (an item is in every later snapshot) */
  estimate: number;
}

export class CodexAdapter {
  readonly skipped = new SkippedRecords();
  private sessionId: string | null = null;
  private cwd: string | null = null;
  private startedAt: string | null = null;
  private instructions: ContextItem | null = null;
  /** the session's instructions came from the older `instructions` field: AGENTS.md, also sent as a history message */
  private instructionsAreAgentsMd = false;
  private headerSent = false;
  /** the history the next call sees, in rollout order (since the last compaction) */
  private context: ContextItem[] = [];
  /** adapters.md turns: index in `context` of the first item the call in progress produced */
  private callStart: number | null = null;
  /** adapters.md turns: `total_token_usage` of the last token count, to tell a new call from a repeat */
  private lastTotals: string | null = null;
  private contextWindow: number | null = null;
  private model: string | null = null;
  private firstPrompt: string | null = null;
  /** adapters.md compaction: ids replaced since the last call, pruned and archived at the next */
  private removed: string[] = [];
  private compaction: PendingCompaction | null = null;
  /** contract §8.4: the session's compaction audit, as for Claude Code */
  private readonly audit = new CompactionAuditor();
  private readonly callLabels = new Map<string, CallLabel>();
  /** inter-agent messages by author and text, not yet matched by their copy of the other line type */
  private readonly agentMessagesFromLines = new Map<string, number>();
  private readonly agentMessagesFromItems = new Map<string, number>();
  private turn = 0;
  /** adapters.md: the rollout is in Codex's first format (bare items, no usage): a turn per assistant message */
  private legacy = false;
  private linesRead = 0;
  /** the prompts the user typed still in the context (rollbacks count back to them) */
  private prompts = 0;
  /** context items looked at by rollbacks and compactions: the work the scaling tests count (docs/security.md) */
  scanned = 0;
  /** adapters.md span id: the id of the record being read (`line<N>`; LineIds tells apart records that share a line) */
  private readonly lineIds = new LineIds();
  private lineId = '';

  constructor(private readonly fallbackSessionId = 'codex') {}

  get turns(): number {
    return this.turn;
  }

  /** context and audit items looked at by rollbacks, compactions and the audit's forgetting (the scaling tests' counted work) */
  get work(): number {
    return this.scanned + this.audit.scanned;
  }

  /** One parsed rollout line; returns the wire messages it completes (often none). */
  record(value: unknown, line: number): AdaptedMessage[] {
    if (!isObject(value)) {
      this.skipped.add('not an object');
      return [];
    }
    const type = typeof value.type === 'string' ? value.type : '(no type)';
    const payload = isObject(value.payload) ? value.payload : null;
    const first = this.linesRead++ === 0;
    this.lineId = this.lineIds.next(line);
    if (payload === null && first && isLegacyMeta(value)) {
      // adapters.md "Codex's first format": the metadata line names the session
      this.legacy = true;
      this.sessionMeta(value, null);
      return [];
    }
    if (payload === null && this.legacy) return this.legacyLine(value, type, line);
    if (payload === null) {
      this.skipped.add(`${type} without payload`);
      return [];
    }
    const ts = typeof value.timestamp === 'string' ? value.timestamp : null;
    switch (type) {
      case 'session_meta':
        this.sessionMeta(payload, ts);
        return [];
      case 'response_item':
        this.responseItem(payload);
        return [];
      case 'compacted':
        this.compacted(payload);
        return [];
      case 'turn_context':
        // adapters.md: the model of the calls that follow (a snapshot's `model`)
        if (typeof payload.model === 'string' && payload.model !== '') this.model = payload.model;
        return [];
      case 'event_msg':
        return this.event(payload, line, ts);
      case 'inter_agent_communication':
        this.interAgent(payload);
        return [];
      case 'world_state':
        // adapters.md: Codex's comparison state (RFC 7386 snapshots of what it last told the model);
        // what the model read of it is the messages it rendered, response items of their own
        this.skipped.add('world_state (comparison state, not sent to the model)');
        return [];
      case 'token_usage_record':
        // adapters.md: one response's usage, background calls included; the token counts stay the turns
        this.skipped.add('token_usage_record (the token counts are read)');
        return [];
      case 'inter_agent_communication_metadata':
      case 'security_risk_score':
      case 'realtime_item':
      case 'retained_context':
        // adapters.md: Codex's own bookkeeping, kept out of the model's context
        this.skipped.add(`${type} (not sent to the model)`);
        return [];
      default:
        this.skipped.add(type);
        return [];
    }
  }

  /**
   * adapters.md "Codex's first format": a bare response item, or a `{"record_type": "state"}`
   * line (the conversation's state for resuming, never sent). The format has no token counts:
   * a call is told by the assistant message it wrote, its spans estimated.
   */
  private legacyLine(value: JsonObject, type: string, line: number): AdaptedMessage[] {
    if (typeof value.record_type === 'string') {
      this.skipped.add(`record_type:${value.record_type}`);
      return [];
    }
    if (!LEGACY_ITEM_TYPES.has(type)) {
      this.skipped.add(type === '(no type)' ? '(no type)' : `response_item:${type}`);
      return [];
    }
    const start = this.callStart;
    const before = this.context.length;
    this.responseItem(value);
    const added = this.context.length > before ? this.context[this.context.length - 1]! : null;
    if (added === null || added.kind !== 'text' || added.role !== 'assistant') return [];
    // the call saw everything before its own items (the run this message ends); the message itself is its output
    this.callStart = start ?? before;
    return this.call(null, line, null);
  }

  /** The last line could not be parsed: a rollout still being written (adapters.md), not an input error. */
  truncatedLastLine(): void {
    this.skipped.add('truncated last line');
  }

  private sessionMeta(meta: JsonObject, ts: string | null): void {
    if (this.sessionId !== null) {
      // a forked or resumed rollout may carry its parent's meta again: the first one names the session
      this.skipped.add('session_meta (repeated)');
      return;
    }
    this.sessionId = typeof meta.id === 'string' && meta.id !== '' ? meta.id : this.fallbackSessionId;
    if (typeof meta.cwd === 'string' && meta.cwd !== '') this.cwd = meta.cwd;
    this.startedAt = typeof meta.timestamp === 'string' ? meta.timestamp : ts;
    // adapters.md instructions: the base instructions (the system prompt) when the meta has them,
    // else the older `instructions` (the AGENTS.md text)
    const base = isObject(meta.base_instructions) ? meta.base_instructions.text : meta.base_instructions;
    if (typeof base === 'string' && base !== '') this.instructions = instructionsItem(base, 'system prompt (base instructions)');
    else if (typeof meta.instructions === 'string' && meta.instructions !== '') {
      this.instructions = instructionsItem(meta.instructions, 'AGENTS.md instructions');
      this.instructionsAreAgentsMd = true;
    }
  }

  /**
   * adapters.md: `inter_agent_communication` is a message from another agent; Codex puts it in the
   * history as an `agent_message` item (InterAgentCommunication::to_model_input_item: the text,
   * or a header naming the task and sender before the encrypted payload).
   */
  private interAgent(payload: JsonObject): void {
    const author = str(payload.author);
    const text =
      typeof payload.encrypted_content === 'string'
        ? `Message Type: ${payload.trigger_turn === true ? 'NEW_TASK' : 'MESSAGE'}\nTask name: ${str(payload.recipient)}\nSender: ${author}\nPayload:\n\n[encrypted message]`
        : str(payload.content);
    this.responseItem({ type: 'agent_message', author, content: text }, 'inter_agent_communication');
  }

  /** `source`: the line type that wrote an agent message, to count one written both ways once. */
  private responseItem(raw: JsonObject, source = 'response_item'): void {
    if (raw.type === 'agent_message' && this.sameAgentMessage(raw, source)) return;
    const item = this.item(raw, this.lineId);
    if (item === null) return;
    // adapters.md turns: a call's own items are not what it saw; input after them starts anew
    if (!item.output) this.callStart = null;
    else if (this.callStart === null) this.callStart = this.context.length;
    this.context.push(item);
    if (item.prompt) this.prompts++;
    // contract §8.4 items: the prompts the user typed, and the files a patch touched (Codex reads
    // files through shell commands, whose paths no rule can tell apart reliably)
    if (item.prompt) {
      // the prompt as the user wrote it (contract §8.4), not the editor context an IDE sent before it
      const request = requestOf(item.text);
      this.audit.promptWritten(request, this.turn + 1);
      this.audit.add('user_prompt', request, this.turn + 1, item.id);
    }
    if (item.kind === 'tool_use' && item.tool === 'apply_patch') for (const f of patchFiles(item.text)) this.audit.add('file', f, this.turn, item.id);
    // older Codex ran apply_patch through the shell tool (codexItems.ts shellPatch)
    const patch = raw.type === 'function_call' ? shellPatch(str(raw.name), str(raw.arguments)) : null;
    if (patch !== null) for (const f of patchFiles(patch)) this.audit.add('file', f, this.turn, item.id);
  }

  /**
   * adapters.md: some Codex versions write an inter-agent message both as an
   * `inter_agent_communication` line and as a `response_item` `agent_message`; the model saw it
   * once. True (and counted) when `raw` is the second copy of one the other line type wrote.
   */
  private sameAgentMessage(raw: JsonObject, source: string): boolean {
    const key = `${str(raw.author)}\u0000${agentMessageText(raw.content)}`;
    const other = source === 'response_item' ? this.agentMessagesFromLines : this.agentMessagesFromItems;
    const mine = source === 'response_item' ? this.agentMessagesFromItems : this.agentMessagesFromLines;
    const waiting = other.get(key) ?? 0;
    if (waiting > 0) {
      if (waiting === 1) other.delete(key);
      else other.set(key, waiting - 1);
      this.skipped.add(`${source === 'response_item' ? 'response_item:agent_message' : 'inter_agent_communication'} (the inter-agent message again)`);
      return true;
    }
    mine.set(key, (mine.get(key) ?? 0) + 1);
    return false;
  }

  /** A response item as context, or null (counted as skipped) when the model never sees it. */
  private item(raw: JsonObject, id: string): ContextItem | null {
    const view = viewOf(raw, this.callLabels);
    if ('skip' in view) {
      this.skipped.add(view.skip);
      return null;
    }
    if (view.kind === 'instructions' && this.instructionsAreAgentsMd && this.instructions !== null && view.text.includes(this.instructions.text)) {
      // adapters.md instructions: the session's span already stands for this AGENTS.md text
      this.skipped.add('response_item:message (the session instructions again)');
      return null;
    }
    if (view.kind === 'tool_use' && view.callId !== null && view.callId !== '') this.callLabels.set(view.callId, { label: view.label, tool: view.tool });
    // adapters.md pinned: what the operator wrote, the instructions and the first prompt
    let pinned = view.instructions;
    if (view.prompt && this.firstPrompt === null) {
      this.firstPrompt = requestOf(view.text);
      pinned = true;
    }
    return contextItemOf(view, id, pinned);
  }

  /**
   * adapters.md compaction: the context is replaced by the record's `replacement_history`
   * (an item equal to a live one keeps its id: Codex carries user messages over), or, in
   * rollouts without it, by the summary message alone.
   */
  private compacted(payload: JsonObject): void {
    const message = typeof payload.message === 'string' ? payload.message : '';
    const history = Array.isArray(payload.replacement_history) ? payload.replacement_history : null;
    // docs/security.md "Linear time": a live item equal to a replacement one, found by its
    // kind, role and text (the first still unclaimed, in context order), not by a scan per entry
    const pool = new Map<string, { items: ContextItem[]; next: number }>();
    for (const c of this.context) {
      const key = itemKey(c);
      const same = pool.get(key);
      if (same === undefined) pool.set(key, { items: [c], next: 0 });
      else same.items.push(c);
    }
    const kept = new Set<string>();
    const next: ContextItem[] = [];
    if (history !== null) {
      history.forEach((entry: unknown, i) => {
        if (!isObject(entry)) {
          this.skipped.add('malformed replacement item');
          return;
        }
        const made = this.item(entry, `${this.lineId}/${i}`);
        if (made === null) return;
        this.scanned++;
        const same = pool.get(itemKey(made));
        if (same === undefined || same.next === same.items.length) next.push(made);
        else {
          const carried = same.items[same.next++]!;
          kept.add(carried.id);
          next.push(carried);
        }
      });
    } else {
      next.push(summaryItem(message, this.lineId));
    }
    const replaced = this.context.filter((c) => !kept.has(c.id)).map((c) => c.id);
    const fresh = next.filter((n) => !kept.has(n.id));
    const summaryText = message.trim();
    for (const f of fresh) {
      f.derivedFrom = replaced;
      // the summary the model wrote: the new message that holds the record's `message`
      if (f.kind === 'text' && summaryText !== '' && f.text.includes(summaryText)) {
        f.role = 'summary';
        f.label = 'compaction summary';
      }
    }
    this.context = next;
    this.prompts = next.filter((c) => c.prompt).length;
    this.callStart = null;
    appendAll(this.removed, replaced);
    this.audit.compact();
    // contract §8.3 summary_state: the server's summary is an encrypted `compaction` item; with no
    // clear `message` beside it, nothing of what it kept can be read
    // an encrypted summary already in the history (written as a response item before the record) is still this one's summary
    const summaries = [...fresh, ...next.filter((n) => kept.has(n.id) && n.kind === 'compaction' && n.derivedFrom === null)];
    const encrypted = summaryText === '' && summaries.some((f) => f.kind === 'compaction');
    this.compaction = {
      replaced: appendAll(this.compaction?.replaced.slice() ?? [], replaced),
      summary: summaries.map((f) => f.id),
      encrypted: encrypted || this.compaction?.encrypted === true,
    };
  }

  private event(payload: JsonObject, line: number, ts: string | null): AdaptedMessage[] {
    const type = typeof payload.type === 'string' ? payload.type : '(no type)';
    if (type === 'thread_rolled_back') {
      this.rollBack(payload.num_turns);
      return [];
    }
    if (type !== 'token_count') {
      // user_message, agent_message, agent_reasoning, …: the UI's copy of response items
      this.skipped.add(`event_msg:${type}`);
      return [];
    }
    const info = isObject(payload.info) ? payload.info : null;
    const last = isObject(info?.last_token_usage) ? info.last_token_usage : null;
    const input = last?.input_tokens;
    if (info === null || last === null || typeof input !== 'number' || !Number.isInteger(input) || input <= 0) {
      // rate-limit updates before any usage, and Codex's own estimates (input 0): no model call
      this.skipped.add('event_msg:token_count (no new call)');
      return [];
    }
    const totals = JSON.stringify(info.total_token_usage ?? null);
    if (totals === this.lastTotals) {
      // adapters.md turns: a rate-limit update repeats the last call's usage
      this.skipped.add('event_msg:token_count (no new call)');
      return [];
    }
    this.lastTotals = totals;
    if (typeof info.model_context_window === 'number' && Number.isInteger(info.model_context_window) && info.model_context_window > 0) {
      this.contextWindow = info.model_context_window;
    }
    return this.call(input, line, ts);
  }

  /**
   * adapters.md rollbacks: `thread_rolled_back {num_turns: n}` drops the last n user turns from
   * the history, as Codex rebuilds it (from the n-th last prompt the user typed on; all of them
   * but what came before the first when n is as many or more). The file still holds them: they
   * are pruned and archived at the next call, and their audit items leave the stretch.
   */
  private rollBack(turns: unknown): void {
    if (typeof turns !== 'number' || !Number.isInteger(turns) || turns < 0) {
      this.skipped.add('event_msg:thread_rolled_back (no num_turns)');
      return;
    }
    // docs/security.md "Linear time": from the end back to the cut only, so each rollback
    // costs what it drops (n rollbacks of 0 turns cost nothing, not n scans of the context)
    let cut = -1;
    for (let i = this.context.length - 1, seen = 0, wanted = Math.min(turns, this.prompts); i >= 0 && seen < wanted; i--) {
      if (!this.context[i]!.prompt) continue;
      cut = i;
      seen++;
    }
    if (cut === -1) return;
    this.scanned += this.context.length - cut;
    const dropped = this.context.splice(cut);
    for (const c of dropped) if (c.prompt) this.prompts--;
    const ids = new Set(dropped.map((c) => c.id));
    for (const id of ids) this.removed.push(id);
    // the first prompt, rolled back: the next one the user types is the operator's task
    if (dropped.some((c) => c.prompt && c.pinned)) this.firstPrompt = null;
    this.audit.forget(ids);
    this.callStart = null;
  }

  /** adapters.md turns: one model call; its snapshot is what the call saw, its total the call's input tokens. */
  private call(total: number | null, line: number, ts: string | null): AdaptedMessage[] {
    const out: AdaptedMessage[] = [];
    this.turn++;
    if (!this.headerSent) out.push({ value: this.header(), line });
    const seen = this.context.slice(0, this.callStart ?? this.context.length);
    this.callStart = null;
    const items = this.instructions === null ? seen : [this.instructions, ...seen];
    const spans = items.map(toSpan);
    if (spans.length > 0 && total !== null) {
      // adapters.md tokens: estimates scaled down to fit, the rest on the instructions (else the first span)
      const shares = fitTokens(
        items.map((i) => i.estimate),
        total,
      );
      spans.forEach((s, i) => (s.tokens = shares[i]!));
      spans[0]!.tokens = shares[0]! + total - shares.reduce((a, b) => a + b, 0);
    }
    const snap: Snapshot = { type: 'snapshot', session_id: this.sid, turn: this.turn, spans };
    if (ts !== null) snap.ts = ts;
    if (this.model !== null) snap.model = this.model;
    closeCall(snap, items, this.removed, this.compaction, this.audit, null);
    this.removed = [];
    this.compaction = null;
    out.push({ value: snap, line });
    return out;
  }

  private header(): SessionHeader {
    this.headerSent = true;
    const folder = this.cwd === null ? null : baseName(this.cwd);
    const prompt = this.firstPrompt === null ? null : titleWords(this.firstPrompt);
    const parts = [folder, prompt].filter((p): p is string => p !== null && p !== '');
    const header: SessionHeader = {
      type: 'session',
      session_id: this.sid,
      title: parts.length > 0 ? parts.join(' — ') : `Codex session ${this.sid}`,
      source: 'codex',
    };
    if (this.startedAt !== null) header.started_at = this.startedAt;
    if (this.contextWindow !== null) header.context_window = this.contextWindow;
    return header;
  }

  private get sid(): string {
    return this.sessionId ?? this.fallbackSessionId;
  }
}

/**
 * The view as a context item, written field by field: every item then has one hidden class.
 * Spread from views that were themselves spread from their options, nearly every item had
 * its own, and `toSpan`, which reads every item of the context on every call, ran
 * megamorphic: a third of `check`'s time on a 1,000-call rollout
 * (docs/perf-log/2026-12-03-per-turn.md).
 */
function contextItemOf(view: ItemView, id: string, pinned: boolean): ContextItem {
  const item: ContextItem = {
    text: view.text,
    role: view.role,
    kind: view.kind,
    label: view.label,
    tool: view.tool,
    output: view.output,
    instructions: view.instructions,
    prompt: view.prompt,
    callId: view.callId,
    id,
    pinned,
    derivedFrom: null,
    estimate: estimateTokens(view.text),
  };
  if (view.identity !== undefined) item.identity = view.identity;
  return item;
}

function instructionsItem(text: string, label: string): ContextItem {
  return { ...bareItem(INSTRUCTIONS_SPAN_ID, text, 'system', 'instructions', label), instructions: true, pinned: true };
}

/** adapters.md compaction: a rollout without `replacement_history` leaves only the summary. */
/** What makes a replacement item the same as a live one (contract: Codex carries user messages over). */
/** the same item: kind, role, text and (an encrypted item's ciphertext) identity */
function itemKey(c: ItemView): string {
  return `${c.kind}\u0000${c.role}\u0000${c.text}\u0000${c.identity ?? ''}`;
}

function summaryItem(text: string, id: string): ContextItem {
  return bareItem(id, text, 'summary', 'text', 'compaction summary');
}

function bareItem(id: string, text: string, role: string, kind: string, label: string): ContextItem {
  return {
    id,
    text,
    role,
    kind,
    label,
    tool: null,
    output: false,
    instructions: false,
    prompt: false,
    callId: null,
    pinned: false,
    derivedFrom: null,
    estimate: estimateTokens(text),
  };
}

function toSpan(item: ContextItem): Span {
  const span: Span = { span_id: item.id, text: item.text, score: null, text_sha256: null, role: item.role, kind: item.kind, label: item.label };
  if (item.tool !== null) span.tool = item.tool;
  if (item.pinned) span.pinned = true;
  if (item.derivedFrom !== null) span.derived_from = item.derivedFrom;
  return span;
}

/** The last folder of a path, POSIX or Windows. */
function baseName(path: string): string {
  const parts = path.split(/[/\\]+/).filter((p) => p !== '');
  return parts[parts.length - 1] ?? path;
}

/** A title's prompt part: its first eight words. */
function titleWords(text: string): string {
  const words = text.trim().split(/\s+/);
  return words.slice(0, 8).join(' ') + (words.length > 8 ? '…' : '');
}
