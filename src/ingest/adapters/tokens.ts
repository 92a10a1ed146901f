// Token counts of the adapters (docs/adapters.md "tokens"): a call's prompt size from the
// API's usage, contract §2.3's estimate of a text, and the estimates fitted to a known total.
import { isObject, type JsonObject } from './json.ts';

/** adapters.md tokens: input + cache creation + cache read of the call; null when the record has no usage. */
export function promptTokens(message: JsonObject | null): number | null {
  const usage = message?.usage;
  if (!isObject(usage)) return null;
  let total = 0;
  let any = false;
  for (const key of ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens']) {
    const v = usage[key];
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0) {
      total += v;
      any = true;
    }
  }
  return any ? total : null;
}

/** A low surrogate code unit: the second half of a pair, or a lone one. */
const LOW_SURROGATE = /[\udc00-\udfff]/;

/** contract §2.3's estimate: ⌈code points / 4⌉. */
export function estimateTokens(text: string): number {
  // code points: UTF-16 units less the low halves of surrogate pairs. A text without a low
  // surrogate (nearly every one) has as many as it has units: the regular expression answers
  // that without a loop in JavaScript (at once for a one-byte string), ~100× faster per text
  // of the bench session than counting below, which runs once per new block of every adapter.
  if (!LOW_SURROGATE.test(text)) return Math.ceil(text.length / 4);
  let points = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
      const p = text.charCodeAt(i - 1);
      if (p >= 0xd800 && p <= 0xdbff) points--;
    }
  }
  return Math.ceil(points / 4);
}

/**
 * adapters.md tokens: the visible spans keep their estimates when they fit in the call's
 * total; when they do not, each is scaled down by total / sum (rounded down), so the
 * system span (the rest) is never negative and the turn's total is exact.
 */
export function fitTokens(estimates: number[], total: number): number[] {
  const sum = estimates.reduce((a, b) => a + b, 0);
  if (sum <= total) return estimates;
  return estimates.map((e) => fittedShare(e, sum, total));
}

/** fitTokens of one span: its `estimate`, of estimates that add up to `sum`, in the call's `total`. */
export function fittedShare(estimate: number, sum: number, total: number): number {
  return sum <= total ? estimate : Math.floor((estimate * total) / sum);
}
