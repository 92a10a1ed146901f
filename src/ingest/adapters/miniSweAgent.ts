// mini-swe-agent trajectories (`<instance>.traj.json`, `last_mini_run.traj.json`: one JSON
// object `{"info": {…}, "messages": [...], "trajectory_format": "mini-swe-agent-1…"}`, or
// before August 2025 `{"info": {exit_status, submission, model_stats}, "messages": [...]}`) turned
// into contract §2 messages (docs/adapters.md "mini-swe-agent"). The agent sends the model
// its whole message list on every call and only appends to it, so a call is a message the
// model answered with (an assistant message, a Responses API `response` object, or the
// format-error message that carries the response that failed to parse), and it saw every
// message before it. A document on one line is handed in parsed (sweAgent.ts); a
// pretty-printed one is read as it streams (sweAgentDocument.ts), message by message.
import type { SessionHeader, Snapshot } from '../../core/wire.ts';
import { callSpans, contextItem, type ContextItem } from './contextItems.ts';
import { isObject, type JsonObject } from './json.ts';
import type { SkippedRecords } from './skipped.ts';
import { firstWords } from './spanLabels.ts';
import { promptTokens } from './tokens.ts';
import { callText, toolCalls } from './toolCalls.ts';

/** A mini-swe-agent document: a `messages` array and `trajectory_format` "mini-swe-agent…", `info.mini_version`, or the `info` of the releases before either. */
export function isMiniSweAgentDocument(value: JsonObject): boolean {
  if (!Array.isArray(value.messages)) return false;
  return isMiniFormat(value.trajectory_format) || isMiniInfo(value.info) || isEarlyMiniInfo(value.info);
}

/** `trajectory_format` as mini-swe-agent writes it ("mini-swe-agent-1", "mini-swe-agent-1.1"). */
export function isMiniFormat(v: unknown): boolean {
  return typeof v === 'string' && v.startsWith('mini-swe-agent');
}

/** `info` with the `mini_version` every file since mini-swe-agent 1.5 (#362, August 2025) carries. */
export function isMiniInfo(v: unknown): boolean {
  return isObject(v) && typeof v.mini_version === 'string';
}

/**
 * `info` as `save_traj` wrote it before `trajectory_format` and `mini_version` (the
 * microsweagent runner of July 2025, mini-swe-agent 1.0 to 1.3; adapters.md "mini-swe-agent"):
 * always `exit_status` and `submission` (a string or null) and `model_stats` of exactly
 * `instance_cost` and `api_calls`. SWE-agent's `info` has the same three but its
 * `model_stats` counts `tokens_sent`, and its document has no `messages`.
 */
export function isEarlyMiniInfo(v: unknown): boolean {
  if (!isObject(v) || !isObject(v.model_stats)) return false;
  const stats = v.model_stats;
  const stringOrNull = (x: unknown) => x === null || typeof x === 'string';
  return (
    typeof stats.instance_cost === 'number' &&
    typeof stats.api_calls === 'number' &&
    !('tokens_sent' in stats) &&
    stringOrNull(v.exit_status) &&
    stringOrNull(v.submission)
  );
}

/** The bash block of a text-based model's answer (`action_regex` of the configs: ```bash or ```mswea_bash_command). */
const BASH_BLOCK = /```(?:bash|mswea_bash_command)[^\S\n]*\n([\s\S]*?)\n```/g;

/**
 * One snapshot per model call, the messages handed in one at a time (a pretty-printed file is
 * read so); the session header goes out with the first call (its title is the task), or at
 * the end when there is none.
 */
export class MiniSweAgentCalls {
  // docs/security.md "Linear time": each message is made an item once; a call's snapshot
  // copies the items before it as it is made, so one snapshot is held at a time
  private readonly seen: ContextItem[] = [];
  private index = 0;
  private calls = 0;
  private task: string | null = null;
  private headerSent = false;
  /** the commands of the last call, for the observations after it: by tool call id, and in order */
  private commands = new Map<string, string>();
  private lastCommands: string[] = [];
  private observed = 0;

  constructor(
    private readonly sessionId: string,
    private readonly skipped: SkippedRecords,
  ) {}

  *message(m: unknown): Generator<Snapshot | SessionHeader> {
    const i = this.index++;
    if (!isObject(m)) {
      this.skipped.add('message not an object');
      return;
    }
    const role = typeof m.role === 'string' ? m.role : m.object === 'response' ? 'assistant' : m.type === 'function_call_output' ? 'tool' : null;
    if (role === 'exit') {
      // the agent's own end marker (agents/default.py): never sent to the model
      this.skipped.add('exit message (not sent to the model)');
      return;
    }
    if (role === null) {
      this.skipped.add('message without role');
      return;
    }
    const extra = isObject(m.extra) ? m.extra : null;
    const response = m.object === 'response' ? m : extra !== null && isObject(extra.response) ? extra.response : null;
    // a call: what the model answered, or (v2) the format error that keeps the answer it could not parse
    if (role === 'assistant' || (response !== null && extra?.interrupt_type === 'FormatError')) yield* this.call(m, response, extra);
    this.seen.push(this.item(m, role, extra, `m${i}`));
  }

  /** The messages ended: the header, when no call sent it. */
  *end(): Generator<SessionHeader> {
    if (!this.headerSent) yield this.header();
  }

  private *call(m: JsonObject, response: JsonObject | null, extra: JsonObject | null): Generator<Snapshot | SessionHeader> {
    if (!this.headerSent) yield this.header();
    const snap: Snapshot = { type: 'snapshot', session_id: this.sessionId, turn: ++this.calls, spans: callSpans(null, this.seen, callTokens(response)) };
    const ts = extra?.timestamp ?? m.timestamp;
    if (typeof ts === 'number' && Number.isFinite(ts) && ts > 0 && ts < 1e11) snap.ts = new Date(ts * 1000).toISOString();
    const model = response !== null && typeof response.model === 'string' && response.model !== '' ? response.model : null;
    if (model !== null) snap.model = model;
    yield snap;
  }

  private header(): SessionHeader {
    this.headerSent = true;
    const title = this.task === null ? `mini-swe-agent trajectory ${this.sessionId}` : firstWords(this.task, 80);
    return { type: 'session', session_id: this.sessionId, title, source: 'mini-swe-agent' };
  }

  private item(m: JsonObject, role: string, extra: JsonObject | null, id: string): ContextItem {
    const text = messageText(m);
    if (role === 'system') {
      const it = contextItem(id, text, 'system', 'system_prompt', 'system prompt');
      it.pinned = true;
      return it;
    }
    if (role === 'user' && this.task === null) {
      // the instance template: the task, pinned so the reference scorer finds it
      this.task = text;
      const it = contextItem(id, text, 'user', 'task', `task: ${firstWords(text, 50)}`);
      it.pinned = true;
      return it;
    }
    if (role === 'assistant') {
      const commands = commandsOf(m, extra, text);
      this.lastCommands = commands.map((c) => c.command);
      this.commands = new Map(commands.filter((c) => c.id !== null).map((c) => [c.id!, c.command]));
      this.observed = 0;
      const label = commands.length > 0 ? `action: ${firstWords(commands[0]!.command, 50)}` : `assistant: ${firstWords(text, 47)}`;
      return contextItem(id, text, 'assistant', 'action', label);
    }
    // every later user or tool message: an observation, an error the agent sent back, a human's words (interactive)
    const kind = extra !== null && typeof extra.interrupt_type === 'string' && extra.interrupt_type !== '' ? extra.interrupt_type : 'observation';
    const callId = typeof m.tool_call_id === 'string' ? m.tool_call_id : typeof m.call_id === 'string' ? m.call_id : null;
    let command = callId !== null ? (this.commands.get(callId) ?? null) : null;
    if (command === null && kind === 'observation' && callId === null) command = this.lastCommands[this.observed] ?? null;
    this.observed++;
    const label = command !== null ? `output of ${firstWords(command, 50)}` : `${kind === 'observation' ? role : kind}: ${firstWords(text, 46)}`;
    return contextItem(id, text, 'tool', kind, label);
  }
}

/** adapters.md "mini-swe-agent" tokens: the prompt size the API reported for the call, or null. */
function callTokens(response: JsonObject | null): number | null {
  if (response === null) return null;
  const usage = response.usage;
  if (isObject(usage)) {
    const p = usage.prompt_tokens;
    if (typeof p === 'number' && Number.isInteger(p) && p > 0) return p;
  }
  const input = promptTokens(response);
  return input !== null && input > 0 ? input : null;
}

/** The commands the message ran: `extra.actions` (v2), its tool calls, or the one bash block of its text (v1). */
function commandsOf(m: JsonObject, extra: JsonObject | null, text: string): { command: string; id: string | null }[] {
  if (extra !== null && Array.isArray(extra.actions)) {
    const out: { command: string; id: string | null }[] = [];
    for (const a of extra.actions) {
      if (typeof a === 'string') out.push({ command: a, id: null });
      else if (isObject(a) && typeof a.command === 'string') out.push({ command: a.command, id: typeof a.tool_call_id === 'string' ? a.tool_call_id : null });
    }
    if (out.length > 0) return out;
  }
  const calls = toolCalls(m).flatMap((c) => {
    const command = bashCommand(c.args);
    return command === null ? [] : [{ command, id: c.id }];
  });
  if (calls.length > 0) return calls;
  // v1 parse_action: exactly one block, else a format error
  const blocks = [...text.matchAll(BASH_BLOCK)];
  return blocks.length === 1 ? [{ command: blocks[0]![1]!.trim(), id: null }] : [];
}

function bashCommand(args: string): string | null {
  try {
    const parsed: unknown = JSON.parse(args);
    return isObject(parsed) && typeof parsed.command === 'string' ? parsed.command : null;
  } catch {
    return null;
  }
}

/**
 * adapters.md: what the model saw of a message: its `content` (a string, or the text parts
 * joined by newlines, other parts as `[type]`), a Responses API object's output messages, a
 * `function_call_output`'s `output`, then each tool call as the tool's name and its arguments.
 */
export function messageText(m: JsonObject): string {
  const parts = [contentText(m.content)];
  if (m.type === 'function_call_output') parts.push(contentText(m.output));
  if (m.object === 'response' && Array.isArray(m.output))
    for (const item of m.output) if (isObject(item) && item.type === 'message') parts.push(contentText(item.content));
  for (const c of toolCalls(m)) parts.push(callText(c));
  return parts.filter((t) => t !== '').join('\n');
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (isObject(part) ? (typeof part.text === 'string' ? part.text : `[${String(part.type)}]`) : typeof part === 'string' ? part : ''))
    .filter((t) => t !== '')
    .join('\n');
}
