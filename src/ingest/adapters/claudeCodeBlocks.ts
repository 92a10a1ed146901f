// Claude Code's content blocks as context (docs/adapters.md "Claude Code" span text, role,
// label): one block of a user or assistant record, as the adapter keeps it.
import { isObject, str, type JsonObject } from './json.ts';
import { LINE_ID } from './lineIds.ts';
import { injectedLabel, typedText } from './injectedText.ts';
import { firstWords } from './spanLabels.ts';
import { estimateTokens } from './tokens.ts';

export interface ContextBlock {
  id: string;
  text: string;
  role: string;
  kind: string;
  pinned: boolean;
  derivedFrom: string[] | null;
  /** tool_result blocks: the tool_use they answer (microcompaction clears by it) */
  toolUseId: string | null;
  /** contract §2.3 estimate of `text`, counted once (a block is in every later snapshot) */
  estimate: number;
  /** tool_result blocks: the tool reported an error (contract §8.4 `error`) */
  isError: boolean;
  /** contract §8.8: a short human name */
  label: string;
  /** tool_use and tool_result blocks: the tool's name (contract §8.7 tokens by tool) */
  tool: string | null;
}

/** A tool call's name and the label of its span, for the results that answer it (contract §8.7, §8.8). */
export interface ToolCall {
  label: string;
  tool: string;
}

/**
 * `named` false: the block gets no label (''), for an adapter whose snapshots go to a caller
 * that reads none (docs/engine.md "Snapshots abridged": it reads no per-span figure); its
 * record then names it neither. A record's names are the first words of a text, white space
 * collapsed, or a tool call's name and path, for every block of every record: a tenth of a warm
 * `check` of a 4 MB session, for names nothing printed.
 */
export function block(id: string, text: string, kind: string, toolUseId: string | null, isError = false, named = true): ContextBlock {
  return {
    id,
    text,
    role: 'assistant',
    kind,
    pinned: false,
    derivedFrom: null,
    toolUseId,
    estimate: estimateTokens(text),
    isError,
    label: named ? defaultLabel(kind, text) : '',
    tool: null,
  };
}

/** One content block as context text; null when it is not a block at all. `named`: as block's. */
export function contentBlock(raw: unknown, id: string, named = true): ContextBlock | null {
  if (typeof raw === 'string') return block(id, raw, 'text', null, false, named);
  if (!isObject(raw) || typeof raw.type !== 'string') return null;
  let kind = raw.type;
  let text: string;
  switch (kind) {
    case 'text':
      text = str(raw.text);
      break;
    case 'thinking':
      text = str(raw.thinking);
      break;
    case 'redacted_thinking':
      kind = 'thinking';
      text = '[redacted thinking]';
      break;
    case 'tool_use':
      text = `${str(raw.name)} ${JSON.stringify(raw.input ?? {})}`;
      break;
    case 'tool_result':
      return block(id, toolResultText(raw.content), kind, typeof raw.tool_use_id === 'string' ? raw.tool_use_id : null, raw.is_error === true, named);
    default:
      // image, document, …: the model saw something; its text is not in the transcript
      text = `[${kind}]`;
  }
  return block(id, text, kind, null, false, named);
}

/**
 * contract §8.8: what a user record's block is called, now that its role is known; a tool
 * result takes its call's tool (§8.7). `named` false: the tool only (block's `named`).
 */
export function nameUserBlock(b: ContextBlock, calls: ReadonlyMap<string, ToolCall>, named: boolean): void {
  if (b.kind === 'tool_result') {
    const call = b.toolUseId === null ? undefined : calls.get(b.toolUseId);
    b.tool = call?.tool ?? null;
    if (named) b.label = call === undefined ? 'tool result' : `${b.isError ? 'error from' : 'result of'} ${call.label}`;
  } else if (!named) return;
  else if (b.role === 'summary') b.label = 'compaction summary';
  else if (b.kind === 'text') b.label = b.role === 'meta' ? `meta: ${firstWords(b.text, 50)}` : (injectedLabel(b.text) ?? firstWords(typedText(b.text)));
}

function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isObject(part) ? (part.type === 'text' ? str(part.text) : `[${str(part.type)}]`) : '')).join('\n');
}

/**
 * contract §8.8: a block's label before its record says more (thinking, images, …). A text
 * block is named by its record, which knows whose words they are (claudeCode.ts: "assistant:",
 * the user's typed words, "meta:", a summary): its first words, made here as well, were thrown
 * away for every text block of every record.
 */
function defaultLabel(kind: string, text: string): string {
  if (kind === 'thinking') return text === '[redacted thinking]' ? 'thinking (redacted)' : 'thinking';
  if (kind === 'text') return '';
  return kind === 'tool_result' ? 'tool result' : `[${kind}]`;
}

/**
 * The base of a record's span ids (each block `<base>#<index>`): its uuid, or its line id
 * (`line<N>`, LineIds) for a record without one. Claude Code's uuids are UUIDs; a uuid written
 * as a line id (a hostile or hand-made file) would be the id of the record on that line, their
 * spans would share ids, and every snapshot after would be refused as invalid. Such a record
 * takes its own line id instead, so no two records share a base.
 */
export function recordId(record: JsonObject, lineId: string): string {
  const uuid = record.uuid;
  return typeof uuid === 'string' && uuid !== '' && !LINE_ID.test(uuid) ? uuid : lineId;
}
