// Claude Code's context as a snapshot's spans (docs/adapters.md "Claude Code" span text,
// role, label and tokens): the system placeholder, then one span per context block. Made per
// call over the whole context, so each span is one object literal where it can be.
import type { Span } from '../../core/wire.ts';
import type { ContextBlock } from './claudeCodeBlocks.ts';
import { fittedShare } from './tokens.ts';

/** adapters.md: the transcript lacks the system prompt and tool definitions; this span stands for them (a placeholder: never pinned, contract §8.1). */
export const SYSTEM_SPAN_ID = 'system';
export const SYSTEM_SPAN_TEXT = '(system prompt and tool definitions: not in the transcript)';

/** adapters.md tokens: the placeholder's tokens are the rest of each call's total, so whatever else the transcript does not hold too */
const SYSTEM_SPAN_LABEL = 'system prompt, tools and what the transcript does not hold';

/** The system placeholder, for a call whose usage is not known (yet). */
export function systemSpan(): Span {
  return { span_id: SYSTEM_SPAN_ID, text: SYSTEM_SPAN_TEXT, score: null, text_sha256: null, role: 'system', kind: 'placeholder', label: SYSTEM_SPAN_LABEL };
}

/** The system placeholder, then the context's blocks as spans: one array made, not a copy of another (this runs per call over the whole context). */
export function spansOf(system: Span, context: readonly ContextBlock[]): Span[] {
  const spans = new Array<Span>(context.length + 1);
  spans[0] = system;
  for (let i = 0; i < context.length; i++) spans[i + 1] = toSpan(context[i]!);
  return spans;
}

function toSpan(b: ContextBlock): Span {
  const span: Span = { span_id: b.id, text: b.text, score: null, text_sha256: null, role: b.role, kind: b.kind, label: b.label };
  if (b.tool !== null) span.tool = b.tool;
  if (b.pinned) span.pinned = true;
  if (b.derivedFrom !== null) span.derived_from = b.derivedFrom;
  return span;
}

/** systemSpan with its `tokens`, made whole: the same hidden class as the blocks' spans without a tool (the scoring stage and the engine read every span's fields, and more classes than four make those reads megamorphic). */
export function fittedSystemSpan(tokens: number): Span {
  // one literal with `tokens` last (not systemSpan() given tokens after): the shape is the point
  return {
    span_id: SYSTEM_SPAN_ID,
    text: SYSTEM_SPAN_TEXT,
    score: null,
    text_sha256: null,
    role: 'system',
    kind: 'placeholder',
    label: SYSTEM_SPAN_LABEL,
    tokens,
  };
}

/**
 * spansOf, then fitSpans with the blocks' estimates: the same spans, keys in the same order
 * (`tokens` last), each made whole in one object literal rather than given `tokens` in a
 * second pass over the turn (a new hidden class and a property store grown per span) and
 * without the estimates' and the shares' arrays. Runs per call over the whole context.
 */
export function fittedSpansOf(context: readonly ContextBlock[], total: number): Span[] {
  const n = context.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += context[i]!.estimate;
  const spans = new Array<Span>(n + 1);
  let shared = 0;
  for (let i = 0; i < n; i++) {
    const b = context[i]!;
    const share = fittedShare(b.estimate, sum, total);
    shared += share;
    spans[i + 1] = fittedSpan(b, share);
  }
  spans[0] = fittedSystemSpan(total - shared);
  return spans;
}

/** toSpan with its `tokens`: the two shapes nearly every span has as literals, any other as toSpan makes it. */
export function fittedSpan(b: ContextBlock, tokens: number): Span {
  if (b.pinned || b.derivedFrom !== null) {
    const span = toSpan(b);
    span.tokens = tokens;
    return span;
  }
  if (b.tool === null) return { span_id: b.id, text: b.text, score: null, text_sha256: null, role: b.role, kind: b.kind, label: b.label, tokens };
  return { span_id: b.id, text: b.text, score: null, text_sha256: null, role: b.role, kind: b.kind, label: b.label, tool: b.tool, tokens };
}
