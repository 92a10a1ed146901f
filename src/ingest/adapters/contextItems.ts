// What the Gemini CLI and OpenHands adapters keep of the context between calls, and how one
// call's view becomes a snapshot's spans (docs/adapters.md "tokens": the API's prompt size
// when the transcript has it, the visible items' estimates fitted into it, the rest on the
// span that stands for what the transcript does not show).
import type { Span } from '../../core/wire.ts';
import { estimateTokens, fitTokens } from './tokens.ts';

export interface ContextItem {
  id: string;
  text: string;
  role: string;
  kind: string;
  label: string;
  /** the tool a call or result belongs to (extra field `tool`) */
  tool: string | null;
  pinned: boolean;
  derivedFrom: string[] | null;
  /** contract §2.3 estimate of `text`, counted once */
  estimate: number;
}

export function contextItem(id: string, text: string, role: string, kind: string, label: string, tool: string | null = null): ContextItem {
  return { id, text, role, kind, label, tool, pinned: false, derivedFrom: null, estimate: estimateTokens(text) };
}

export function toSpan(item: ContextItem): Span {
  const span: Span = { span_id: item.id, text: item.text, score: null, text_sha256: null, role: item.role, kind: item.kind, label: item.label };
  if (item.tool !== null) span.tool = item.tool;
  if (item.pinned) span.pinned = true;
  if (item.derivedFrom !== null) span.derived_from = item.derivedFrom;
  return span;
}

/**
 * The spans of one call: `rest` first (it stands for what the transcript does not show),
 * then the items. With a known `total` the items' estimates are fitted into it and the rest
 * span takes what is left, so the turn's total is exact; without one every span is left to
 * the engine's §2.3 estimate.
 */
export function callSpans(rest: ContextItem | null, items: readonly ContextItem[], total: number | null): Span[] {
  const spans = items.map(toSpan);
  const restSpan = rest === null ? null : toSpan(rest);
  if (total !== null) {
    const shares = fitTokens(
      items.map((i) => i.estimate),
      total,
    );
    spans.forEach((s, i) => (s.tokens = shares[i]!));
    const left = total - shares.reduce((a, b) => a + b, 0);
    if (restSpan !== null) restSpan.tokens = left;
    else if (spans.length > 0) spans[0]!.tokens = shares[0]! + left;
  }
  return restSpan === null ? spans : [restSpan, ...spans];
}
