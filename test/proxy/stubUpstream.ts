// Stub model APIs on 127.0.0.1 for the proxy's tests and bench, speaking each wire format as
// the providers document it:
// - Anthropic Messages streaming (docs.anthropic.com "Streaming Messages"): `event: <type>` +
//   `data: <json>` per event, message_start (message.usage with input_tokens,
//   cache_creation_input_tokens, cache_read_input_tokens), content_block_start /
//   content_block_delta / content_block_stop, ping, message_delta (usage.output_tokens),
//   message_stop; errors as `{"type":"error","error":{"type":…,"message":…}}`.
// - OpenAI Chat Completions streaming (platform.openai.com "Streaming"): `data: <chunk>` lines
//   of object chat.completion.chunk, with stream_options.include_usage a last chunk with
//   `choices: []` and `usage.prompt_tokens`, then `data: [DONE]`.
// - OpenAI Responses streaming ("Streaming events"): `event: response.created` …
//   `response.output_text.delta` … `response.completed` whose `response.usage.input_tokens`
//   is the prompt size.
// Each stub records what it received (raw body bytes, headers) and the exact bytes it sent.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  url: string;
  rawHeaders: string[];
  body: Buffer;
  /** the proxy closed the request before the answer ended (a cancellation) */
  closedEarly: boolean;
}

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  /** the body in pieces, each written after `delayMs` */
  chunks: (string | Buffer)[];
  delayMs?: number;
  /** stop after this many chunks and keep the connection open (a stream the client cuts) */
  hangAfter?: number;
  /** break the connection off after this many chunks (an upstream that fails mid-answer) */
  cutAfter?: number;
}

export interface Stub {
  url: string;
  received: Received[];
  /** every byte each answer sent, in order */
  sent: Buffer[];
  answer: (req: Received) => Answer;
  close(): Promise<void>;
}

export async function startStub(answer: (req: Received) => Answer): Promise<Stub> {
  const stub: Stub = { url: '', received: [], sent: [], answer, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { method: req.method!, url: req.url!, rawHeaders: req.rawHeaders, body: Buffer.concat(chunks), closedEarly: false };
      stub.received.push(r);
      const a = stub.answer(r);
      const sent: Buffer[] = [];
      const index = stub.sent.push(Buffer.alloc(0)) - 1;
      res.on('close', () => {
        if (!res.writableFinished) r.closedEarly = true;
      });
      res.writeHead(a.status ?? 200, a.headers ?? {});
      res.flushHeaders();
      let i = 0;
      const next = (): void => {
        if (res.destroyed) return;
        if (a.hangAfter !== undefined && i >= a.hangAfter) return;
        if (a.cutAfter !== undefined && i >= a.cutAfter) return void res.socket?.destroy();
        if (i >= a.chunks.length) return void res.end();
        const c = Buffer.from(a.chunks[i++]!);
        sent.push(c);
        stub.sent[index] = Buffer.concat(sent);
        res.write(c);
        if ((a.delayMs ?? 0) > 0) setTimeout(next, a.delayMs);
        else setImmediate(next);
      };
      next();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stub.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return stub;
}

const SSE = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': 'req_stub_1' };

function event(type: string, data: unknown): string {
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** An Anthropic streamed answer: text, optionally a tool_use block, with usage or without. */
export function anthropicStream(o: {
  text: string;
  usage?: { input: number; cacheCreation: number; cacheRead: number } | null;
  toolUse?: { id: string; name: string; input: object };
}): Answer {
  const usage = o.usage === undefined ? { input: 1200, cacheCreation: 300, cacheRead: 5000 } : o.usage;
  const startUsage =
    usage === null
      ? {}
      : { input_tokens: usage.input, cache_creation_input_tokens: usage.cacheCreation, cache_read_input_tokens: usage.cacheRead, output_tokens: 1 };
  const chunks = [
    event('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_stub01',
        type: 'message',
        role: 'assistant',
        content: [],
        model: 'claude-sonnet-4-5-20250929',
        stop_reason: null,
        stop_sequence: null,
        ...(usage === null ? {} : { usage: startUsage }),
      },
    }),
    event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    event('ping', { type: 'ping' }),
  ];
  for (const piece of o.text.match(/.{1,12}/gs) ?? [])
    chunks.push(event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } }));
  chunks.push(event('content_block_stop', { type: 'content_block_stop', index: 0 }));
  if (o.toolUse !== undefined) {
    chunks.push(
      event('content_block_start', {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: o.toolUse.id, name: o.toolUse.name, input: {} },
      }),
    );
    chunks.push(
      event('content_block_delta', {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(o.toolUse.input) },
      }),
    );
    chunks.push(event('content_block_stop', { type: 'content_block_stop', index: 1 }));
  }
  chunks.push(
    event('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: o.toolUse === undefined ? 'end_turn' : 'tool_use', stop_sequence: null },
      ...(usage === null ? {} : { usage: { output_tokens: 15 } }),
    }),
    event('message_stop', { type: 'message_stop' }),
  );
  return { headers: SSE, chunks };
}

/** An Anthropic JSON (not streamed) answer. */
export function anthropicJson(o: { text: string; usage: { input: number; cacheCreation: number; cacheRead: number } | null }): Answer {
  const body = {
    id: 'msg_stub02',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5-20250929',
    content: [{ type: 'text', text: o.text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    ...(o.usage === null
      ? {}
      : {
          usage: {
            input_tokens: o.usage.input,
            cache_creation_input_tokens: o.usage.cacheCreation,
            cache_read_input_tokens: o.usage.cacheRead,
            output_tokens: 9,
          },
        }),
  };
  return { headers: { 'content-type': 'application/json' }, chunks: [JSON.stringify(body)] };
}

/** An OpenAI Chat Completions streamed answer; `promptTokens` null: no usage chunk. */
export function chatStream(o: { text: string; promptTokens: number | null; toolCall?: { id: string; name: string; arguments: string } }): Answer {
  const base = { id: 'chatcmpl-stub1', object: 'chat.completion.chunk', created: 1767225600, model: 'gpt-4.1-2025-04-14', system_fingerprint: 'fp_stub' };
  const chunks = [`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })}\n\n`];
  for (const piece of o.text.match(/.{1,10}/gs) ?? [])
    chunks.push(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] })}\n\n`);
  if (o.toolCall !== undefined) {
    const tc = { index: 0, id: o.toolCall.id, type: 'function', function: { name: o.toolCall.name, arguments: o.toolCall.arguments } };
    chunks.push(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { tool_calls: [tc] }, finish_reason: null }] })}\n\n`);
  }
  chunks.push(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: o.toolCall === undefined ? 'stop' : 'tool_calls' }] })}\n\n`);
  if (o.promptTokens !== null) {
    chunks.push(
      `data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: o.promptTokens, completion_tokens: 7, total_tokens: o.promptTokens + 7 } })}\n\n`,
    );
  }
  chunks.push('data: [DONE]\n\n');
  return { headers: SSE, chunks };
}

/** An OpenAI Responses API streamed answer. */
export function responsesStream(o: { text: string; inputTokens: number }): Answer {
  const response = { id: 'resp_stub1', object: 'response', created_at: 1767225600, status: 'in_progress', model: 'gpt-5-codex', output: [], usage: null };
  const chunks = [
    event('response.created', { type: 'response.created', sequence_number: 0, response }),
    event('response.in_progress', { type: 'response.in_progress', sequence_number: 1, response }),
  ];
  let n = 2;
  for (const piece of o.text.match(/.{1,10}/gs) ?? []) {
    chunks.push(
      event('response.output_text.delta', {
        type: 'response.output_text.delta',
        sequence_number: n++,
        item_id: 'msg_1',
        output_index: 0,
        content_index: 0,
        delta: piece,
      }),
    );
  }
  const done = {
    ...response,
    status: 'completed',
    output: [{ id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: o.text, annotations: [] }] }],
    usage: {
      input_tokens: o.inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: o.inputTokens + 5,
    },
  };
  chunks.push(event('response.completed', { type: 'response.completed', sequence_number: n, response: done }));
  return { headers: SSE, chunks };
}
