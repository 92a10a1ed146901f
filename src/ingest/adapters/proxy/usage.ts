// docs/proxy.md "Tokens": the prompt size of one call from its response's usage, read as the
// response streams past (server-sent events) or from its JSON body:
//   Anthropic   input_tokens + cache_creation_input_tokens + cache_read_input_tokens, from
//               `message_start` (and `message_delta`, which newer API versions send with the
//               final counts) or the JSON message's `usage`
//   OpenAI      Chat Completions `usage.prompt_tokens` (streamed: the last chunk, with
//               stream_options.include_usage), Responses `usage.input_tokens` (streamed: the
//               `response.completed` event's `response.usage`)
// Only event lines that mention "usage" or "model" are parsed, so a long answer costs a
// substring search per line. What is held between chunks is one unfinished line, bounded.
import { isObject, type JsonObject } from '../json.ts';
import type { ProxyApi } from './requests.ts';

export interface ResponseFacts {
  /** the call's prompt tokens as the provider counted them; null: the response says none */
  inputTokens: number | null;
  model: string | null;
  /** the response's id (msg_…, chatcmpl-…, resp_…) */
  responseId: string | null;
}

export class UsageReader {
  private readonly facts: ResponseFacts = { inputTokens: null, model: null, responseId: null };
  private readonly anthropicCounts = new Map<string, number>();
  private pending = '';
  private body: string[] = [];
  private bodyChars = 0;
  /** the limit was passed: what was read so far is all there is */
  overLimit = false;

  constructor(
    private readonly api: ProxyApi,
    /** text/event-stream (else the body is one JSON document) */
    private readonly streaming: boolean,
    private readonly maxChars: number,
  ) {}

  /** A piece of the response's text, as it arrives. */
  push(text: string): void {
    if (this.overLimit) return;
    if (!this.streaming) {
      this.bodyChars += text.length;
      if (this.bodyChars > this.maxChars) {
        this.overLimit = true;
        this.body = [];
        return;
      }
      this.body.push(text);
      return;
    }
    let from = 0;
    let text2 = text;
    if (this.pending !== '') {
      text2 = this.pending + text;
      this.pending = '';
    }
    for (;;) {
      const nl = text2.indexOf('\n', from);
      if (nl < 0) break;
      this.line(text2, from, nl);
      from = nl + 1;
    }
    const rest = text2.length - from;
    if (rest > this.maxChars) {
      this.overLimit = true;
      return;
    }
    if (rest > 0) this.pending = text2.slice(from);
  }

  /** The response ended: what it said. */
  end(): ResponseFacts {
    if (this.streaming) {
      if (this.pending !== '') this.line(this.pending, 0, this.pending.length);
      this.pending = '';
    } else if (!this.overLimit) {
      const text = this.body.join('');
      this.body = [];
      try {
        const v: unknown = JSON.parse(text);
        if (isObject(v)) this.event(v);
      } catch {
        // not JSON (an HTML error page): no usage
      }
    }
    return this.facts;
  }

  private line(text: string, from: number, to: number): void {
    if (!text.startsWith('data:', from)) return;
    const data = text.slice(from + 5, to).trim();
    if (!data.includes('"usage"') && !data.includes('"model"')) return;
    try {
      const v: unknown = JSON.parse(data);
      if (isObject(v)) this.event(v);
    } catch {
      // a data line that is not JSON ([DONE]): nothing in it
    }
  }

  private event(v: JsonObject): void {
    // Anthropic message_start wraps the message; Responses events wrap the response
    const inner = isObject(v.message) ? v.message : isObject(v.response) ? v.response : v;
    if (typeof inner.model === 'string' && inner.model !== '') this.facts.model ??= inner.model;
    if (typeof inner.id === 'string' && inner.id !== '') this.facts.responseId ??= inner.id;
    const usage = isObject(inner.usage) ? inner.usage : isObject(v.usage) ? v.usage : null;
    if (usage === null) return;
    if (this.api === 'anthropic') {
      for (const key of ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens']) {
        const n = usage[key];
        if (isCount(n)) this.anthropicCounts.set(key, Math.max(n, this.anthropicCounts.get(key) ?? 0));
      }
      if (this.anthropicCounts.size > 0) this.facts.inputTokens = [...this.anthropicCounts.values()].reduce((a, b) => a + b, 0);
      return;
    }
    const n = this.api === 'openai-chat' ? (usage.prompt_tokens ?? usage.input_tokens) : (usage.input_tokens ?? usage.prompt_tokens);
    if (isCount(n)) this.facts.inputTokens = n;
  }
}

function isCount(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 0;
}
