// `proxy --redact REGEX` (docs/proxy.md "Keys and content"): every match in a captured
// request's texts is masked before anything is made of them, so the span texts, their ids
// (hashes of the masked text), labels, titles and audit items never hold what was matched.
// The request forwarded to the provider is not touched.
import { isObject, type JsonObject } from '../json.ts';
import type { CallPart, CapturedRequest } from './requests.ts';

export const REDACTED = '[redacted]';

/** The regexes of --redact, each global; throws naming the one that is not a regex. */
export function redactionPatterns(sources: readonly string[]): RegExp[] {
  return sources.map((source) => {
    try {
      const re = new RegExp(source, 'gu');
      if (re.test('')) throw new Error('it matches the empty text');
      return re;
    } catch (e) {
      throw new Error(`--redact ${JSON.stringify(source)} is not a usable regular expression: ${(e as Error).message}`);
    }
  });
}

export function redactText(text: string, patterns: readonly RegExp[]): string {
  let out = text;
  for (const re of patterns) {
    re.lastIndex = 0;
    out = out.replace(re, REDACTED);
  }
  return out;
}

function redactValue(v: unknown, patterns: readonly RegExp[]): unknown {
  if (typeof v === 'string') return redactText(v, patterns);
  if (Array.isArray(v)) return v.map((x) => redactValue(x, patterns));
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) out[k] = redactValue(x, patterns);
    return out;
  }
  return v;
}

function redactPart(p: CallPart, patterns: readonly RegExp[]): CallPart {
  return {
    ...p,
    text: redactText(p.text, patterns),
    tool: p.tool === null ? null : redactText(p.tool, patterns),
    input: p.input === null ? null : (redactValue(p.input, patterns) as JsonObject),
  };
}

/** The request with every text masked (a new object; none when there is nothing to mask). */
export function redactRequest(request: CapturedRequest, patterns: readonly RegExp[]): CapturedRequest {
  if (patterns.length === 0) return request;
  return {
    ...request,
    system: request.system.map((p) => redactPart(p, patterns)),
    tools: request.tools.map((p) => redactPart(p, patterns)),
    messages: request.messages.map((m) => ({ role: m.role, parts: m.parts.map((p) => redactPart(p, patterns)) })),
  };
}
