// `context-health proxy` (docs/proxy.md): stub upstreams on 127.0.0.1 speaking each API's wire
// format (stubUpstream.ts), a real relay (test/relay/helpers.ts), and the proxy between an
// HTTP client and the stubs. Checked: answers byte for byte (status, headers, body; streamed
// chunk by chunk), request bodies forwarded as sent, the turns the relay stored, errors passed
// through, cancellation, and the keys never reaching the relay or the logs.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkTranscript } from '../../src/cli/check.ts';
import { tempDir, testRelay } from '../relay/helpers.ts';
import { endToEndHeaders, proxyFor, send, storedMessages, until } from './helpers.ts';
import { anthropicJson, anthropicStream, chatStream, responsesStream, startStub, type Answer, type Received } from './stubUpstream.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const KEY = 'sk-ant-api03-SECRETKEYSECRETKEY0123456789';
const OPENAI_KEY = 'sk-proj-OPENAISECRET0123456789abcdef';
const SESSION = '3f1b0c9e-4d2a-4b8e-9f00-0123456789ab';

async function setUp(answer: (r: Received) => Answer, options: Parameters<typeof proxyFor>[0] extends infer O ? Partial<O> : never = {}) {
  const relay = await testRelay();
  cleanup.push(() => relay.close());
  const stub = await startStub(answer);
  cleanup.push(() => stub.close());
  const logs: string[] = [];
  const proxy = await proxyFor({ anthropic: stub.url, openai: stub.url, relay: relay.url, ...options }, logs);
  cleanup.push(() => proxy.close());
  return { relay, stub, proxy, logs };
}

const tools = [
  { name: 'Read', description: 'Reads a file from the local filesystem.', input_schema: { type: 'object', properties: { file_path: { type: 'string' } } } },
];

function claudeRequest(messages: unknown[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    model: 'claude-sonnet-4-5-20250929',
    max_tokens: 32000,
    stream: true,
    system: [{ type: 'text', text: 'You are Claude Code, an interactive CLI tool.' }],
    tools,
    metadata: { user_id: `user_abc_account_00000000-0000-0000-0000-000000000000_session_${SESSION}` },
    messages,
    ...extra,
  });
}

const anthropicHeaders = { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'x-claude-code-session-id': SESSION };

describe('context-health proxy: Anthropic', () => {
  it('streams the answer byte for byte and chunk by chunk, and each call becomes a turn of the agent session', async () => {
    const { relay, stub, proxy, logs } = await setUp(() => ({
      ...anthropicStream({ text: 'I will read the file now.', toolUse: { id: 'toolu_01', name: 'Read', input: { file_path: '/repo/src/a.ts' } } }),
      delayMs: 5,
    }));
    const first = [{ role: 'user', content: [{ type: 'text', text: 'Fix the failing test in src/a.ts' }] }];
    const reply = await send(proxy.url, '/v1/messages?beta=true', claudeRequest(first), anthropicHeaders);
    expect(reply.status).toBe(200);
    expect(reply.body.equals(stub.sent[0]!)).toBe(true);
    // the same request sent to the upstream directly: the same status, headers and bytes
    const direct = await send(stub.url, '/v1/messages?beta=true', claudeRequest(first), anthropicHeaders);
    expect(direct.status).toBe(reply.status);
    expect(endToEndHeaders(reply.rawHeaders)).toEqual(endToEndHeaders(direct.rawHeaders));
    expect(direct.body.equals(reply.body)).toBe(true);
    // streamed: the events arrive in many chunks, not one buffered body
    expect(reply.chunkTimes.length).toBeGreaterThan(5);
    // the request reached the upstream as sent: path, query, body bytes, the key
    expect(stub.received[0]!.url).toBe('/v1/messages?beta=true');
    expect(stub.received[0]!.body.toString()).toBe(claudeRequest(first));
    expect(stub.received[0]!.rawHeaders).toContain(KEY);
    // the turn reaches the relay within a second of the answer's end
    await until(async () => (await storedMessages(relay.url, SESSION)).length === 2, 1000);

    const second = [
      ...first,
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'I will read the file now.' },
          { type: 'tool_use', id: 'toolu_01', name: 'Read', input: { file_path: '/repo/src/a.ts' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'export const a = 1;' }] },
    ];
    await send(proxy.url, '/v1/messages', claudeRequest(second), anthropicHeaders);
    await until(async () => (await storedMessages(relay.url, SESSION)).length === 3);
    const [header, t1, t2] = (await storedMessages(relay.url, SESSION)) as [Record<string, unknown>, Snap, Snap];
    expect(header).toMatchObject({ type: 'session', session_id: SESSION, source: 'proxy', scores: 'reference', title: 'Fix the failing test in src/a.ts' });
    expect(t1.turn).toBe(1);
    expect(t1.model).toBe('claude-sonnet-4-5-20250929');
    expect(t1.spans.map((s) => [s.role, s.kind, s.label])).toEqual([
      ['system', 'text', 'system prompt'],
      ['system', 'tool_definition', 'tool definition: Read'],
      ['user', 'text', 'Fix the failing test in src/a.ts'],
    ]);
    // tokens_total: input + cache creation + cache read of the usage
    expect(t1.spans.reduce((a, s) => a + (s.tokens ?? 0), 0)).toBe(1200 + 300 + 5000);
    expect(t1.spans[2]!.pinned).toBe(true);
    expect(t1.spans.every((s) => typeof s.score === 'number')).toBe(true);
    expect(t2.turn).toBe(2);
    expect(t2.spans.map((s) => s.label)).toEqual([
      'system prompt',
      'tool definition: Read',
      'Fix the failing test in src/a.ts',
      'assistant: I will read the file now.',
      'Read /repo/src/a.ts',
      'result of Read /repo/src/a.ts',
    ]);
    expect(t2.spans.at(-1)).toMatchObject({ role: 'tool', kind: 'tool_result', tool: 'Read', text: 'export const a = 1;' });
    // the same messages keep their span ids from call to call
    expect(t2.spans.slice(0, 3).map((s) => s.span_id)).toEqual(t1.spans.map((s) => s.span_id));
    expect(t2.pruned).toBeUndefined();
    expect(proxy.counts()).toMatchObject({ calls: 2, turns: 2, malformed: 0 });
    expect(logs).toEqual([expect.stringContaining('connected to the relay')]);
  });

  it('reads usage from a JSON answer, and estimates the tokens only when the answer has none', async () => {
    let usage: { input: number; cacheCreation: number; cacheRead: number } | null = { input: 10, cacheCreation: 0, cacheRead: 90 };
    const { relay, stub, proxy } = await setUp(() => anthropicJson({ text: 'Done.', usage }));
    const body = claudeRequest([{ role: 'user', content: 'Say done' }], { stream: false });
    const a = await send(proxy.url, '/v1/messages', body, anthropicHeaders);
    expect(a.body.equals(stub.sent[0]!)).toBe(true);
    usage = null;
    await send(proxy.url, '/v1/messages', body, anthropicHeaders);
    await until(async () => (await storedMessages(relay.url, SESSION)).length === 3);
    const [, t1, t2] = (await storedMessages(relay.url, SESSION)) as [unknown, Snap, Snap];
    expect(t1.spans.reduce((x, s) => x + s.tokens!, 0)).toBe(100);
    expect(t1.proxy).toEqual({ api: 'anthropic', tokens: 'usage' });
    expect(t2.spans.every((s) => s.tokens === undefined)).toBe(true);
    expect(t2.proxy).toEqual({ api: 'anthropic', tokens: 'estimated' });
  });

  it('passes errors through as the upstream sent them (429 with retry-after) and makes no turn of them', async () => {
    const error = JSON.stringify({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' },
    });
    const { relay, stub, proxy } = await setUp(() => ({
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '17', 'anthropic-ratelimit-tokens-remaining': '0' },
      chunks: [error],
    }));
    const reply = await send(proxy.url, '/v1/messages', claudeRequest([{ role: 'user', content: 'hello' }]), anthropicHeaders);
    expect(reply.status).toBe(429);
    expect(reply.headers['retry-after']).toBe('17');
    expect(reply.headers['anthropic-ratelimit-tokens-remaining']).toBe('0');
    expect(reply.body.equals(stub.sent[0]!)).toBe(true);
    await proxy.flush();
    expect(proxy.counts()).toMatchObject({ calls: 1, turns: 0, upstreamErrors: 1 });
    expect(await storedMessages(relay.url, SESSION)).toEqual([]);
  });

  it('a compaction (the messages replaced by a summary) is one compaction record with the audit, and the summarising call is no turn', async () => {
    const { relay, proxy } = await setUp((r) => {
      const body = JSON.parse(r.body.toString()) as { messages: unknown[] };
      return anthropicStream({ text: 'ok', usage: { input: 1000 * body.messages.length, cacheCreation: 0, cacheRead: 0 } });
    });
    const read = (id: string, file: string) => [
      { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: file } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: `contents of ${file}` }] },
    ];
    const history = [
      { role: 'user', content: 'Refactor the session store to use streams' },
      ...read('t1', '/repo/src/store.ts'),
      ...read('t2', '/repo/src/keep.ts'),
    ];
    await send(proxy.url, '/v1/messages', claudeRequest(history.slice(0, 1)), anthropicHeaders);
    await send(proxy.url, '/v1/messages', claudeRequest(history.slice(0, 3)), anthropicHeaders);
    await send(proxy.url, '/v1/messages', claudeRequest(history), anthropicHeaders);
    // Claude Code asks for the summary: the whole conversation and its summary prompt
    const ask = {
      role: 'user',
      content:
        "Your task is to create a detailed summary of the conversation so far, paying close attention to the user's explicit requests and your previous actions.",
    };
    await send(proxy.url, '/v1/messages', claudeRequest([...history, ask]), anthropicHeaders);
    const summary =
      'This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nThe user asked to refactor the session store. keep.ts was read.';
    await send(proxy.url, '/v1/messages', claudeRequest([{ role: 'user', content: summary }]), anthropicHeaders);
    await send(proxy.url, '/v1/messages', claudeRequest([{ role: 'user', content: summary }, ...read('t3', '/repo/src/store.ts')]), anthropicHeaders);
    await until(async () => (await storedMessages(relay.url, SESSION)).length === 6);
    const snaps = (await storedMessages(relay.url, SESSION)).slice(1) as Snap[];
    expect(snaps.map((s) => s.turn)).toEqual([1, 2, 3, 4, 5]);
    const c = snaps[3]!;
    const before = snaps[2]!;
    const gone = before.spans.filter((s) => s.role !== 'system').map((s) => s.span_id);
    expect(c.compaction).toMatchObject({ kind: 'compact', trigger: null, pre_tokens: 6000, replaced: gone });
    expect(c.pruned).toEqual(gone);
    expect(c.archived).toEqual(gone);
    const summarySpan = c.spans.find((s) => s.role === 'summary')!;
    expect(summarySpan.label).toBe('compaction summary');
    expect(summarySpan.derived_from).toEqual(gone);
    expect(c.compaction!.summary).toEqual([summarySpan.span_id]);
    const items = (c.compaction!.items as { kind: string; text: string; status: string }[]).map((i) => [i.kind, i.text, i.status]);
    expect(items).toEqual([
      ['user_prompt', 'Refactor the session store to use streams', 'paraphrased'],
      ['file', '/repo/src/store.ts', 'lost'],
      ['file', '/repo/src/keep.ts', 'kept'],
    ]);
    // the agent went back for the lost file: the refetch is reported
    expect(snaps[4]!.refetched).toEqual([{ compaction_turn: 4, kind: 'file', text: '/repo/src/store.ts', turn: 4 }]);
    // the stored session analyses as the other adapters' do: §8.1's reference scope, §8.3's record, §8.7's window
    const file = path.join(tempDir('ch-proxy-'), 'stored.jsonl');
    fs.writeFileSync(file, (await storedMessages(relay.url, SESSION)).map((m) => JSON.stringify(m)).join('\n') + '\n');
    const { report } = await checkTranscript(file, { userThresholds: {} });
    const session = report.sessions[0]!;
    expect(session.not_applicable).toBeDefined();
    expect(session.compactions?.map((x) => [x.turn, x.tokens_before, x.tokens_after, x.agent_tokens_before, x.items.length])).toEqual([
      [4, 5000, 1000, 6000, 3],
    ]);
    expect(session.compactions![0]!.items.find((i) => i.kind === 'file' && i.status === 'lost')?.confirmed).toBe(true);
    expect(session.context_window).toMatchObject({ tokens: 200000, source: 'model' });
    expect(report.input_errors).toEqual([]);
  });

  it('forwards a gzip request body as received and captures a decoded copy', async () => {
    const { relay, stub, proxy } = await setUp(() => anthropicStream({ text: 'hi' }));
    const { gzipSync } = await import('node:zlib');
    const body = gzipSync(Buffer.from(claudeRequest([{ role: 'user', content: 'compressed prompt' }])));
    await send(proxy.url, '/v1/messages', body, { ...anthropicHeaders, 'content-encoding': 'gzip' });
    expect(stub.received[0]!.body.equals(body)).toBe(true);
    await until(async () => (await storedMessages(relay.url, SESSION)).length === 2);
    const [, t1] = (await storedMessages(relay.url, SESSION)) as [unknown, Snap];
    expect(t1.spans.at(-1)!.text).toBe('compressed prompt');
  });
});

describe('context-health proxy: OpenAI', () => {
  it('Chat Completions: streamed with a usage chunk, tool calls and tool messages; the answer byte for byte', async () => {
    const { relay, stub, proxy } = await setUp(() =>
      chatStream({ text: 'Let me look.', promptTokens: 4321, toolCall: { id: 'call_1', name: 'read_file', arguments: '{"path":"app.py"}' } }),
    );
    const body = JSON.stringify({
      model: 'gpt-4.1',
      stream: true,
      stream_options: { include_usage: true },
      user: 'aider-run-7',
      messages: [
        { role: 'system', content: 'Act as an expert software developer.' },
        { role: 'user', content: 'Add a --verbose flag to app.py' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'read_file', arguments: '{"path":"app.py"}' } }] },
        { role: 'tool', tool_call_id: 'call_0', content: 'import sys' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'and this screenshot' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          ],
        },
      ],
      tools: [{ type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object' } } }],
    });
    const reply = await send(proxy.url, '/v1/chat/completions', body, { authorization: `Bearer ${OPENAI_KEY}` });
    expect(reply.body.equals(stub.sent[0]!)).toBe(true);
    await until(async () => (await storedMessages(relay.url, 'aider-run-7')).length === 2);
    const [header, t1] = (await storedMessages(relay.url, 'aider-run-7')) as [Record<string, unknown>, Snap];
    expect(header).toMatchObject({ source: 'proxy', scores: 'reference', api: 'openai-chat' });
    expect(t1.model).toBe('gpt-4.1-2025-04-14');
    expect(t1.spans.map((s) => [s.role, s.kind, s.label])).toEqual([
      ['system', 'text', 'system prompt'],
      ['system', 'tool_definition', 'tool definition: read_file'],
      ['user', 'text', 'Add a --verbose flag to app.py'],
      ['assistant', 'tool_use', 'read_file'],
      ['tool', 'tool_result', 'result of read_file'],
      ['user', 'text', 'and this screenshot'],
      ['user', 'image', '[image]'],
    ]);
    // the image's data is not kept
    expect(JSON.stringify(t1)).not.toContain('AAAA');
    expect(t1.spans.reduce((a, s) => a + s.tokens!, 0)).toBe(4321);
  });

  it('Chat Completions without a usage chunk: the tokens are estimated', async () => {
    const { relay, proxy } = await setUp(() => chatStream({ text: 'Sure.', promptTokens: null }));
    const body = JSON.stringify({ model: 'gpt-4.1', stream: true, messages: [{ role: 'user', content: 'no usage please' }] });
    await send(proxy.url, '/v1/chat/completions', body, { authorization: `Bearer ${OPENAI_KEY}` });
    await proxy.flush();
    const sid = Object.keys(await sessions(relay.url))[0]!;
    expect(sid).toMatch(/^proxy-[0-9a-f]{16}$/);
    const [, t1] = (await storedMessages(relay.url, sid)) as [unknown, Snap];
    expect(t1.proxy).toEqual({ api: 'openai-chat', tokens: 'estimated' });
  });

  it('Responses API: input items, the usage of response.completed, the session from prompt_cache_key', async () => {
    const { relay, stub, proxy } = await setUp(() => responsesStream({ text: 'Running the tests.', inputTokens: 2222 }));
    const body = JSON.stringify({
      model: 'gpt-5-codex',
      instructions: 'You are Codex, based on GPT-5.',
      stream: true,
      prompt_cache_key: 'codex-conv-1',
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Run the test suite' }] },
        { type: 'function_call', name: 'shell', arguments: '{"command":["bash","-lc","npm test"]}', call_id: 'c1' },
        { type: 'function_call_output', call_id: 'c1', output: 'Tests: 3 passed' },
        { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Tests pass.' }], encrypted_content: 'gAAAA' },
      ],
      tools: [{ type: 'function', name: 'shell', description: 'Runs a shell command', parameters: { type: 'object' } }],
    });
    const reply = await send(proxy.url, '/v1/responses', body, { authorization: `Bearer ${OPENAI_KEY}` });
    expect(reply.body.equals(stub.sent[0]!)).toBe(true);
    await until(async () => (await storedMessages(relay.url, 'codex-conv-1')).length === 2);
    const [, t1] = (await storedMessages(relay.url, 'codex-conv-1')) as [unknown, Snap];
    expect(t1.spans.map((s) => [s.role, s.kind, s.label])).toEqual([
      ['system', 'text', 'system prompt'],
      ['system', 'tool_definition', 'tool definition: shell'],
      ['user', 'text', 'Run the test suite'],
      ['assistant', 'tool_use', 'shell'],
      ['tool', 'tool_result', 'result of shell'],
      ['assistant', 'thinking', 'thinking'],
    ]);
    expect(t1.spans.reduce((a, s) => a + s.tokens!, 0)).toBe(2222);
    expect(t1.request_id).toBe('resp_stub1');
  });
});

describe('context-health proxy: failures and hostile input', () => {
  it('a client that disconnects mid-stream cancels the upstream request', async () => {
    const { stub, proxy } = await setUp(() => ({ ...anthropicStream({ text: 'a long answer '.repeat(20) }), delayMs: 10, hangAfter: 3 }));
    const http = await import('node:http');
    const u = new URL(proxy.url);
    await new Promise<void>((resolve) => {
      const req = http.request({ hostname: u.hostname, port: u.port, path: '/v1/messages', method: 'POST', headers: anthropicHeaders }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', () => undefined);
      req.end(claudeRequest([{ role: 'user', content: 'go' }]));
    });
    await until(() => stub.received[0]?.closedEarly === true);
    await until(() => proxy.counts().abandoned === 1);
    expect(proxy.counts().turns).toBe(0);
  });

  it('an upstream that breaks off mid-stream cuts the answer the client gets the same way, after the bytes it sent', async () => {
    const { stub, proxy } = await setUp(() => ({ ...anthropicStream({ text: 'a long answer '.repeat(20) }), cutAfter: 4 }));
    const http = await import('node:http');
    const u = new URL(proxy.url);
    const got = await new Promise<{ bytes: Buffer; cut: boolean }>((resolve) => {
      const req = http.request({ hostname: u.hostname, port: u.port, path: '/v1/messages', method: 'POST', headers: anthropicHeaders }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ bytes: Buffer.concat(chunks), cut: false }));
        res.on('error', () => resolve({ bytes: Buffer.concat(chunks), cut: true }));
        res.on('aborted', () => resolve({ bytes: Buffer.concat(chunks), cut: true }));
      });
      req.end(claudeRequest([{ role: 'user', content: 'go' }]));
    });
    expect(got.cut).toBe(true);
    expect(got.bytes.equals(stub.sent[0]!)).toBe(true);
    await until(() => proxy.counts().abandoned === 1);
    expect(proxy.counts().turns).toBe(0);
  });

  it('an upstream that is down is a 502 with one sentence', async () => {
    const relay = await testRelay();
    cleanup.push(() => relay.close());
    const proxy = await proxyFor({ anthropic: 'http://127.0.0.1:9', openai: 'http://127.0.0.1:9', relay: relay.url });
    cleanup.push(() => proxy.close());
    const reply = await send(proxy.url, '/v1/messages', claudeRequest([{ role: 'user', content: 'x' }]), anthropicHeaders);
    expect(reply.status).toBe(502);
    const message = (JSON.parse(reply.body.toString()) as { error: { message: string } }).error.message;
    expect(message).toMatch(/^context-health proxy could not reach the upstream http:\/\/127\.0\.0\.1:9 \(ECONNREFUSED\)\.$/);
  });

  it('malformed JSON is forwarded and counted, with no turn; other paths pass through as they are', async () => {
    const { stub, proxy } = await setUp((r) =>
      r.url.startsWith('/v1/models') ? { headers: { 'content-type': 'application/json' }, chunks: ['{"data":[]}'] } : anthropicJson({ text: 'x', usage: null }),
    );
    await send(proxy.url, '/v1/messages', '{"model": "claude-', anthropicHeaders);
    expect(stub.received[0]!.body.toString()).toBe('{"model": "claude-');
    const models = await send(proxy.url, '/v1/models?limit=5', '', { 'x-api-key': KEY }, 'GET');
    expect(models.body.toString()).toBe('{"data":[]}');
    expect(stub.received[1]!.url).toBe('/v1/models?limit=5');
    await proxy.flush();
    expect(proxy.counts()).toMatchObject({ calls: 1, turns: 0, malformed: 1 });
  });

  it('a request over the capture limit is forwarded, and is an input error of its session naming the limit', async () => {
    const { relay, stub, proxy } = await setUp(() => anthropicStream({ text: 'ok' }), { maxCaptureBytes: 4096 });
    await send(proxy.url, '/v1/messages', claudeRequest([{ role: 'user', content: 'small' }]), anthropicHeaders);
    const big = claudeRequest([{ role: 'user', content: 'x'.repeat(10_000) }]);
    await send(proxy.url, '/v1/messages', big, anthropicHeaders);
    expect(stub.received[1]!.body.toString()).toBe(big);
    await send(
      proxy.url,
      '/v1/messages',
      claudeRequest([
        { role: 'user', content: 'small' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'again' },
      ]),
      anthropicHeaders,
    );
    await until(async () => (await storedMessages(relay.url, SESSION)).length === 3);
    const t2 = (await storedMessages(relay.url, SESSION))[2] as Snap;
    expect(t2.input_errors).toEqual([
      { message: 'an Anthropic Messages request of more than 4 KiB (--max-capture-bytes) was forwarded but not captured: its turn is missing' },
    ]);
    expect(proxy.counts().overLimit).toBe(1);
  });

  it('a relay that is down: calls still pass, the turns are queued and sent when it is back', async () => {
    const stub = await startStub(() => anthropicStream({ text: 'ok' }));
    cleanup.push(() => stub.close());
    const first = await testRelay();
    const url = first.url;
    const dataDir = first.dataDir;
    await first.close();
    const proxy = await proxyFor({ anthropic: stub.url, openai: stub.url, relay: url });
    cleanup.push(() => proxy.close());
    const r = await send(proxy.url, '/v1/messages', claudeRequest([{ role: 'user', content: 'while the relay is down' }]), anthropicHeaders);
    expect(r.status).toBe(200);
    await until(() => proxy.counts().queued === 2);
    const relay = await testRelay({ port: Number(new URL(url).port), dataDir });
    cleanup.push(() => relay.close());
    await until(async () => (await storedMessages(relay.url, SESSION)).length === 2, 8000);
  });

  it('past the queue bound, turns are dropped and counted', async () => {
    const stub = await startStub(() => anthropicStream({ text: 'ok' }));
    cleanup.push(() => stub.close());
    const proxy = await proxyFor({ anthropic: stub.url, openai: stub.url, relay: 'http://127.0.0.1:9/', maxQueued: 2 });
    cleanup.push(() => proxy.close());
    let messages: unknown[] = [{ role: 'user', content: 'one' }];
    for (let i = 0; i < 4; i++) {
      await send(proxy.url, '/v1/messages', claudeRequest(messages), anthropicHeaders);
      messages = [...messages, { role: 'assistant', content: `a${i}` }, { role: 'user', content: `u${i}` }];
    }
    await until(() => proxy.counts().turns === 4);
    // the header and one snapshot wait; the other three snapshots were dropped
    expect(proxy.counts()).toMatchObject({ queued: 2, dropped: 3 });
  });

  it('refuses an absolute URL (no open proxy), a foreign Host, and a header it cannot write', async () => {
    const { stub, proxy } = await setUp(() => anthropicJson({ text: 'x', usage: null }));
    const net = await import('node:net');
    const u = new URL(proxy.url);
    const raw = (text: string) =>
      new Promise<string>((resolve) => {
        const socket = net.connect(Number(u.port), u.hostname, () => socket.end(text));
        let out = '';
        socket.on('data', (d) => (out += d.toString()));
        socket.on('close', () => resolve(out));
        socket.on('error', () => resolve(out));
      });
    expect(await raw('GET http://169.254.169.254/latest/meta-data HTTP/1.1\r\nHost: 169.254.169.254\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
    expect(await raw('GET /v1/models HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 403/);
    // a bare CR inside a header value: refused before anything is forwarded
    expect(await raw('GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Evil: a\rInjected: yes\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
    expect(stub.received).toHaveLength(0);
  });

  it("keys in every header form reach the upstream and nowhere else: not the relay's data, not the logs", async () => {
    const { relay, stub, proxy, logs } = await setUp(() => anthropicStream({ text: 'ok' }));
    const keyHeaders = {
      'x-api-key': KEY,
      authorization: `Bearer ${OPENAI_KEY}`,
      'proxy-authorization': 'Basic cHJveHlTRUNSRVQ=',
      cookie: 'session=COOKIESECRET',
      'api-key': 'AZURESECRET',
      'x-goog-api-key': 'GOOGSECRET',
      'anthropic-version': '2023-06-01',
      'x-claude-code-session-id': SESSION,
    };
    await send(proxy.url, '/v1/messages?key=QUERYSECRET', claudeRequest([{ role: 'user', content: 'hello' }]), keyHeaders);
    await send(proxy.url, '/v1/chat/completions', JSON.stringify({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] }), keyHeaders);
    await proxy.flush();
    const secrets = [KEY, OPENAI_KEY, 'cHJveHlTRUNSRVQ=', 'COOKIESECRET', 'AZURESECRET', 'GOOGSECRET', 'QUERYSECRET'];
    for (const s of secrets) expect(stub.received[0]!.rawHeaders.join('\n') + stub.received[0]!.url).toContain(s);
    const stored = allFiles(relay.dataDir).map((f) => fs.readFileSync(f, 'utf8'));
    expect(stored.join('').length).toBeGreaterThan(0);
    for (const s of secrets) {
      for (const text of [...stored, ...logs, ...relay.logs]) expect(text).not.toContain(s);
    }
  });

  it('--token: a client must send it in x-context-health-token, which is not forwarded', async () => {
    const { stub, proxy } = await setUp(() => anthropicJson({ text: 'x', usage: null }), { token: 'proxy-token-1' });
    const body = claudeRequest([{ role: 'user', content: 'hi' }]);
    expect((await send(proxy.url, '/v1/messages', body, anthropicHeaders)).status).toBe(401);
    expect((await send(proxy.url, '/v1/messages', body, { ...anthropicHeaders, 'x-context-health-token': 'wrong' })).status).toBe(401);
    expect(stub.received).toHaveLength(0);
    expect((await send(proxy.url, '/v1/messages', body, { ...anthropicHeaders, 'x-context-health-token': 'proxy-token-1' })).status).toBe(200);
    expect(stub.received[0]!.rawHeaders.map((h) => h.toLowerCase())).not.toContain('x-context-health-token');
  });

  it('--redact masks matches in span texts before they leave the proxy (the upstream gets them as sent)', async () => {
    const { relay, stub, proxy } = await setUp(() => anthropicStream({ text: 'ok' }), { redact: [/ghp_[A-Za-z0-9]+/gu] });
    await send(proxy.url, '/v1/messages', claudeRequest([{ role: 'user', content: 'push with token ghp_abc123XYZ please' }]), anthropicHeaders);
    expect(stub.received[0]!.body.toString()).toContain('ghp_abc123XYZ');
    await until(async () => (await storedMessages(relay.url, SESSION)).length === 2);
    const all = JSON.stringify(await storedMessages(relay.url, SESSION));
    expect(all).not.toContain('ghp_abc123XYZ');
    expect(all).toContain('push with token [redacted] please');
  });
});

interface SnapSpan {
  span_id: string;
  text: string;
  role: string;
  kind: string;
  label: string;
  tokens?: number;
  score: number | null;
  pinned?: boolean;
  tool?: string;
  derived_from?: string[];
}
interface Snap {
  turn: number;
  model?: string;
  request_id?: string;
  spans: SnapSpan[];
  pruned?: string[];
  archived?: string[];
  proxy?: unknown;
  compaction?: { summary: string[]; items: unknown[] } & Record<string, unknown>;
  refetched?: unknown;
  input_errors?: unknown;
}

async function sessions(relayUrl: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${relayUrl}api/sessions`);
  const list = (await res.json()) as { session_id: string }[] | { sessions: { session_id: string }[] };
  const rows = Array.isArray(list) ? list : list.sessions;
  return Object.fromEntries(rows.map((r) => [r.session_id, r]));
}

function allFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.join(d.parentPath, d.name));
}
