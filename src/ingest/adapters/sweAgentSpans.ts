// The messages a SWE-agent model call saw, as spans (docs/adapters.md "SWE-agent": roles,
// pins, elisions), shared by the two ways a trajectory says what a call saw: a step's
// `query` (sweAgent.ts) and the history (sweAgentHistory.ts).
import type { Span } from '../../core/wire.ts';
import { firstWords } from './spanLabels.ts';
import { isObject, type JsonObject } from './json.ts';
import { callText, toolCalls } from './toolCalls.ts';

/** adapters.md: the texts SWE-agent's history processors put in place of what they elide. */
const ELIDED = /^(Old environment output: \(\d+ lines omitted\)|Outdated window with \d+ lines omitted)/;

/** The messages a call saw as spans, each with its id; the roles and pins of adapters.md. */
export function messagesToSpans(messages: { message: unknown; id: string }[]): Span[] {
  const maker = new SpanMaker();
  return messages.map(({ message, id }) => maker.span(message, id));
}

/**
 * Messages made spans one at a time, in order: the first user message that is not a
 * demonstration is the instance prompt, the ones after it observations. The history's calls
 * each see every message before them, so each message is made a span once (sweAgentHistory.ts).
 */
export class SpanMaker {
  private instanceSeen = false;

  span(m: unknown, id: string): Span {
    const msg = isObject(m) ? m : {};
    const role = typeof msg.role === 'string' ? msg.role : 'unknown';
    const type = typeof msg.message_type === 'string' ? msg.message_type : null;
    // adapters.md: a demonstration put in the history step by step keeps its roles and types and says `is_demo`
    const demo = type === 'demonstration' || msg.is_demo === true;
    const text = messageText(msg);
    const instance = role === 'user' && !demo && !this.instanceSeen;
    const span: Span = { span_id: id, text, score: null, text_sha256: null, role: instance ? 'user' : demo ? 'demonstration' : spanRole(role, type) };
    if (type !== null) span.kind = type;
    else if (demo) span.kind = 'demonstration';
    if (role === 'system' || instance) span.pinned = true; // system and instance prompts
    if (instance) this.instanceSeen = true;
    if (ELIDED.test(text)) span.elided = true;
    const action = typeof msg.action === 'string' && msg.action.trim() !== '' && toolCalls(msg).length > 0 ? msg.action : null;
    span.label = action !== null && !demo ? `action: ${firstWords(action, 50)}` : labelOf(span.role!, demo, instance, text);
    return span;
  }
}

/** contract §8.8: what a message is, in a glance: "system prompt", "task: Fix …", "observation: …", "action: …". */
function labelOf(role: string, demo: boolean, instance: boolean, text: string): string {
  if (role === 'system') return 'system prompt';
  if (demo) return `demonstration: ${firstWords(text, 44)}`;
  if (instance) return `task: ${firstWords(text, 50)}`;
  if (role === 'tool') return ELIDED.test(text) ? 'observation (elided)' : `observation: ${firstWords(text, 46)}`;
  if (role === 'assistant') return `action: ${firstWords(text, 50)}`;
  return firstWords(`${role}: ${text}`);
}

/** After the instance prompt (the task, role "user"), user-role messages are observations. */
function spanRole(role: string, type: string | null): string {
  if (type === 'observation' || role === 'tool' || role === 'user') return 'tool';
  return role;
}

/**
 * adapters.md: what the model saw of a message. With function calling (SWE-agent 1.x's
 * default tool configs) an assistant message's `content` is only its thought, often empty,
 * and the action is in `tool_calls` (OpenAI's shape: `function.name`, `function.arguments`);
 * both were sent back to the model on every later call, so both are the span's text.
 */
function messageText(msg: JsonObject): string {
  const parts = [contentText(msg.content), ...toolCalls(msg).map(callText)].filter((t) => t !== '');
  return parts.join('\n');
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isObject(part) ? (typeof part.text === 'string' ? part.text : `[${String(part.type)}]`) : '')).join('\n');
}
