// OpenHands V0 events (the OpenHands app before the software-agent-sdk: the "download
// trajectory" JSON array, `save_trajectory_path` files, and the `history` of evaluation
// `output.jsonl` rows) turned into contract §2 messages. Each event is `event_to_dict`
// (openhands/events/serialization/event.py): a flat object with `id` (an integer),
// `timestamp`, `source` (`agent`, `user`, `environment`), `message`, and either `action` with
// `args` or `observation` with `content`, `extras` and `cause`; agent actions of the
// function-calling agents carry `tool_call_metadata {function_name, tool_call_id,
// model_response {id, model, choices, usage}, total_calls_in_response}` (openhands/events/tool.py).
// One turn per distinct `model_response.id` of agent actions; a `condensation` action
// (`forgotten_event_ids`, or `forgotten_events_start_id`..`forgotten_events_end_id`, and a
// `summary` at `summary_offset`, openhands/memory/view.py) is one compaction. The mapping
// rules are docs/adapters.md "OpenHands", "V0 events"; each rule below names the one it implements.
import { CompactionAuditor } from '../../core/compactionAudit.ts';
import type { SessionHeader, Snapshot } from '../../core/wire.ts';
import type { AdaptedMessage } from './claudeCode.ts';
import { closeCall } from './callTail.ts';
import { callSpans, contextItem, type ContextItem } from './contextItems.ts';
import { stringify } from './geminiParts.ts';
import { EventIds } from './openhandsIds.ts';
import { endStretch, openHandsHeader, type Condensed, type PendingItem } from './openhandsCommon.ts';
import { isObject, type JsonObject } from './json.ts';
import type { SkippedRecords } from './skipped.ts';
import { firstWords } from './spanLabels.ts';

const SOURCES = new Set(['agent', 'user', 'environment']);

/** A V0 event (event_to_dict): `action` or `observation` named by a string, its `source`, and its `id` or `timestamp`. */
export function isV0Event(value: unknown): boolean {
  if (!isObject(value) || 'kind' in value) return false;
  if (typeof value.action !== 'string' && typeof value.observation !== 'string') return false;
  if (typeof value.source !== 'string' || !SOURCES.has(value.source)) return false;
  return typeof value.id === 'number' || typeof value.id === 'string' || typeof value.timestamp === 'string';
}

/**
 * An evaluation output row (evaluation/utils/shared.py `EvalOutput`): `instance_id` and a
 * `history` of V0 events, or (before September 2024) of `[action, observation]` pairs.
 */
export function isV0EvalRow(value: unknown): boolean {
  if (!isObject(value) || typeof value.instance_id !== 'string' || !Array.isArray(value.history)) return false;
  const first: unknown = value.history[0];
  if (first === undefined) return true;
  return isV0Event(first) || (Array.isArray(first) && isV0Event(first[0]));
}

/** The actions that are a model's answer (openhands/events/action/*: what the agent's LLM returned). */
const CALL_ACTIONS = new Set([
  'message',
  'run',
  'run_ipython',
  'read',
  'write',
  'edit',
  'browse',
  'browse_interactive',
  'think',
  'finish',
  'reject',
  'delegate',
  'call_tool_mcp',
  'task_tracking',
]);

/**
 * Events the model never sees (openhands/memory/conversation_memory.py renders nothing for
 * them): counted as skipped. The condensation action itself is handled (a compaction).
 */
const NOT_SENT_ACTIONS = new Set([
  'change_agent_state',
  'recall',
  'condensation_request',
  'loop_recovery',
  'null',
  'pause',
  'resume',
  'stop',
  'start',
  'push',
  'send_pr',
]);
const NOT_SENT_OBSERVATIONS = new Set(['agent_state_changed', 'null', 'loop_detection']);
/**
 * The events the agent's history leaves out (controller/state/state_tracker.py
 * `agent_history_filter`); every other event, even one the model never sees, holds a place
 * in the history a condensation's `summary_offset` counts (memory/view.py).
 */
const NOT_IN_HISTORY = new Set(['null', 'change_agent_state', 'agent_state_changed']);

/** Fields of `args` that are bookkeeping, not what the model wrote (action.py, commands.py, files.py). */
const BOOKKEEPING = new Set([
  'thought',
  'blocking',
  'confirmation_state',
  'is_confirmed',
  'hidden',
  'is_input',
  'security_risk',
  'impl_source',
  'translated_ipython_code',
  'keep_prompt',
  'timestamp',
  'wait_for_response',
  'image_urls',
  'include_extra',
  'kernel_init_code',
  'return_axtree',
]);

interface ViewEvent {
  id: string;
  /** the event's numeric id, for a forgotten range */
  num: number | null;
  items: ContextItem[];
}

interface CallUsage {
  prompt: number | null;
  model: string | null;
  window: number | null;
}

/** One V0 session: a trajectory file, or one evaluation row. */
export class OpenHandsV0Session {
  private headerSent = false;
  private view: ViewEvent[] = [];
  private readonly calls = new Set<string>();
  /** event id → label of the action, for its observation (`cause`) */
  private readonly labels = new Map<string, string>();
  /** the summary the view holds: V0 shows only the last condensation's (view.py) */
  private summaryId: string | null = null;
  private firstPrompt: string | null = null;
  private removed: string[] = [];
  private compaction: Condensed | null = null;
  private readonly audit = new CompactionAuditor();
  private pending: PendingItem[] = [];
  private turn = 0;
  private contextWindow: number | null = null;
  /** adapters.md span id: the events' keys, so no two spans share an id */
  private readonly ids: EventIds;

  constructor(
    private readonly sessionId: string,
    private readonly skipped: SkippedRecords,
    /** an evaluation row's `metrics.token_usages`: prompt tokens by response id */
    private readonly usages: ReadonlyMap<string, CallUsage> = new Map(),
  ) {
    this.ids = new EventIds(skipped);
  }

  get turns(): number {
    return this.turn;
  }

  event(event: JsonObject, line: number): AdaptedMessage[] {
    // callers pass what isV0Event accepted
    // adapters.md span id: null for an event id already read (skipped and counted)
    const id = this.ids.of(typeof event.id === 'number' || typeof event.id === 'string' ? event.id : null, line);
    if (id === null) return [];
    const num = typeof event.id === 'number' && Number.isInteger(event.id) ? event.id : null;
    this.windowOf(event);
    if (typeof event.action === 'string') return this.action(event.action, event, id, num, line);
    if (typeof event.observation === 'string') this.observation(event.observation, event, id, num);
    else this.skipped.add('not an OpenHands event');
    return [];
  }

  private action(action: string, event: JsonObject, id: string, num: number | null, line: number): AdaptedMessage[] {
    const args = isObject(event.args) ? event.args : {};
    const source = event.source;
    if (action === 'condensation') {
      this.condensation(args, id);
      return [];
    }
    if (action === 'system') {
      this.systemMessage(args, id, num);
      return [];
    }
    const meta = isObject(event.tool_call_metadata) ? event.tool_call_metadata : null;
    if ((NOT_SENT_ACTIONS.has(action) || (source === 'agent' && !CALL_ACTIONS.has(action))) && meta === null) {
      this.skipped.add(`${action} action (not sent to the model)`);
      this.hold(action, id, num);
      return [];
    }
    if (source !== 'agent') return this.userAction(action, args, id, num);
    const out = this.callOf(event, meta, line);
    const items: ContextItem[] = [];
    const thought = typeof args.thought === 'string' ? args.thought : '';
    if (action === 'message') {
      const text = messageText(args);
      items.push(contextItem(id, text, 'assistant', 'text', firstWords(text)));
    } else {
      if (thought !== '' && action !== 'think') items.push(contextItem(`${id}#thought`, thought, 'assistant', 'text', firstWords(thought)));
      const tool = meta !== null && typeof meta.function_name === 'string' && meta.function_name !== '' ? meta.function_name : action;
      const label = actionLabel(action, args);
      items.push(contextItem(id, `${tool} ${callArguments(action, args, meta)}`, 'assistant', 'tool_use', label, tool));
      this.labels.set(id, label);
      this.auditAction(action, args, id);
    }
    this.view.push({ id, num, items });
    return out;
  }

  /** A user's message (the task, a later prompt) or a command the user ran (conversation_memory.py). */
  private userAction(action: string, args: JsonObject, id: string, num: number | null): AdaptedMessage[] {
    let text: string;
    if (action === 'message') text = messageText(args);
    else if (action === 'run' && typeof args.command === 'string') text = `User executed the command:\n${args.command}`;
    else text = `${action} ${stringify(cleanArgs(args))}`;
    if (text === '') {
      this.skipped.add('message action (empty)');
      this.hold(action, id, num);
      return [];
    }
    const item = contextItem(id, text, 'user', 'text', firstWords(text));
    if (action === 'message') {
      if (this.firstPrompt === null) {
        this.firstPrompt = text;
        item.pinned = true;
      }
      this.audit.promptWritten(text, this.turn + 1);
      this.pending.push({ kind: 'user_prompt', text, turn: this.turn + 1, spanId: id });
    }
    this.view.push({ id, num, items: [item] });
    return [];
  }

  private systemMessage(args: JsonObject, id: string, num: number | null): void {
    const items: ContextItem[] = [];
    if (typeof args.content === 'string' && args.content !== '') {
      const item = contextItem(id, args.content, 'system', 'instructions', 'system prompt');
      item.pinned = true;
      items.push(item);
    }
    if (Array.isArray(args.tools) && args.tools.length > 0) {
      const tools = args.tools.filter(isObject).map((t) => {
        const f = isObject(t.function) ? t.function : t;
        return `${typeof f.name === 'string' ? f.name : ''}: ${typeof f.description === 'string' ? f.description : ''}`;
      });
      items.push(contextItem(`${id}#tools`, tools.join('\n'), 'system', 'tools', `tool definitions (${tools.length})`));
    }
    if (items.length === 0) this.skipped.add('system action (empty)');
    this.view.push({ id, num, items });
  }

  private observation(observation: string, event: JsonObject, id: string, num: number | null): void {
    if (NOT_SENT_OBSERVATIONS.has(observation)) {
      this.skipped.add(`${observation} observation (not sent to the model)`);
      this.hold(observation, id, num);
      return;
    }
    const content = typeof event.content === 'string' ? event.content : '';
    const extras = isObject(event.extras) ? event.extras : {};
    if (observation === 'condense') {
      // AgentCondensationObservation: a summary the model reads as a user message; no record of what it replaced
      if (content === '') this.skipped.add('condense observation (empty)');
      this.view.push({ id, num, items: content === '' ? [] : [contextItem(id, content, 'summary', 'text', 'compaction summary')] });
      return;
    }
    if (observation === 'recall') {
      const text = recallText(content, extras);
      if (text === '') this.skipped.add('recall observation (empty)');
      this.view.push({ id, num, items: text === '' ? [] : [contextItem(id, text, 'user', 'recall', firstWords(text))] });
      return;
    }
    const cause = typeof event.cause === 'number' || typeof event.cause === 'string' ? EventIds.named(event.cause) : null;
    const of = (cause === null ? undefined : this.labels.get(cause)) ?? observation;
    const error = observation === 'error';
    if (error) {
      const first = content.split('\n').find((l) => l.trim() !== '');
      if (first !== undefined) this.pending.push({ kind: 'error', text: first.trim(), turn: this.turn, spanId: id });
    }
    const meta = isObject(event.tool_call_metadata) ? event.tool_call_metadata : null;
    const tool = meta !== null && typeof meta.function_name === 'string' && meta.function_name !== '' ? meta.function_name : null;
    this.view.push({ id, num, items: [contextItem(id, content, 'tool', 'tool_result', `${error ? 'error from' : 'result of'} ${of}`, tool)] });
  }

  /** An event the model does not see still holds its place in the history (NOT_IN_HISTORY aside). */
  private hold(type: string, id: string, num: number | null): void {
    if (!NOT_IN_HISTORY.has(type)) this.view.push({ id, num, items: [] });
  }

  /**
   * adapters.md V0 condensation: the forgotten events (by id, or every id of the range) leave
   * the view; the summary goes in at `summary_offset` of the view without them, replacing the
   * previous summary (view.py shows only the last condensation's).
   */
  private condensation(args: JsonObject, id: string): void {
    const ids = new Set(
      Array.isArray(args.forgotten_event_ids) ? args.forgotten_event_ids.filter((f) => typeof f === 'number' || typeof f === 'string').map(EventIds.named) : [],
    );
    const start = args.forgotten_events_start_id;
    const end = args.forgotten_events_end_id;
    const range = typeof start === 'number' && typeof end === 'number' ? { start, end } : null;
    const forgotten = (v: ViewEvent): boolean => ids.has(v.id) || (range !== null && v.num !== null && v.num >= range.start && v.num <= range.end);
    const summaryText = typeof args.summary === 'string' ? args.summary : null;
    const offset = args.summary_offset;
    const hasSummary = summaryText !== null && typeof offset === 'number' && Number.isInteger(offset) && offset >= 0;
    const dropped = this.view.filter((v) => forgotten(v) || (hasSummary && v.id === this.summaryId));
    const replaced = dropped.flatMap((v) => v.items.map((i) => i.id));
    const gone = new Set(dropped);
    this.view = this.view.filter((v) => !gone.has(v));
    const summary: string[] = [];
    // adapters.md span id: no summary span when an event already took its id
    const sid = hasSummary ? this.ids.summary(id) : null;
    // (summaryText and offset are what hasSummary checked; the compiler wants them checked here)
    if (sid !== null && summaryText !== null && typeof offset === 'number') {
      const item = contextItem(sid, summaryText, 'summary', 'text', 'compaction summary');
      item.derivedFrom = replaced;
      this.view.splice(Math.min(offset, this.view.length), 0, { id: sid, num: null, items: [item] });
      this.summaryId = sid;
      summary.push(sid);
    }
    ({ pending: this.pending, compaction: this.compaction } = endStretch(this.audit, this.pending, this.removed, this.compaction, replaced, summary));
  }

  /** contract §8.4 items of an agent action: the paths of file actions, the shell commands. */
  private auditAction(action: string, args: JsonObject, id: string): void {
    const path = action === 'read' || action === 'write' || action === 'edit' ? str(args.path) : null;
    if (path !== null) {
      if (action === 'read' || (action === 'edit' && args.command === 'view')) this.audit.fileRead(path, this.turn);
      this.pending.push({ kind: 'file', text: path, turn: this.turn, spanId: id });
    }
    const command = action === 'run' ? str(args.command) : null;
    if (command !== null) this.pending.push({ kind: 'command', text: command, turn: this.turn, spanId: id });
  }

  /** adapters.md V0 turns: the first action of each model response; an action without metadata is a call of its own. */
  private callOf(event: JsonObject, meta: JsonObject | null, line: number): AdaptedMessage[] {
    const response = meta !== null && isObject(meta.model_response) ? meta.model_response : null;
    const rid = response !== null && typeof response.id === 'string' && response.id !== '' ? response.id : null;
    if (rid !== null) {
      if (this.calls.has(rid)) return [];
      this.calls.add(rid);
    }
    const usage = (rid === null ? undefined : this.usages.get(rid)) ?? null;
    const fromResponse = response === null ? null : promptTokens(response.usage);
    const model = response !== null && typeof response.model === 'string' && response.model !== '' ? response.model : (usage?.model ?? null);
    if (usage?.window != null && this.contextWindow === null) this.contextWindow = usage.window;
    return this.call(event, fromResponse ?? usage?.prompt ?? null, model, line);
  }

  private call(event: JsonObject, total: number | null, model: string | null, line: number): AdaptedMessage[] {
    const out: AdaptedMessage[] = [];
    this.turn++;
    if (!this.headerSent) out.push({ value: this.header(), line });
    const items = this.view.flatMap((v) => v.items);
    const snap: Snapshot = { type: 'snapshot', session_id: this.sessionId, turn: this.turn, spans: callSpans(null, items, total) };
    if (typeof event.timestamp === 'string') snap.ts = event.timestamp;
    if (model !== null) snap.model = model;
    closeCall(snap, items, this.removed, this.compaction, this.audit, 'condenser');
    this.removed = [];
    this.compaction = null;
    out.push({ value: snap, line });
    return out;
  }

  /** `llm_metrics.accumulated_token_usage.context_window` (agent_controller.py `_prepare_metrics_for_frontend`), for the header. */
  private windowOf(event: JsonObject): void {
    if (this.contextWindow !== null || !isObject(event.llm_metrics)) return;
    const acc = event.llm_metrics.accumulated_token_usage;
    if (isObject(acc) && typeof acc.context_window === 'number' && Number.isInteger(acc.context_window) && acc.context_window > 0)
      this.contextWindow = acc.context_window;
  }

  private header(): SessionHeader {
    this.headerSent = true;
    return openHandsHeader(this.sessionId, this.firstPrompt, this.contextWindow);
  }
}

/** An evaluation row's `metrics.token_usages[]` (openhands/llm/metrics.py `TokenUsage`), by `response_id`. */
export function evalUsages(row: JsonObject): Map<string, CallUsage> {
  const usages = new Map<string, CallUsage>();
  const metrics = isObject(row.metrics) ? row.metrics : null;
  if (metrics === null || !Array.isArray(metrics.token_usages)) return usages;
  for (const u of metrics.token_usages) {
    if (!isObject(u) || typeof u.response_id !== 'string' || u.response_id === '') continue;
    const prompt = typeof u.prompt_tokens === 'number' && Number.isInteger(u.prompt_tokens) && u.prompt_tokens > 0 ? u.prompt_tokens : null;
    const window = typeof u.context_window === 'number' && Number.isInteger(u.context_window) && u.context_window > 0 ? u.context_window : null;
    usages.set(u.response_id, { prompt, model: typeof u.model === 'string' && u.model !== '' ? u.model : null, window });
  }
  return usages;
}

/** The events of an evaluation row's history, the older `[action, observation]` pairs flattened. */
export function* evalEvents(history: readonly unknown[]): Iterable<unknown> {
  for (const h of history) {
    if (Array.isArray(h)) yield* h;
    else yield h;
  }
}

function promptTokens(usage: unknown): number | null {
  if (!isObject(usage)) return null;
  const p = usage.prompt_tokens;
  return typeof p === 'number' && Number.isInteger(p) && p > 0 ? p : null;
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

function messageText(args: JsonObject): string {
  const content = typeof args.content === 'string' ? args.content : '';
  const images = Array.isArray(args.image_urls) ? args.image_urls.length : 0;
  return [content, ...Array.from({ length: Math.min(images, 100) }, () => '[image]')].filter((t) => t !== '').join('\n');
}

function cleanArgs(args: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(args)) if (!BOOKKEEPING.has(k) && v !== null && v !== '') out[k] = v;
  return out;
}

/**
 * What the model wrote for the call: the arguments of its tool call in `model_response`
 * (matched by `tool_call_id`), else the action's own arguments (older events, no metadata).
 */
function callArguments(action: string, args: JsonObject, meta: JsonObject | null): string {
  const fromResponse = meta === null ? null : toolCallArguments(meta);
  if (fromResponse !== null) return fromResponse;
  if (action === 'run' && typeof args.command === 'string') return args.command;
  if (action === 'run_ipython' && typeof args.code === 'string') return args.code;
  if (action === 'think' && typeof args.thought === 'string') return args.thought;
  return stringify(cleanArgs(args));
}

function toolCallArguments(meta: JsonObject): string | null {
  const response = isObject(meta.model_response) ? meta.model_response : null;
  const choice: unknown = response !== null && Array.isArray(response.choices) ? response.choices[0] : undefined;
  const message = isObject(choice) && isObject(choice.message) ? choice.message : null;
  if (message === null || !Array.isArray(message.tool_calls)) return null;
  for (const c of message.tool_calls) {
    if (!isObject(c) || c.id !== meta.tool_call_id) continue;
    const f = isObject(c.function) ? c.function : null;
    if (f !== null && typeof f.arguments === 'string') return f.arguments;
  }
  return null;
}

/** RecallObservation: the workspace context and the microagents' knowledge the model reads (conversation_memory.py). */
function recallText(content: string, extras: JsonObject): string {
  const parts: string[] = [];
  for (const k of ['repo_instructions', 'additional_agent_instructions', 'conversation_instructions']) {
    const v = extras[k];
    if (typeof v === 'string' && v !== '') parts.push(v);
  }
  if (Array.isArray(extras.microagent_knowledge)) {
    for (const m of extras.microagent_knowledge) if (isObject(m) && typeof m.content === 'string' && m.content !== '') parts.push(m.content);
  }
  return parts.length > 0 ? parts.join('\n') : content;
}

/** contract §8.8: a V0 action's label. */
function actionLabel(action: string, args: JsonObject): string {
  const path = str(args.path);
  switch (action) {
    case 'run':
      return firstWords(`shell: ${str(args.command) ?? ''}`);
    case 'run_ipython':
      return firstWords(`ipython: ${str(args.code) ?? ''}`);
    case 'read':
      return firstWords(`view ${path ?? ''}`);
    case 'write':
      return firstWords(`create ${path ?? ''}`);
    case 'edit':
      return firstWords(`${str(args.command) ?? 'edit'} ${path ?? ''}`);
    case 'browse':
      return firstWords(`browse ${str(args.url) ?? ''}`);
    case 'delegate':
      return firstWords(`delegate ${str(args.agent) ?? ''}`);
    case 'call_tool_mcp':
      return firstWords(`mcp ${str(args.name) ?? ''}`);
    case 'task_tracking':
      return `task_tracking ${str(args.command) ?? ''}`.trim();
    case 'browse_interactive':
      return 'browse';
    default:
      return firstWords(action);
  }
}
