// What an OpenTelemetry span says about an agent's context, by convention (contract §7
// OTLP, docs/adapters.md "OpenTelemetry", one table per convention):
// - GenAI semantic conventions: a chat / text_completion / generate_content span is one
//   model call; its input is `gen_ai.input.messages` (and `gen_ai.system_instructions`),
//   or, from older versions, the `gen_ai.{system,user,assistant,tool}.message` events or
//   the `gen_ai.prompt` event / `gen_ai.prompt.N.*` attributes;
// - OpenInference: an LLM span is one model call (`llm.input_messages.N.message.*`); a
//   RETRIEVER or RERANKER span is one retrieval, its documents carrying real scores.
// Anything else is skipped and counted by kind, never an error: traces carry many spans
// (HTTP, tools, chains) that are not model calls.
import type { AttrValue, Attributes, OtlpSpan } from './model.ts';
import { appendAll } from '../../../core/arrays.ts';
import { parseNestedJson } from '../../../core/nesting.ts';

export interface MessagePart {
  /** the part's type: text, tool_call, tool_call_response, reasoning, … */
  type: string;
  text: string;
}

export interface InputMessage {
  role: string;
  parts: MessagePart[];
  /** the framework marks it as a summary of earlier messages (docs/adapters.md) */
  summary: boolean;
}

export interface CallBase {
  /** the conversation: the session it belongs to */
  conversation: string;
  startNs: bigint;
  traceId: string;
  spanId: string;
  where: string;
  service: string | null;
}

export interface ModelCall extends CallBase {
  kind: 'call';
  convention: 'genai' | 'openinference';
  messages: InputMessage[];
  inputTokens: number | null;
  model: string | null;
  /** docs/adapters.md compactions: the span says the conversation was compacted before this call (a `gen_ai.conversation.compacted` event) */
  compacted: boolean;
}

export interface RetrievedDocument {
  id: string | null;
  text: string;
  score: number | null;
  pinned: boolean;
}

export interface Retrieval extends CallBase {
  kind: 'retrieval';
  source: 'retriever' | 'reranker';
  documents: RetrievedDocument[];
}

export type Extracted = ModelCall | Retrieval | { kind: 'skip'; what: string };

/** GenAI `gen_ai.operation.name` values that are a model call with input messages. */
const GENAI_CALLS = new Set(['chat', 'text_completion', 'generate_content']);
/** Older GenAI versions: one span event per input message, the role in its name. */
const GENAI_MESSAGE_EVENTS: Record<string, string> = {
  'gen_ai.system.message': 'system',
  'gen_ai.user.message': 'user',
  'gen_ai.assistant.message': 'assistant',
  'gen_ai.tool.message': 'tool',
};

export function extract(span: OtlpSpan): Extracted {
  const a = span.attributes;
  const oiKind = str(a['openinference.span.kind'])?.toUpperCase() ?? null;
  if (oiKind === 'LLM') return openInferenceCall(span);
  if (oiKind === 'RETRIEVER' || oiKind === 'RERANKER') return retrieval(span, oiKind === 'RERANKER' ? 'reranker' : 'retriever');
  if (oiKind !== null) return { kind: 'skip', what: `openinference ${oiKind}` };
  const op = str(a['gen_ai.operation.name']);
  if (op !== null) return GENAI_CALLS.has(op) ? genAiCall(span) : { kind: 'skip', what: `gen_ai ${op}` };
  // OpenLLMetry and early GenAI versions: no operation name, prompts as indexed attributes
  if (str(a['gen_ai.prompt.0.role']) !== null || str(a['gen_ai.prompt.0.content']) !== null) return genAiCall(span);
  return { kind: 'skip', what: 'not a model call' };
}

function base(span: OtlpSpan, conversation: AttrValue | undefined): CallBase {
  const conv = str(conversation);
  return {
    conversation: conv !== null && conv !== '' ? conv : span.traceId,
    startNs: span.startNs,
    traceId: span.traceId,
    spanId: span.spanId,
    where: span.where,
    service: str(span.resource['service.name']),
  };
}

function genAiCall(span: OtlpSpan): ModelCall {
  const a = span.attributes;
  const messages: InputMessage[] = [];
  const system = parseJson(a['gen_ai.system_instructions'], 'gen_ai.system_instructions');
  if (Array.isArray(system)) {
    const parts = system.map(genAiPart).filter((p): p is MessagePart => p !== null);
    if (parts.length > 0) messages.push({ role: 'system', parts, summary: false });
  }
  let input = parseJson(a['gen_ai.input.messages'], 'gen_ai.input.messages');
  if (!Array.isArray(input)) {
    // newer versions may put the content on the operation-details event instead of the span
    const details = span.events.find((e) => e.name === 'gen_ai.client.inference.operation.details');
    if (details !== undefined) input = parseJson(details.attributes['gen_ai.input.messages'], 'gen_ai.input.messages');
  }
  if (Array.isArray(input)) {
    for (const m of input) {
      const msg = genAiMessage(m);
      if (msg !== null) messages.push(msg);
    }
  } else {
    appendAll(messages, olderGenAiMessages(span));
  }
  const tokens = int(a['gen_ai.usage.input_tokens']) ?? int(a['gen_ai.usage.prompt_tokens']);
  return {
    kind: 'call',
    convention: 'genai',
    ...base(span, a['gen_ai.conversation.id']),
    messages,
    inputTokens: tokens,
    model: str(a['gen_ai.request.model']) ?? str(a['gen_ai.response.model']),
    compacted: span.events.some((e) => e.name === 'gen_ai.conversation.compacted'),
  };
}

/** A ChatMessage of gen_ai.input.messages: {role, parts: [{type, …}], …}; also {role, content} of older producers. */
function genAiMessage(m: AttrValue): InputMessage | null {
  if (!isRecord(m)) return null;
  const role = str(m.role) ?? 'user';
  let parts: MessagePart[] = [];
  if (Array.isArray(m.parts)) parts = m.parts.map(genAiPart).filter((p): p is MessagePart => p !== null);
  else if (m.content !== undefined) parts = [{ type: 'text', text: textOf(m.content) }];
  if (parts.length === 0) return null;
  // docs/adapters.md: a compaction part (the GenAI conventions' compaction summary) makes the message a summary
  return { role, parts, summary: m.summary === true || parts.some((p) => p.type === 'compaction') };
}

function genAiPart(p: AttrValue): MessagePart | null {
  if (typeof p === 'string') return { type: 'text', text: p };
  if (!isRecord(p)) return null;
  const type = str(p.type) ?? 'text';
  switch (type) {
    case 'text':
    case 'reasoning':
      return { type, text: textOf(p.content) };
    case 'tool_call':
      return { type, text: `${str(p.name) ?? ''} ${textOf(p.arguments ?? {})}`.trim() };
    case 'tool_call_response':
      return { type, text: textOf(p.response) };
    default:
      // blob, uri, file, …: the model saw something whose text is not in the trace
      return { type, text: typeof p.content === 'string' ? p.content : `[${type}]` };
  }
}

/** GenAI before gen_ai.input.messages: message events, the gen_ai.prompt event, or gen_ai.prompt.N.* attributes. */
function olderGenAiMessages(span: OtlpSpan): InputMessage[] {
  const out: InputMessage[] = [];
  for (const e of span.events) {
    const role = GENAI_MESSAGE_EVENTS[e.name];
    if (role !== undefined) {
      const content = e.attributes.content ?? e.attributes['gen_ai.event.content'];
      const parsed = typeof content === 'string' && e.attributes['gen_ai.event.content'] !== undefined ? parseJson(content, 'gen_ai.event.content') : content;
      const text = isRecord(parsed) && parsed.content !== undefined ? textOf(parsed.content) : textOf(parsed ?? '');
      out.push({ role: str(e.attributes.role) ?? role, parts: [{ type: 'text', text }], summary: false });
    } else if (e.name === 'gen_ai.content.prompt') {
      const prompt = parseJson(e.attributes['gen_ai.prompt'], 'gen_ai.prompt');
      if (Array.isArray(prompt)) for (const m of prompt) if (genAiMessage(m) !== null) out.push(genAiMessage(m)!);
    }
  }
  if (out.length > 0) return out;
  for (const [, fields] of indexed(span.attributes, 'gen_ai.prompt.')) {
    const content = fields.content;
    if (content === undefined) continue;
    out.push({ role: str(fields.role) ?? 'user', parts: [{ type: 'text', text: textOf(content) }], summary: false });
  }
  return out;
}

function openInferenceCall(span: OtlpSpan): ModelCall {
  const a = span.attributes;
  const messages: InputMessage[] = [];
  for (const [, f] of indexed(a, 'llm.input_messages.')) {
    const role = str(f['message.role']) ?? 'user';
    const parts: MessagePart[] = [];
    const content = f['message.content'];
    if (content !== undefined && content !== null) parts.push({ type: 'text', text: textOf(content) });
    for (const [, c] of indexed(f, 'message.contents.')) {
      const type = str(c['message_content.type']) ?? 'text';
      parts.push({ type, text: type === 'text' ? textOf(c['message_content.text'] ?? '') : `[${type}]` });
    }
    for (const [, t] of indexed(f, 'message.tool_calls.')) {
      parts.push({ type: 'tool_call', text: `${str(t['tool_call.function.name']) ?? ''} ${textOf(t['tool_call.function.arguments'] ?? '')}`.trim() });
    }
    if (parts.length === 0) continue;
    // a tool's answer: OpenInference marks it by role and tool_call_id
    if (role === 'tool') for (const p of parts) if (p.type === 'text') p.type = 'tool_call_response';
    messages.push({ role, parts, summary: f['message.summary'] === true });
  }
  return {
    kind: 'call',
    convention: 'openinference',
    ...base(span, a['session.id']),
    messages,
    inputTokens: int(a['llm.token_count.prompt']),
    model: str(a['llm.model_name']),
    compacted: span.events.some((e) => e.name === 'gen_ai.conversation.compacted'),
  };
}

function retrieval(span: OtlpSpan, source: 'retriever' | 'reranker'): Retrieval {
  const a = span.attributes;
  const prefix = source === 'reranker' ? 'reranker.output_documents.' : 'retrieval.documents.';
  const documents: RetrievedDocument[] = [];
  for (const [, d] of indexed(a, prefix)) {
    const content = d['document.content'];
    if (content === undefined) continue;
    const score = d['document.score'];
    const metadata = parseJson(d['document.metadata'], 'document.metadata');
    const rawId = d['document.id'];
    documents.push({
      id: typeof rawId === 'string' || typeof rawId === 'number' ? String(rawId) : null,
      text: textOf(content),
      score: typeof score === 'number' && Number.isFinite(score) ? score : null,
      pinned: isRecord(metadata) && metadata.pinned === true,
    });
  }
  return { kind: 'retrieval', source, ...base(span, a['session.id']), documents };
}

/** Flattened indexed attributes (`prefix.N.rest`) grouped by N in numeric order: N → {rest: value}. */
export function indexed(attrs: Attributes, prefix: string): [number, Attributes][] {
  const groups = new Map<number, Attributes>();
  for (const key of Object.keys(attrs)) {
    if (!key.startsWith(prefix)) continue;
    const m = /^(\d+)\.(.+)$/.exec(key.slice(prefix.length));
    if (m === null) continue;
    const n = Number(m[1]);
    let g = groups.get(n);
    if (g === undefined) groups.set(n, (g = {}));
    g[m[2]!] = attrs[key]!;
  }
  return [...groups.entries()].sort((x, y) => x[0] - y[0]);
}

/**
 * A JSON-string attribute parsed (GenAI puts structured values in strings); other values as
 * they are. What nests past MAX_NESTING throws TooDeepError before anything walks it (a tool
 * call's arguments 100k deep overflowed JSON.stringify and failed the whole export): the span's
 * rejection (prepareSpan), docs/security.md "Hostile transcripts".
 */
function parseJson(v: AttrValue | undefined, name: string): AttrValue | undefined {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (!t.startsWith('[') && !t.startsWith('{')) return v;
  const parsed = parseNestedJson(t, `the attribute "${name}"`);
  return parsed === null ? v : (parsed as AttrValue); // not JSON: the text as it came
}

function textOf(v: AttrValue | undefined): string {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  return JSON.stringify(v);
}

function str(v: AttrValue | undefined): string | null {
  return typeof v === 'string' ? v : null;
}

function int(v: AttrValue | undefined): number | null {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null;
}

function isRecord(v: AttrValue | undefined): v is { [key: string]: AttrValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
