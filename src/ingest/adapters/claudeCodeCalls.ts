// Claude Code's API calls (docs/adapters.md "Claude Code" turn and tokens): which call an
// assistant record belongs to, and a call's token total spread over its snapshot's spans.
import type { Snapshot } from '../../core/wire.ts';
import type { JsonObject } from './json.ts';
import { fitTokens } from './tokens.ts';

/**
 * adapters.md turn: a call is its `requestId`; records without one (Claude Code on another
 * backend, behind ANTHROPIC_BASE_URL) are one call per `message.id`. A synthetic record
 * (`<synthetic>` model, an API error) is none.
 */
export function callOf(record: JsonObject, message: JsonObject | null): { id: string; byRequest: boolean } | null {
  if (typeof record.requestId === 'string' && record.requestId !== '') return { id: record.requestId, byRequest: true };
  if (record.isApiErrorMessage === true || message?.model === '<synthetic>') return null;
  return typeof message?.id === 'string' && message.id !== '' ? { id: message.id, byRequest: false } : null;
}

/**
 * adapters.md tokens: the call's total on its spans: each visible span's estimate, scaled down
 * when they add up to more, the `system` placeholder (the first span) the rest.
 */
export function fitSpans(snap: Snapshot, estimates: number[], total: number): void {
  const shares = fitTokens(estimates, total);
  snap.spans.forEach((s, i) => {
    if (i > 0) s.tokens = shares[i - 1]!;
  });
  snap.spans[0]!.tokens = total - shares.reduce((a, b) => a + b, 0);
}
