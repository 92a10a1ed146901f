// One Codex CLI response item (codex-rs/protocol/src/models.rs `ResponseItem`, as the
// rollout recorder writes it) as what the model saw of it: its text, who wrote it, what
// kind of item it is and a short label a person can read (docs/adapters.md "Codex CLI").
import { firstWords as shorten } from '../../core/shortText.ts';
import { parseNestedJson } from '../../core/nesting.ts';
import { isObject, str, type JsonObject } from './json.ts';

/** What a response item contributes to the context; null when the model never sees it. */
export interface ItemView {
  text: string;
  role: string;
  kind: string;
  label: string;
  /** the tool, for calls and their results */
  tool: string | null;
  /** made by the model in the call that produced it (not input to it) */
  output: boolean;
  /** adapters.md pinned: instructions the operator wrote (AGENTS.md, developer instructions) */
  instructions: boolean;
  /** a user message the operator typed (not context Codex injected) */
  prompt: boolean;
  /** function and custom tool calls: what their outputs answer */
  callId: string | null;
  /** an encrypted summary: its ciphertext, which tells two of them apart (their text is one placeholder) */
  identity?: string;
}

/** A label is read in one glance: at most this many characters. */
const LABEL_MAX = 60;

/** adapters.md: Codex puts AGENTS.md in a user message of its own, marked one of these ways. */
const AGENTS_MD = /^(# AGENTS\.md instructions|<user_instructions>)/;
/** adapters.md: the Codex IDE extension sends the editor's context (open files, the active one) first, then this, then what the user typed. */
const REQUEST_MARK = '## My request for Codex:';
/** adapters.md: context Codex injects opens with a tag (`<environment_context>`, `<turn_aborted>`, …). */
const INJECTED_TAG = /^<([A-Za-z_][\w -]*)>/;
/**
 * adapters.md: Codex's own messages that open with no tag (codex-rs/core/src/context/: the
 * multi-agent usage hint, `approved_command_prefix_saved.rs`, `network_rule_saved.rs`,
 * `image_generation_instructions.rs`, `current_time_reminder.rs`), by their first words (or
 * whole text), and their labels: developer messages no operator wrote, so they are not pinned
 * instructions. Real 0.14x rollouts write the first two. A user's message is never read by
 * this list (CODEX_USER_NOTES is the user's): what the user typed stays a prompt.
 */
const CODEX_NOTES: readonly (readonly [string | RegExp, string])[] = [
  ['You are `/root`, the primary agent in a team of agents', 'multi-agent instructions'],
  ['Approved command prefix saved:', 'approved command prefix'],
  ['Allowed network rule saved', 'network rule saved'],
  ['Denied network rule saved', 'network rule saved'],
  // image_generation_instructions.rs (its text is in the 0.171.0 binary)
  ['Generated images are saved to ', 'image generation instructions'],
  // current_time_reminder.rs: "It is <%Y-%m-%d %H:%M:%S UTC>." (the format is in the 0.171.0 binary)
  [/^It is \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC\.$/, 'current time'],
];

/**
 * adapters.md: user messages Codex writes itself that open with no bare tag, by their opening,
 * and their labels. codex-rs core/src/context/contextual_user_message.rs lists what Codex tells
 * apart from what the user typed: a hook's prompt (`<hook_prompt hook_run_id="…">`, codex-rs
 * protocol items.rs), its internal context (`<codex_internal_context source="…">`, in the 0.171
 * binary), and the warnings older versions wrote untagged. Only these names: a user's text that
 * opens with some other tag and attributes (`<div class="row">`) stays a prompt.
 */
const CODEX_USER_NOTES: readonly (readonly [RegExp, string])[] = [
  [/^<hook_prompt\s[^>]*hook_run_ids?=/, 'hook prompt'],
  [/^<codex_internal_context\s[^>]*source=/, 'codex internal context'],
  [/^Warning: The maximum number of unified exec processes you can keep open is/, 'warning'],
  [/^Warning: Your account was flagged for potentially high-risk cyber activity/, 'warning'],
  [/^Warning: apply_patch was requested via [\s\S]*Use the apply_patch tool instead of exec_command\.\s*$/, 'warning'],
];

/** The label of a user message Codex wrote (CODEX_USER_NOTES), or null. */
function codexUserNote(trimmed: string): string | null {
  for (const [opening, label] of CODEX_USER_NOTES) if (opening.test(trimmed)) return label;
  return null;
}

/** The label of a message Codex wrote with no tag (CODEX_NOTES), or null. */
function codexNote(trimmed: string): string | null {
  for (const [opening, label] of CODEX_NOTES) if (typeof opening === 'string' ? trimmed.startsWith(opening) : opening.test(trimmed.trimEnd())) return label;
  return null;
}

/** The view of `raw`, or a reason it is not context (counted as skipped by the adapter). */
export function viewOf(raw: JsonObject, callLabels: ReadonlyMap<string, CallLabel>): ItemView | { skip: string } {
  const type = typeof raw.type === 'string' ? raw.type : '(no type)';
  switch (type) {
    case 'message':
      return message(raw);
    case 'reasoning':
      return view(reasoningText(raw), 'assistant', 'thinking', 'reasoning', { output: true });
    case 'function_call': {
      const name = str(raw.name);
      const args = str(raw.arguments);
      return view(`${name} ${args}`, 'assistant', 'tool_use', callLabel(name, args), { output: true, tool: name, callId: str(raw.call_id) });
    }
    case 'custom_tool_call': {
      const name = str(raw.name);
      const input = str(raw.input);
      return view(`${name} ${input}`, 'assistant', 'tool_use', customCallLabel(name, input), { output: true, tool: name, callId: str(raw.call_id) });
    }
    case 'local_shell_call': {
      const action = isObject(raw.action) ? raw.action : {};
      const command = Array.isArray(action.command) ? action.command.filter((c): c is string => typeof c === 'string') : [];
      const text = `local_shell ${JSON.stringify(action)}`;
      return view(text, 'assistant', 'tool_use', `shell: ${shellScript(command)}`, {
        output: true,
        tool: 'local_shell',
        callId: str(raw.call_id) || str(raw.id),
      });
    }
    case 'web_search_call': {
      const action = isObject(raw.action) ? raw.action : {};
      return view(`web_search ${JSON.stringify(action)}`, 'assistant', 'tool_use', webSearchLabel(action), { output: true, tool: 'web_search' });
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const callId = str(raw.call_id);
      const call = callLabels.get(callId);
      const tool = call === undefined ? null : call.tool;
      return view(outputText(raw.output), 'tool', 'tool_result', call === undefined ? 'tool result' : `result of ${call.label}`, { tool, callId });
    }
    case 'tool_search_call': {
      // adapters.md: the model asks for more tools (`arguments`, a JSON value, not a string)
      const args = raw.arguments === undefined ? {} : raw.arguments;
      return view(`tool_search ${JSON.stringify(args)}`, 'assistant', 'tool_use', toolSearchLabel(args), {
        output: true,
        tool: 'tool_search',
        callId: str(raw.call_id),
      });
    }
    case 'tool_search_output': {
      // adapters.md: the tool definitions the search loaded, which the model reads from then on
      const callId = str(raw.call_id);
      const call = callLabels.get(callId);
      const text = JSON.stringify(Array.isArray(raw.tools) ? raw.tools : []);
      return view(text, 'tool', 'tool_result', call === undefined ? 'tool search result' : `result of ${call.label}`, { tool: 'tool_search', callId });
    }
    case 'image_generation_call': {
      // adapters.md: the image the model made stays in the history; its base64 `result` reads as `[image]`
      const prompt = str(raw.revised_prompt);
      const text = `image_generation ${JSON.stringify({ revised_prompt: prompt })}${str(raw.result) === '' ? '' : '\n[image]'}`;
      return view(text, 'assistant', 'tool_use', prompt === '' ? 'image generation' : `image generation: ${prompt}`, {
        output: true,
        tool: 'image_generation',
      });
    }
    case 'additional_tools': {
      // adapters.md: tool definitions Codex sends as an input item (codex-rs rollout/src/policy.rs
      // persists them): the model reads them, so they take room in the context like the instructions
      const tools = Array.isArray(raw.tools) ? raw.tools : [];
      const names = tools.flatMap((t) => (isObject(t) && typeof t.name === 'string' && t.name !== '' ? [t.name] : []));
      return view(JSON.stringify(tools), 'system', 'tools', names.length === 0 ? 'tool definitions' : `tool definitions: ${names.join(', ')}`, {});
    }
    case 'agent_message':
      // adapters.md: a message from another agent of the team, sent to this one as input
      return agentMessage(str(raw.author), agentMessageText(raw.content));
    case 'compaction':
    case 'compaction_summary':
    case 'context_compaction':
      // a summary the server made (remote compaction; `context_compaction` is its newer form): the
      // model reads it, the rollout holds it encrypted
      return view('[encrypted compaction summary]', 'summary', 'compaction', 'compaction summary (encrypted)', { identity: str(raw.encrypted_content) });
    case 'ghost_snapshot':
      // adapters.md: an undo point Codex keeps in its history; it leaves it out of every prompt
      return { skip: 'response_item:ghost_snapshot (not sent to the model)' };
    case 'compaction_trigger':
      // adapters.md: a request control asking the server to compact, no context of its own
      return { skip: 'response_item:compaction_trigger (a request control, not context)' };
    case 'configuration_update':
      // adapters.md: a reasoning setting the backend applies at its place in the history, no text the model reads
      return { skip: 'response_item:configuration_update (a setting, not context)' };
    default:
      return { skip: `response_item:${type}` };
  }
}

/**
 * A message another agent sent (response item `agent_message`, or the rollout line
 * `inter_agent_communication` as Codex turns it into one): input to the model, never the
 * operator's prompt, so it is neither pinned nor audited.
 */
export function agentMessage(author: string, text: string): ItemView {
  return view(text, 'user', 'text', author === '' ? 'agent message' : `message from ${author}`, {});
}

/** An agent message's content: its text parts joined by newlines, an encrypted part as `[encrypted message]`. */
export function agentMessageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isObject(part) && typeof part.text === 'string' ? part.text : '[encrypted message]')).join('\n');
}

function toolSearchLabel(args: unknown): string {
  return isObject(args) && typeof args.query === 'string' && args.query !== '' ? `tool search: ${args.query}` : 'tool search';
}

/** Labels of the calls seen so far, by call id: a result is named after its call. */
export interface CallLabel {
  label: string;
  tool: string | null;
}

function message(raw: JsonObject): ItemView | { skip: string } {
  const role = str(raw.role);
  const text = contentText(raw.content);
  if (role === 'assistant') return view(text, 'assistant', 'text', firstWords(text) || 'assistant message', { output: true });
  const trimmed = text.trimStart();
  if (role === 'user') {
    if (AGENTS_MD.test(trimmed)) return view(text, 'system', 'instructions', 'AGENTS.md instructions', { instructions: true });
    const tag = INJECTED_TAG.exec(trimmed);
    if (tag !== null) return view(text, 'meta', 'text', tag[1]!.replace(/_/g, ' '), {});
    const note = codexUserNote(trimmed);
    if (note !== null) return view(text, 'meta', 'text', note, {});
    return view(text, 'user', 'text', firstWords(requestOf(text)) || 'user message', { prompt: true });
  }
  if (role === 'developer' || role === 'system') {
    const tag = INJECTED_TAG.exec(trimmed);
    // adapters.md: Codex's own developer messages open with a tag; an untagged one is the operator's developer_instructions
    if (tag !== null) return view(text, 'system', 'developer', tag[1]!.replace(/_/g, ' '), {});
    const note = codexNote(trimmed);
    if (note !== null) return view(text, 'system', 'developer', note, {});
    return view(text, 'system', 'developer', 'developer instructions', { instructions: true });
  }
  return { skip: `message:${role || '(no role)'}` };
}

/** A prompt's own words: an IDE's message holds the editor's context first, the request after REQUEST_MARK. */
export function requestOf(text: string): string {
  const mark = text.lastIndexOf(REQUEST_MARK);
  return mark === -1 ? text : text.slice(mark + REQUEST_MARK.length).trim();
}

function view(text: string, role: string, kind: string, label: string, extra: Partial<ItemView>): ItemView {
  return { text, role, kind, label: clip(label), tool: null, output: false, instructions: false, prompt: false, callId: null, ...extra };
}

/** Message content: the text parts joined by newlines, an image as `[image]`. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => {
      if (!isObject(part)) return '';
      if (typeof part.text === 'string') return part.text;
      return part.type === 'input_image' ? '[image]' : `[${str(part.type) || 'part'}]`;
    })
    .join('\n');
}

/** Reasoning: the raw text when Codex kept it, else the summary; encrypted-only reasoning still takes room. */
function reasoningText(raw: JsonObject): string {
  const parts = (v: unknown): string[] => (Array.isArray(v) ? v.flatMap((p) => (isObject(p) && typeof p.text === 'string' ? [p.text] : [])) : []);
  const content = parts(raw.content);
  if (content.length > 0) return content.join('\n');
  const summary = parts(raw.summary);
  if (summary.length > 0) return summary.join('\n');
  return typeof raw.encrypted_content === 'string' ? '[encrypted reasoning]' : '';
}

/** A function call output: a string, content items (text parts, images), or the older `{content, success}`. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return contentText(output);
  if (isObject(output)) {
    if (typeof output.content === 'string') return output.content;
    if (Array.isArray(output.content)) return contentText(output.content);
  }
  return output === undefined ? '' : JSON.stringify(output);
}

/** `shell: cargo test`, `apply_patch src/x.rs`, `update_plan`: the call as a person would name it. */
function callLabel(name: string, args: string): string {
  const parsed = parseJson(args);
  const a = isObject(parsed) ? parsed : {};
  switch (name) {
    case 'shell':
    case 'container.exec':
    case 'local_shell': {
      const patch = shellPatch(name, args);
      if (patch !== null) return patchLabel(patch);
      return `shell: ${Array.isArray(a.command) ? shellScript(a.command.filter((c): c is string => typeof c === 'string')) : str(a.command)}`;
    }
    case 'shell_command':
      return `shell: ${str(a.command)}`;
    case 'exec_command':
      return `shell: ${str(a.cmd) || str(a.command)}`;
    case 'apply_patch':
      return patchLabel(str(a.input) || str(a.patch));
    case 'view_image':
      return `view_image ${str(a.path)}`;
    default:
      return name || 'tool call';
  }
}

/** Older Codex ran apply_patch as a shell command, `["apply_patch", "<the patch>"]`: the patch, else null. */
export function shellPatch(name: string, args: string): string | null {
  if (name !== 'shell' && name !== 'container.exec' && name !== 'local_shell') return null;
  const parsed = parseJson(args);
  const command = isObject(parsed) && Array.isArray(parsed.command) ? parsed.command : null;
  return command !== null && command.length === 2 && command[0] === 'apply_patch' && typeof command[1] === 'string' ? command[1] : null;
}

function customCallLabel(name: string, input: string): string {
  return name === 'apply_patch' ? patchLabel(input) : name || 'tool call';
}

/** `apply_patch src/x.rs (+2 files)`: the files an apply_patch envelope touches. */
/** The paths an apply_patch input adds, updates or deletes, in order. */
export function patchFiles(patch: string): string[] {
  return [...patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)].map((m) => m[1]!.trim());
}

function patchLabel(patch: string): string {
  const files = patchFiles(patch);
  if (files.length === 0) return 'apply_patch';
  return `apply_patch ${files[0]}${files.length > 1 ? ` (+${files.length - 1} files)` : ''}`;
}

/** ["bash", "-lc", "cargo test"] reads as `cargo test`: the shell wrapper says nothing. */
function shellScript(command: string[]): string {
  if (command.length >= 3 && /(^|\/)(ba|z|da)?sh$/.test(command[0]!) && /^-l?c$/.test(command[1]!)) return command.slice(2).join(' ');
  return command.join(' ');
}

function webSearchLabel(action: JsonObject): string {
  if (typeof action.query === 'string') return `web search: ${action.query}`;
  if (typeof action.url === 'string') return `web search: open ${action.url}`;
  return 'web search';
}

/** The first words of a text, on one line, for a label. */
export function firstWords(text: string): string {
  return clip(text);
}

function clip(label: string): string {
  return shorten(label, LABEL_MAX);
}

function parseJson(text: string): unknown {
  return parseNestedJson(text, 'the function call\'s "arguments"');
}
