// OpenHands conversations (the V1 software-agent-sdk: ~/.openhands/conversations/<id>/, one
// JSON file per event under events/, `event-00000-<event id>.json`, and base_state.json)
// turned into contract §2 messages: one session header, then one snapshot per model call of
// the agent (each distinct `llm_response_id` of its ActionEvents and MessageEvents). Each
// event is `Event.model_dump_json(exclude_none=True)` with its class in `kind`
// (openhands-sdk/openhands/sdk/event/*, conversation/event_store.py). A `Condensation`
// removes `forgotten_event_ids` from what the model sees and puts its `summary` at
// `summary_offset` (event/condenser.py `apply`): one compaction. The mapping rules are
// docs/adapters.md "OpenHands"; each rule below names the one it implements. Events of the
// V0 app (`action`/`observation`, no `kind`) and evaluation rows of them go to openhandsV0.ts.
import { CompactionAuditor } from '../../core/compactionAudit.ts';
import type { SessionHeader, Snapshot } from '../../core/wire.ts';
import type { AdaptedMessage } from './claudeCode.ts';
import { closeCall } from './callTail.ts';
import { callSpans, contextItem, type ContextItem } from './contextItems.ts';
import { stringify } from './geminiParts.ts';
import { endStretch, openHandsHeader, type Condensed, type PendingItem } from './openhandsCommon.ts';
import { EventIds } from './openhandsIds.ts';
import { isObject, type JsonObject } from './json.ts';
import { SkippedRecords } from './skipped.ts';
import { firstWords, shownPath } from './spanLabels.ts';
import { evalEvents, evalUsages, isV0EvalRow, isV0Event, OpenHandsV0Session } from './openhandsV0.ts';

/** The event kinds of the SDK (their class names), as `detect.ts` tells the format by. */
export const OPENHANDS_EVENT_KINDS: ReadonlySet<string> = new Set([
  'SystemPromptEvent',
  'MessageEvent',
  'ActionEvent',
  'ObservationEvent',
  'UserRejectObservation',
  'AgentErrorEvent',
  'Condensation',
  'CondensationRequest',
  'CondensationSummaryEvent',
  'ConversationStateUpdateEvent',
  'ConversationErrorEvent',
  'PauseEvent',
  'InterruptEvent',
  'TokenEvent',
  'LLMCompletionLogEvent',
  'HookExecutionEvent',
  'StreamingDeltaEvent',
  'ServerErrorEvent',
  'ACPToolCallEvent',
]);

/** openhands-sdk tool/schema.py `Observation.ERROR_MESSAGE_HEADER`: put before an error's content. */
const ERROR_HEADER = '[An error occurred during execution.]\n';

/** the event kinds the model sees (or that change what it sees); the others are counted as not sent */
const MODEL_KINDS: ReadonlySet<string> = new Set([
  'SystemPromptEvent',
  'MessageEvent',
  'ActionEvent',
  'ObservationEvent',
  'UserRejectObservation',
  'AgentErrorEvent',
  'Condensation',
  'CondensationSummaryEvent',
]);

/** adapters.md tokens: one agent call's usage, from base_state.json's `stats` (llm/utils/metrics.py `TokenUsage`). */
interface CallUsage {
  prompt: number;
  model: string | null;
  window: number | null;
}

interface ViewEvent {
  id: string;
  items: ContextItem[];
}

export class OpenHandsAdapter {
  readonly skipped = new SkippedRecords();
  private sessionId: string | null = null;
  private headerSent = false;
  /** what the model sees, in order: the events that become LLM messages (condensations applied) */
  private view: ViewEvent[] = [];
  private readonly usage = new Map<string, CallUsage>();
  private readonly calls = new Set<string>();
  private lastResponse: string | null = null;
  /** tool_call_id → the call's label and tool, for its observation */
  private readonly callLabels = new Map<string, { label: string; tool: string }>();
  private firstPrompt: string | null = null;
  private removed: string[] = [];
  private compaction: Condensed | null = null;
  private readonly audit = new CompactionAuditor();
  /**
   * contract §8.4 items not yet audited, with the span that gave each: a condensation audits
   * only those of the events it forgets (the others stay in view), so the rest wait for the next one
   */
  private pending: PendingItem[] = [];
  private turn = 0;
  private cwd: string | null = null;
  private contextWindow: number | null = null;
  /** adapters.md "V0 events": a trajectory of the app's events, read by a session of its own */
  private v0: OpenHandsV0Session | null = null;
  private v0Turns = 0;
  /** evaluation rows' session ids, so a rerun instance gets `<id>#2` instead of clashing */
  private readonly rowIds = new Map<string, number>();
  /** the session ids the evaluation rows took */
  private readonly rowSessions = new Set<string>();
  /** adapters.md span id: the events' keys, so no two spans share an id */
  private readonly ids = new EventIds(this.skipped);

  constructor(private readonly fallbackSessionId = 'openhands') {}

  get turns(): number {
    return this.turn + this.v0Turns + (this.v0?.turns ?? 0);
  }

  record(value: unknown, line: number): Iterable<AdaptedMessage> {
    if (!isObject(value)) {
      this.skipped.add('not an object');
      return [];
    }
    const kind = typeof value.kind === 'string' ? value.kind : null;
    if (kind === null) {
      if (isV0Event(value)) {
        this.v0 ??= new OpenHandsV0Session(this.sid, this.skipped);
        return this.v0.event(value, line);
      }
      if (isV0EvalRow(value)) return this.evalRow(value, line);
      if (isObject(value.stats) || (typeof value.id === 'string' && isObject(value.agent))) {
        this.state(value);
        return [];
      }
      this.skipped.add('not an OpenHands event');
      return [];
    }
    if (!MODEL_KINDS.has(kind)) {
      // CondensationRequest, ConversationStateUpdateEvent, PauseEvent, …: not sent to the model
      this.skipped.add(`${kind} (not sent to the model)`);
      return [];
    }
    // adapters.md span id: null for an event id already read (skipped and counted)
    const id = this.ids.of(typeof value.id === 'string' ? value.id : null, line);
    if (id === null) return [];
    switch (kind) {
      case 'SystemPromptEvent':
        this.systemPrompt(value, id);
        return [];
      case 'MessageEvent':
        return this.messageEvent(value, id, line);
      case 'ActionEvent':
        return this.action(value, id, line);
      case 'ObservationEvent':
      case 'UserRejectObservation':
      case 'AgentErrorEvent':
        this.observation(kind, value, id);
        return [];
      case 'Condensation':
        this.condensation(value, id);
        return [];
      case 'CondensationSummaryEvent':
        if (typeof value.summary === 'string') this.view.push({ id, items: [contextItem(id, value.summary, 'summary', 'text', 'compaction summary')] });
        return [];
      default:
        return [];
    }
  }

  truncatedLastLine(): void {
    this.skipped.add('truncated last line');
  }

  /**
   * adapters.md "V0 events": an evaluation `output.jsonl` row is a session of its own
   * (`session_id` = its `instance_id`), its `history` read event by event as it is iterated,
   * so one row's snapshots are never all held at once.
   */
  private *evalRow(row: JsonObject, line: number): Iterable<AdaptedMessage> {
    const instance = row.instance_id as string;
    // a row whose instance_id reads `<id>#<n>` must not take a rerun's session id (its turns
    // would follow another session's and be refused): the next number not taken
    let seen = this.rowIds.get(instance) ?? 0;
    let sid: string;
    do sid = ++seen === 1 ? instance : `${instance}#${seen}`;
    while (this.rowSessions.has(sid));
    this.rowIds.set(instance, seen);
    this.rowSessions.add(sid);
    const session = new OpenHandsV0Session(sid, this.skipped, evalUsages(row));
    for (const event of evalEvents(row.history as unknown[])) {
      // the 2024 pairs' `NullObservation`s carry neither `source` nor `id`: an event all the same
      if (isObject(event) && (typeof event.action === 'string' || typeof event.observation === 'string')) yield* session.event(event, line);
      else this.skipped.add('not an OpenHands event');
    }
    this.v0Turns += session.turns;
  }

  /**
   * adapters.md tokens: base_state.json (`ConversationState`): its `id` names the session, and
   * `stats.usage_to_metrics[*].token_usages[]` give each call's `prompt_tokens` by `response_id`.
   */
  private state(state: JsonObject): void {
    if (typeof state.id === 'string' && state.id !== '' && this.sessionId === null) this.sessionId = state.id;
    const workspace = isObject(state.workspace) ? state.workspace : null;
    if (workspace !== null && typeof workspace.working_dir === 'string') this.cwd = workspace.working_dir;
    const metrics = isObject(state.stats) && isObject(state.stats.usage_to_metrics) ? state.stats.usage_to_metrics : {};
    for (const m of Object.values(metrics)) {
      if (!isObject(m) || !Array.isArray(m.token_usages)) continue;
      for (const u of m.token_usages) {
        if (!isObject(u) || typeof u.response_id !== 'string' || u.response_id === '') continue;
        const prompt = u.prompt_tokens;
        if (typeof prompt !== 'number' || !Number.isInteger(prompt) || prompt <= 0) continue;
        const window = typeof u.context_window === 'number' && Number.isInteger(u.context_window) && u.context_window > 0 ? u.context_window : null;
        this.usage.set(u.response_id, { prompt, model: typeof u.model === 'string' && u.model !== '' ? u.model : null, window });
      }
    }
  }

  private systemPrompt(event: JsonObject, id: string): void {
    const items: ContextItem[] = [];
    const prompt = textOf(event.system_prompt);
    const dynamic = textOf(event.dynamic_context);
    const text = [prompt, dynamic].filter((t) => t !== '').join('\n');
    if (text !== '') {
      const item = contextItem(id, text, 'system', 'instructions', 'system prompt');
      item.pinned = true;
      items.push(item);
    }
    if (Array.isArray(event.tools) && event.tools.length > 0) {
      const tools = event.tools
        .filter(isObject)
        .map((t) => `${typeof t.name === 'string' ? t.name : ''}: ${typeof t.description === 'string' ? t.description : ''}`);
      items.push(contextItem(`${id}#tools`, tools.join('\n'), 'system', 'tools', `tool definitions (${tools.length})`));
    }
    this.view.push({ id, items });
  }

  private messageEvent(event: JsonObject, id: string, line: number): AdaptedMessage[] {
    const message = isObject(event.llm_message) ? event.llm_message : {};
    const text = [contentText(message.content), contentText(event.extended_content)].filter((t) => t !== '').join('\n');
    const source = event.source;
    if (source === 'agent') {
      const out = this.callOf(event, line);
      const items: ContextItem[] = [];
      const reasoning = typeof message.reasoning_content === 'string' ? message.reasoning_content : '';
      if (reasoning !== '') items.push(contextItem(`${id}#reasoning`, reasoning, 'assistant', 'thinking', 'thinking'));
      if (text !== '') items.push(contextItem(id, text, 'assistant', 'text', firstWords(text)));
      this.view.push({ id, items });
      return out;
    }
    if (text === '') {
      this.skipped.add('MessageEvent (empty)');
      return [];
    }
    const prompt = contentText(message.content);
    const item = contextItem(id, text, 'user', 'text', firstWords(prompt === '' ? text : prompt));
    if (this.firstPrompt === null && prompt !== '') {
      this.firstPrompt = prompt;
      item.pinned = true;
    }
    if (prompt !== '') {
      this.audit.promptWritten(prompt, this.turn + 1);
      this.pending.push({ kind: 'user_prompt', text: prompt, turn: this.turn + 1, spanId: id });
    }
    this.view.push({ id, items: [item] });
    return [];
  }

  private action(event: JsonObject, id: string, line: number): AdaptedMessage[] {
    const out = this.callOf(event, line);
    const items: ContextItem[] = [];
    const reasoning = typeof event.reasoning_content === 'string' ? event.reasoning_content : '';
    if (reasoning !== '') items.push(contextItem(`${id}#reasoning`, reasoning, 'assistant', 'thinking', 'thinking'));
    const thought = contentText(event.thought);
    if (thought !== '') items.push(contextItem(`${id}#thought`, thought, 'assistant', 'text', firstWords(thought)));
    const call = isObject(event.tool_call) ? event.tool_call : {};
    const tool = typeof event.tool_name === 'string' && event.tool_name !== '' ? event.tool_name : typeof call.name === 'string' ? call.name : 'tool';
    const args = argumentsOf(event.action, call.arguments);
    const label = actionLabel(tool, args, this.cwd);
    const callText = typeof call.arguments === 'string' ? `${tool} ${call.arguments}` : `${tool} ${stringify(event.action)}`;
    items.push(contextItem(id, callText, 'assistant', 'tool_use', label, tool));
    const callId = typeof event.tool_call_id === 'string' ? event.tool_call_id : typeof call.id === 'string' ? call.id : null;
    if (callId !== null) this.callLabels.set(callId, { label, tool });
    // contract §8.4 `file`: the file-editor's and the read tools' paths
    const path = filePath(tool, args);
    if (path !== null) {
      if (isRead(tool, args)) this.audit.fileRead(path, this.turn);
      this.pending.push({ kind: 'file', text: path, turn: this.turn, spanId: id });
    }
    const command = shellCommand(tool, args);
    if (command !== null) this.pending.push({ kind: 'command', text: command, turn: this.turn, spanId: id });
    this.view.push({ id, items });
    return out;
  }

  private observation(kind: string, event: JsonObject, id: string): void {
    const callId = typeof event.tool_call_id === 'string' ? event.tool_call_id : null;
    const call = callId === null ? undefined : this.callLabels.get(callId);
    const tool = call?.tool ?? (typeof event.tool_name === 'string' ? event.tool_name : null);
    const of = call?.label ?? tool ?? 'tool';
    let text: string;
    let error = false;
    if (kind === 'AgentErrorEvent') {
      text = typeof event.error === 'string' ? event.error : '';
      error = true;
    } else if (kind === 'UserRejectObservation') {
      text = `Action rejected: ${typeof event.rejection_reason === 'string' ? event.rejection_reason : 'User rejected the action'}`;
    } else {
      const obs = isObject(event.observation) ? event.observation : {};
      error = obs.is_error === true;
      text = (error ? ERROR_HEADER : '') + [contentText(obs.content), contentText(event.extended_content)].filter((t) => t !== '').join('\n');
    }
    if (error) {
      const first = text
        .replace(ERROR_HEADER, '')
        .split('\n')
        .find((l) => l.trim() !== '');
      if (first !== undefined) this.pending.push({ kind: 'error', text: first.trim(), turn: this.turn, spanId: id });
    }
    this.view.push({ id, items: [contextItem(id, text, 'tool', 'tool_result', `${error ? 'error from' : 'result of'} ${of}`, tool)] });
  }

  /**
   * adapters.md condensation: the forgotten events leave the view; the summary goes in at
   * `summary_offset` (of the view without them) as `<id>-summary`, the id the SDK gives it.
   */
  private condensation(event: JsonObject, id: string): void {
    const forgotten = new Set(
      Array.isArray(event.forgotten_event_ids) ? event.forgotten_event_ids.filter((f): f is string => typeof f === 'string').map(EventIds.named) : [],
    );
    const dropped = this.view.filter((v) => forgotten.has(v.id));
    const replaced = dropped.flatMap((v) => v.items.map((i) => i.id));
    this.view = this.view.filter((v) => !forgotten.has(v.id));
    const summary: string[] = [];
    const offset = event.summary_offset;
    // adapters.md span id: no summary span when an event already took its id
    const sid = typeof event.summary === 'string' && typeof offset === 'number' && Number.isInteger(offset) && offset >= 0 ? this.ids.summary(id) : null;
    if (sid !== null) {
      const item = contextItem(sid, event.summary as string, 'summary', 'text', 'compaction summary');
      item.derivedFrom = replaced;
      this.view.splice(Math.min(offset as number, this.view.length), 0, { id: sid, items: [item] });
      summary.push(sid);
    }
    ({ pending: this.pending, compaction: this.compaction } = endStretch(this.audit, this.pending, this.removed, this.compaction, replaced, summary));
  }

  /** adapters.md turns: the first event of a new agent response is a call; what it saw is the view before it. */
  private callOf(event: JsonObject, line: number): AdaptedMessage[] {
    const rid = typeof event.llm_response_id === 'string' && event.llm_response_id !== '' ? event.llm_response_id : null;
    if (rid === null) {
      // an agent event without a response id (older or hand-made): a call of its own unless it follows one
      if (this.lastResponse === null) return this.call(null, event, line);
      return [];
    }
    if (rid === this.lastResponse || this.calls.has(rid)) return [];
    this.calls.add(rid);
    this.lastResponse = rid;
    return this.call(rid, event, line);
  }

  private call(rid: string | null, event: JsonObject, line: number): AdaptedMessage[] {
    const out: AdaptedMessage[] = [];
    this.turn++;
    const usage = rid === null ? undefined : this.usage.get(rid);
    if (usage?.window != null && this.contextWindow === null) this.contextWindow = usage.window;
    if (!this.headerSent) out.push({ value: this.header(), line });
    const items = this.view.flatMap((v) => v.items);
    const snap: Snapshot = { type: 'snapshot', session_id: this.sid, turn: this.turn, spans: callSpans(null, items, usage?.prompt ?? null) };
    if (typeof event.timestamp === 'string') snap.ts = event.timestamp;
    if (usage?.model != null) snap.model = usage.model;
    closeCall(snap, items, this.removed, this.compaction, this.audit, 'condenser');
    this.removed = [];
    this.compaction = null;
    out.push({ value: snap, line });
    return out;
  }

  private header(): SessionHeader {
    this.headerSent = true;
    return openHandsHeader(this.sid, this.firstPrompt, this.contextWindow);
  }

  private get sid(): string {
    return this.sessionId ?? this.fallbackSessionId;
  }
}

/** A `TextContent` (`{type: "text", text}`) or a list of content items, as text; images as `[image]`. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (isObject(content)) return textOf(content);
  if (!Array.isArray(content)) return '';
  return content
    .map((c) => (isObject(c) ? (typeof c.text === 'string' ? c.text : c.type === 'image' ? '[image]' : '') : ''))
    .filter((t) => t !== '')
    .join('\n');
}

function textOf(v: unknown): string {
  return isObject(v) && typeof v.text === 'string' ? v.text : '';
}

/** The action's fields (the SDK's parsed `action`), else the call's JSON arguments. */
function argumentsOf(action: unknown, raw: unknown): JsonObject {
  if (isObject(action)) return action;
  if (typeof raw !== 'string') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The file-editor tools (V1 `file_editor`, the older `str_replace_editor`, the planning editor) and Gemini-style file tools. */
const EDITORS = new Set(['file_editor', 'str_replace_editor', 'planning_file_editor']);
const FILE_TOOLS = new Set(['read_file', 'write_file', 'edit']);

function filePath(tool: string, args: JsonObject): string | null {
  if (EDITORS.has(tool)) return str(args.path);
  if (FILE_TOOLS.has(tool)) return str(args.file_path) ?? str(args.path);
  return null;
}

function isRead(tool: string, args: JsonObject): boolean {
  return (EDITORS.has(tool) && args.command === 'view') || tool === 'read_file';
}

function shellCommand(tool: string, args: JsonObject): string | null {
  return tool === 'terminal' || tool === 'execute_bash' || tool === 'bash' ? str(args.command) : null;
}

/** contract §8.8: an action's label. */
function actionLabel(tool: string, args: JsonObject, cwd: string | null): string {
  const path = filePath(tool, args);
  if (path !== null) {
    const command = str(args.command);
    return firstWords(`${command ?? tool} ${shownPath(path, cwd)}`);
  }
  const command = shellCommand(tool, args);
  if (command !== null) return firstWords(`shell: ${command}`);
  if (tool === 'finish') return 'finish';
  if (tool === 'think') return 'think';
  if (tool === 'task_tracker') return `task_tracker ${str(args.command) ?? ''}`.trim();
  return tool === '' ? 'tool call' : firstWords(tool);
}
