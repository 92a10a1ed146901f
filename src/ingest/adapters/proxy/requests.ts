// docs/proxy.md "What a request becomes": the body of one model API request, as the agent
// sent it, read into the parts of its context window: the system prompt, the tool
// definitions, and each message's content blocks in order. Three wire formats: Anthropic's
// Messages API (POST /v1/messages), OpenAI's Chat Completions (POST /v1/chat/completions)
// and OpenAI's Responses API (POST /v1/responses, its `input` items). Images, audio and
// files are counted as a part each and their data is not kept.
import { isObject, type JsonObject } from '../json.ts';
import { appendAll } from '../../../core/arrays.ts';
import { parseNestedJson } from '../../../core/nesting.ts';

export type ProxyApi = 'anthropic' | 'openai-chat' | 'openai-responses';

export interface CallPart {
  /** contract §2.3 role: system, user, assistant, tool */
  role: string;
  /** text, thinking, tool_use, tool_result, tool_definition, image, … (the Claude Code adapter's kinds) */
  kind: string;
  text: string;
  /** tool_use: the tool called; tool_result: the tool whose result it is (when the call is known) */
  tool: string | null;
  /** tool_use: its id; tool_result: the id of the call it answers */
  callId: string | null;
  /** tool_use: the call's input (for labels and the compaction audit) */
  input: JsonObject | null;
  /** tool_result: the tool reported an error */
  isError: boolean;
}

export interface CallMessage {
  role: string;
  parts: CallPart[];
}

export interface CapturedRequest {
  api: ProxyApi;
  model: string | null;
  system: CallPart[];
  tools: CallPart[];
  messages: CallMessage[];
  /** the agent's own conversation id, where the body names one (metadata.user_id, user, prompt_cache_key) */
  conversation: string | null;
  /** Responses API: the request continues a stored response, so `input` holds only the new items */
  continues: boolean;
}

/** The request's context, or why it is not a request of `api` (a message naming the field). */
export function readRequest(api: ProxyApi, body: unknown): CapturedRequest | { error: string } {
  if (!isObject(body)) return { error: 'the request body is not a JSON object' };
  switch (api) {
    case 'anthropic':
      return anthropic(body);
    case 'openai-chat':
      return openaiChat(body);
    case 'openai-responses':
      return openaiResponses(body);
  }
}

function part(role: string, kind: string, text: string, extra: Partial<CallPart> = {}): CallPart {
  return { role, kind, text, tool: null, callId: null, input: null, isError: false, ...extra };
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const model = (body: JsonObject): string | null => (typeof body.model === 'string' && body.model !== '' ? body.model : null);

/**
 * a tool call's arguments as OpenAI sends them (a JSON string), as an object when they are
 * one; past MAX_NESTING a TooDeepError (the recorder's input error for the call): --redact's
 * walk of them overflowed the stack and the turn was lost with no input error
 */
function argumentsObject(args: unknown): JsonObject | null {
  if (isObject(args)) return args;
  if (typeof args !== 'string') return null;
  const v = parseNestedJson(args, 'a tool call\'s "arguments"');
  return isObject(v) ? v : null;
}

function toolDefinition(name: string, description: string, schema: unknown): CallPart {
  const text = `${name}${description === '' ? '' : `: ${description}`}${schema === undefined ? '' : `\n${JSON.stringify(schema)}`}`;
  return part('system', 'tool_definition', text, { tool: name === '' ? null : name });
}

// ---- Anthropic Messages API ----

function anthropic(body: JsonObject): CapturedRequest | { error: string } {
  if (!Array.isArray(body.messages)) return { error: 'an Anthropic request without a "messages" array' };
  const system: CallPart[] = [];
  if (typeof body.system === 'string') system.push(part('system', 'text', body.system));
  else if (Array.isArray(body.system)) for (const b of body.system) if (isObject(b)) system.push(part('system', 'text', str(b.text)));
  const tools = Array.isArray(body.tools)
    ? body.tools
        .filter(isObject)
        .map((t) => toolDefinition(str(t.name), str(t.description), t.input_schema ?? (typeof t.type === 'string' ? { type: t.type } : undefined)))
    : [];
  const messages: CallMessage[] = [];
  for (const m of body.messages) {
    if (!isObject(m)) continue;
    const role = str(m.role) || 'user';
    const parts: CallPart[] = [];
    if (typeof m.content === 'string') parts.push(part(role, 'text', m.content));
    else if (Array.isArray(m.content)) for (const b of m.content) parts.push(anthropicBlock(role, b));
    messages.push({ role, parts });
  }
  const metadata = isObject(body.metadata) ? body.metadata : null;
  return { api: 'anthropic', model: model(body), system, tools, messages, conversation: claudeCodeSession(str(metadata?.user_id)), continues: false };
}

/**
 * Claude Code's `metadata.user_id`: `user_<hash>_account_<uuid>_session_<uuid>` (newer
 * versions send it as a JSON object text with a `session_id`): the session's uuid, the id
 * its transcript file has.
 */
export function claudeCodeSession(userId: string): string | null {
  const m = /session_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/i.exec(userId);
  if (m !== null) return m[1]!;
  const j = /"session_id"\s*:\s*"([^"]{1,200})"/.exec(userId);
  return j === null ? null : j[1]!;
}

function anthropicBlock(role: string, b: unknown): CallPart {
  if (typeof b === 'string') return part(role, 'text', b);
  if (!isObject(b)) return part(role, 'malformed', '');
  switch (b.type) {
    case 'text':
      return part(role, 'text', str(b.text));
    case 'thinking':
      return part(role, 'thinking', str(b.thinking));
    case 'redacted_thinking':
      return part(role, 'thinking', '[redacted thinking]');
    case 'tool_use':
    case 'server_tool_use': {
      const input = isObject(b.input) ? b.input : {};
      return part(role, 'tool_use', `${str(b.name)} ${JSON.stringify(input)}`, { tool: str(b.name) || null, callId: str(b.id) || null, input });
    }
    case 'tool_result':
      return part('tool', 'tool_result', anthropicResultText(b.content), { callId: str(b.tool_use_id) || null, isError: b.is_error === true });
    default:
      // image, document, search results, …: counted, their data not kept
      return part(role, typeof b.type === 'string' && b.type !== '' ? b.type : 'malformed', `[${str(b.type) || 'block'}]`);
  }
}

function anthropicResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((c) => (isObject(c) ? (c.type === 'text' ? str(c.text) : `[${str(c.type)}]`) : '')).join('\n');
}

// ---- OpenAI Chat Completions ----

function openaiChat(body: JsonObject): CapturedRequest | { error: string } {
  if (!Array.isArray(body.messages)) return { error: 'a Chat Completions request without a "messages" array' };
  const system: CallPart[] = [];
  const messages: CallMessage[] = [];
  for (const m of body.messages) {
    if (!isObject(m)) continue;
    const role = str(m.role) || 'user';
    if (role === 'system' || role === 'developer') {
      appendAll(system, chatContent('system', m.content));
      continue;
    }
    if (role === 'tool' || role === 'function') {
      const text = chatContent('tool', m.content)
        .map((p) => p.text)
        .join('\n');
      messages.push({
        role: 'tool',
        parts: [part('tool', 'tool_result', text, { callId: str(m.tool_call_id) || null, tool: role === 'function' ? str(m.name) || null : null })],
      });
      continue;
    }
    const parts = chatContent(role, m.content);
    if (Array.isArray(m.tool_calls)) {
      for (const c of m.tool_calls) {
        if (!isObject(c)) continue;
        const fn = isObject(c.function) ? c.function : isObject(c.custom) ? c.custom : {};
        const name = str(fn.name);
        const input = argumentsObject(fn.arguments ?? fn.input) ?? {};
        parts.push(
          part(role, 'tool_use', `${name} ${typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(input)}`, {
            tool: name || null,
            callId: str(c.id) || null,
            input,
          }),
        );
      }
    }
    messages.push({ role, parts });
  }
  const tools = Array.isArray(body.tools)
    ? body.tools.filter(isObject).map((t) => {
        const fn = isObject(t.function) ? t.function : t;
        return toolDefinition(str(fn.name), str(fn.description), fn.parameters);
      })
    : [];
  return { api: 'openai-chat', model: model(body), system, tools, messages, conversation: openaiConversation(body), continues: false };
}

function chatContent(role: string, content: unknown): CallPart[] {
  if (typeof content === 'string') return [part(role, 'text', content)];
  if (!Array.isArray(content)) return [];
  return content.map((c) => {
    if (typeof c === 'string') return part(role, 'text', c);
    if (!isObject(c)) return part(role, 'malformed', '');
    if (c.type === 'text' || c.type === 'input_text' || c.type === 'output_text') return part(role, 'text', str(c.text));
    if (c.type === 'refusal') return part(role, 'text', str(c.refusal));
    // image_url, input_audio, file, …: counted, not kept
    const kind = c.type === 'image_url' || c.type === 'input_image' ? 'image' : str(c.type) || 'malformed';
    return part(role, kind, `[${kind}]`);
  });
}

/** OpenAI's conversation ids: `prompt_cache_key` (Codex sends its conversation id), `metadata` ids, `user`. */
function openaiConversation(body: JsonObject): string | null {
  if (typeof body.prompt_cache_key === 'string' && body.prompt_cache_key !== '') return body.prompt_cache_key;
  const metadata = isObject(body.metadata) ? body.metadata : null;
  for (const key of ['session_id', 'conversation_id', 'thread_id']) {
    const v = metadata?.[key];
    if (typeof v === 'string' && v !== '') return v;
  }
  if (typeof body.user === 'string' && body.user !== '') return body.user;
  return null;
}

// ---- OpenAI Responses API ----

function openaiResponses(body: JsonObject): CapturedRequest | { error: string } {
  const system: CallPart[] = typeof body.instructions === 'string' && body.instructions !== '' ? [part('system', 'text', body.instructions)] : [];
  const messages: CallMessage[] = [];
  if (typeof body.input === 'string') messages.push({ role: 'user', parts: [part('user', 'text', body.input)] });
  else if (Array.isArray(body.input)) {
    for (const item of body.input) {
      if (!isObject(item)) continue;
      const m = responsesItem(item);
      if (m === null) continue;
      if (m.role === 'system') appendAll(system, m.parts);
      else messages.push(m);
    }
  } else if (body.input !== undefined) return { error: 'a Responses request whose "input" is neither a string nor an array' };
  const tools = Array.isArray(body.tools)
    ? body.tools.filter(isObject).map((t) => toolDefinition(str(t.name) || str(t.type), str(t.description), t.parameters ?? t.format))
    : [];
  const conversation = openaiConversation(body) ?? (typeof body.conversation === 'string' ? body.conversation : null);
  return { api: 'openai-responses', model: model(body), system, tools, messages, conversation, continues: typeof body.previous_response_id === 'string' };
}

function responsesItem(item: JsonObject): CallMessage | null {
  const type = typeof item.type === 'string' ? item.type : 'message';
  switch (type) {
    case 'message': {
      const raw = str(item.role) || 'user';
      const role = raw === 'developer' ? 'system' : raw;
      return { role, parts: chatContent(role, item.content) };
    }
    case 'function_call':
    case 'custom_tool_call': {
      const name = str(item.name);
      const args = item.arguments ?? item.input;
      const input = argumentsObject(args) ?? {};
      const text = `${name} ${typeof args === 'string' ? args : JSON.stringify(input)}`;
      return { role: 'assistant', parts: [part('assistant', 'tool_use', text, { tool: name || null, callId: str(item.call_id) || null, input })] };
    }
    case 'local_shell_call': {
      const action = isObject(item.action) ? item.action : {};
      const command = Array.isArray(action.command) ? action.command.map(str).join(' ') : '';
      return {
        role: 'assistant',
        parts: [
          part('assistant', 'tool_use', `local_shell ${JSON.stringify(action)}`, {
            tool: 'local_shell',
            callId: str(item.call_id) || null,
            input: { command },
          }),
        ],
      };
    }
    case 'function_call_output':
    case 'custom_tool_call_output':
    case 'local_shell_call_output': {
      const out = item.output;
      const text = typeof out === 'string' ? out : isObject(out) && typeof out.content === 'string' ? out.content : JSON.stringify(out ?? '');
      return { role: 'tool', parts: [part('tool', 'tool_result', text, { callId: str(item.call_id) || null })] };
    }
    case 'reasoning': {
      const summary = Array.isArray(item.summary) ? item.summary.map((s) => (isObject(s) ? str(s.text) : '')).join('\n') : '';
      return { role: 'assistant', parts: [part('assistant', 'thinking', summary === '' ? '[reasoning]' : summary)] };
    }
    default:
      // web_search_call, file_search_call, image_generation_call, …: counted, not kept
      return { role: 'assistant', parts: [part('assistant', type, `[${type}]`)] };
  }
}
