// The pieces of a Gemini CLI message record (packages/core/src/services/chatRecordingTypes.ts
// `MessageRecord`): `content` is a `PartListUnion` of @google/genai (a string, one Part or a
// list of them), `thoughts` the model's thought summaries, `toolCalls` its calls with their
// results. docs/adapters.md "Gemini CLI" names what each becomes.
import { escapedId } from './lineIds.ts';
import { firstWords, shownPath } from './spanLabels.ts';
import { isObject, type JsonObject } from './json.ts';

/** One Part's text as the model read it: text, a function call or response, or a stand-in for media. */
export interface PartView {
  kind: 'text' | 'thought' | 'call' | 'response' | 'media';
  text: string;
  /** functionCall / functionResponse: the call id and tool name */
  callId: string | null;
  tool: string | null;
}

/**
 * docs/security.md "The new importers": the most parts (content parts, tool calls and
 * thoughts together) one message is read with. Each call and response part is a span of its
 * own, and a snapshot lists every message before its call (contract §2), so a message of
 * 300k parts cost 300k spans in every later turn: ten turns took more than a 2 GB heap. A
 * message over the limit is refused whole, before anything of it is held.
 */
export const MAX_MESSAGE_PARTS = 10_000;

/** A message over MAX_MESSAGE_PARTS: its record's input error, worded in full (pipeline.ts passes it on as it is). */
export class TooManyPartsError extends Error {
  constructor(id: string, count: number) {
    super(
      `the message "${id.length > 40 ? id.slice(0, 40) + '…' : id}" holds ${count} parts (content parts, tool calls and thoughts); a Gemini CLI message is read with at most ${MAX_MESSAGE_PARTS}: it was skipped, not read`,
    );
    this.name = 'TooManyPartsError';
  }
}

/** How many parts a message record holds: its content parts, tool calls and thoughts (each list's length, nothing walked). */
export function partCount(record: JsonObject): number {
  const content = record.content;
  const parts = Array.isArray(content) ? content.length : content === undefined || content === null ? 0 : 1;
  const calls = Array.isArray(record.toolCalls) ? record.toolCalls.length : 0;
  const thoughts = Array.isArray(record.thoughts) ? record.thoughts.length : 0;
  return parts + calls + thoughts;
}

/** Throws TooManyPartsError for a message over MAX_MESSAGE_PARTS. */
export function checkPartCount(record: JsonObject): void {
  const count = partCount(record);
  if (count > MAX_MESSAGE_PARTS) throw new TooManyPartsError(typeof record.id === 'string' ? record.id : '(no id)', count);
}

export function partsOf(content: unknown): unknown[] {
  if (content === undefined || content === null) return [];
  if (Array.isArray(content)) return content;
  return [content];
}

export function partView(part: unknown): PartView | null {
  if (typeof part === 'string') return part === '' ? null : { kind: 'text', text: part, callId: null, tool: null };
  if (!isObject(part)) return null;
  if (typeof part.text === 'string') return { kind: part.thought === true ? 'thought' : 'text', text: part.text, callId: null, tool: null };
  if (isObject(part.functionCall)) {
    const call = part.functionCall;
    const name = typeof call.name === 'string' ? call.name : 'tool';
    return { kind: 'call', text: `${name} ${stringify(call.args)}`, callId: str(call.id), tool: name };
  }
  if (isObject(part.functionResponse)) {
    const r = part.functionResponse;
    return { kind: 'response', text: responseText(r.response), callId: str(r.id), tool: str(r.name) };
  }
  if (isObject(part.inlineData)) return { kind: 'media', text: `[${str(part.inlineData.mimeType) ?? 'inline data'}]`, callId: null, tool: null };
  if (isObject(part.fileData)) return { kind: 'media', text: `[file ${str(part.fileData.fileUri) ?? ''}]`.replace(' ]', ']'), callId: null, tool: null };
  if (isObject(part.executableCode)) return { kind: 'text', text: str(part.executableCode.code) ?? '', callId: null, tool: null };
  if (isObject(part.codeExecutionResult)) return { kind: 'text', text: str(part.codeExecutionResult.output) ?? '', callId: null, tool: null };
  return null;
}

/** The text of a content's plain text parts, joined (thoughts and calls left out). */
export function plainText(content: unknown): string {
  return partsOf(content)
    .map(partView)
    .filter((p): p is PartView => p !== null && p.kind === 'text')
    .map((p) => p.text)
    .join('\n');
}

/**
 * A tool call's result as the model read it: the `output` (or `error`) of each
 * functionResponse part, the text of any other part (chatRecordingService stores the
 * parts sent back to the model).
 */
export function resultText(result: unknown): string {
  return partsOf(result)
    .map((p) => {
      const v = partView(p);
      return v === null ? '' : v.text;
    })
    .filter((t) => t !== '')
    .join('\n');
}

function responseText(response: unknown): string {
  if (!isObject(response)) return typeof response === 'string' ? response : stringify(response);
  if (typeof response.output === 'string') return response.output;
  if (typeof response.error === 'string') return response.error;
  return stringify(response);
}

/** JSON of a value, bounded: a value too deep for JSON.stringify reads as a stand-in. */
export function stringify(value: unknown): string {
  if (value === undefined) return '';
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '[arguments not shown]';
  }
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

/** The path a Gemini file tool names (`file_path`; older versions `absolute_path`, `path`). */
export function toolPath(args: JsonObject): string | null {
  return str(args.file_path) ?? str(args.absolute_path) ?? str(args.path);
}

/** The file tools whose `file_path` the audit lists (contract §8.4 `file`), and the ones that read. */
export const FILE_TOOLS = new Set(['read_file', 'write_file', 'replace', 'edit']);
export const READ_TOOLS = new Set(['read_file']);

/** contract §8.8: a Gemini tool call's label. */
export function geminiCallLabel(name: string, args: JsonObject, cwd: string | null): string {
  const path = toolPath(args);
  switch (name) {
    case 'read_file':
    case 'write_file':
    case 'replace':
    case 'edit':
      return path === null ? name : firstWords(`${name} ${shownPath(path, cwd)}`);
    case 'run_shell_command':
      return str(args.command) === null ? name : firstWords(`shell: ${str(args.command)!}`);
    case 'glob':
    case 'grep_search':
    case 'search_file_content':
      return str(args.pattern) === null ? name : firstWords(`${name} ${str(args.pattern)!}`);
    case 'list_directory':
      return firstWords(`${name} ${str(args.dir_path) ?? str(args.path) ?? ''}`.trim());
    case 'google_web_search':
      return str(args.query) === null ? name : firstWords(`web search: ${str(args.query)!}`);
    case 'web_fetch':
      return str(args.prompt) === null ? name : firstWords(`web_fetch: ${str(args.prompt)!}`);
    default:
      return name === '' ? 'tool call' : firstWords(name);
  }
}

/**
 * docs/adapters.md "Gemini CLI" span id: the key a message is held by and the base of its span
 * ids (`<key>`, `<key>#thoughts`, `<key>#p<i>`, …). Gemini CLI writes UUIDs, so a real id is
 * its own key. An id holding `#` could equal another message's derived id (`a2#thoughts`) and
 * `system` is the placeholder span's id: either gave two spans of every later snapshot one id,
 * and the engine refused them all. Such an id becomes `#` and the id with `%` and `#` escaped:
 * the only keys that start with `#` and hold no other one, so no derived or real id can equal
 * them, and the same id always gets the same key (a message written again, `$rewindTo`).
 */
export function messageKey(id: string): string {
  if (id !== 'system' && !id.includes('#')) return id;
  return escapedId(id);
}
