// Issue 39, the new doors: `context-health proxy` attacked (docs/proxy.md, docs/security.md
// "The proxy"). Bodies no walk survives, a gzip bomb, header injection and hop-by-hop tricks,
// a Host that tries to pick the upstream, and keys in every form on the error paths too:
// each forwarded as sent, counted, and never in the relay's data folder or a log. Stub
// upstreams and the relay on 127.0.0.1; every input generated here.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { upstreamUrl } from '../../src/proxy/routes.ts';
import { proxyFor, send, storedMessages, until } from '../proxy/helpers.ts';
import { anthropicJson, anthropicStream, chatStream, startStub, type Answer, type Received } from '../proxy/stubUpstream.ts';
import { testRelay } from '../relay/helpers.ts';
import { redactionPatterns } from '../../src/ingest/adapters/proxy/redact.ts';
import { nestedArrays, textBlocks } from './attacks/transcripts.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const SESSION = '5d2c1b0a-4e3f-4a8b-9c7d-6e5f4a3b2c1d';
const headers = { 'x-api-key': 'sk-ant-api03-HOSTILEKEY0123456789', 'anthropic-version': '2023-06-01', 'x-claude-code-session-id': SESSION };

async function setUp(answer: (r: Received) => Answer, maxCaptureBytes = 64 * 1024 * 1024) {
  const relay = await testRelay();
  cleanup.push(() => relay.close());
  const stub = await startStub(answer);
  cleanup.push(() => stub.close());
  const logs: string[] = [];
  const proxy = await proxyFor({ anthropic: stub.url, openai: stub.url, relay: relay.url, maxCaptureBytes }, logs);
  cleanup.push(() => proxy.close());
  return { relay, stub, proxy, logs };
}

const request = (messages: unknown): string => JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 100, stream: true, messages });

function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve) => {
    // written, not ended: a half-closed socket is closed by the server before a forwarded answer comes
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let out = '';
    socket.on('data', (d) => (out += d.toString()));
    socket.on('close', () => resolve(out));
    socket.on('error', () => resolve(out));
  });
}

function allFiles(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).map((n) => path.join(dir, n)).filter((f) => fs.statSync(f).isFile());
}

describe('bodies', () => {
  it('a request nested 100k deep, one of 300k blocks, a gzip bomb: each forwarded as sent, one input error naming why, the next call a turn', async () => {
    const { relay, stub, proxy } = await setUp(() => anthropicStream({ text: 'ok' }), 1024 * 1024);
    const first = request([{ role: 'user', content: 'first' }]);
    await send(proxy.url, '/v1/messages', first, headers);
    // the deep body: JSON.parse takes it; the adapter's walks would not
    const deep = request([{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'x' }] }]).replace('"x"', nestedArrays(100_000));
    await send(proxy.url, '/v1/messages', deep, headers);
    // 300k blocks in one message (about 7 MiB: over the 1 MiB capture limit, so the limit names it)
    const blocks = request([{ role: 'user', content: textBlocks(300_000) }]);
    await send(proxy.url, '/v1/messages', blocks, headers);
    // 64 MiB of zeros gzipped to about 64 KiB: decoded into at most the capture limit
    const bomb = zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
    await send(proxy.url, '/v1/messages', bomb, { ...headers, 'content-encoding': 'gzip' });
    expect(stub.received.map((r) => r.body.length)).toEqual([first, deep, blocks].map((b) => Buffer.byteLength(b)).concat(bomb.length));
    expect(stub.received[1]!.body.toString()).toBe(deep);
    const next = request([
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'next' },
    ]);
    await send(proxy.url, '/v1/messages', next, headers);
    await proxy.flush();
    await until(async () => (await storedMessages(relay.url, SESSION)).length >= 3, 8000);
    const stored = (await storedMessages(relay.url, SESSION)) as { type: string; input_errors?: { message: string }[] }[];
    const errors = stored.flatMap((m) => m.input_errors ?? []).map((e) => e.message);
    expect(errors).toEqual([
      expect.stringMatching(/^an Anthropic Messages request nests arrays and objects more than 64 levels deep/),
      'an Anthropic Messages request of more than 1 MiB (--max-capture-bytes) was forwarded but not captured: its turn is missing',
      'an Anthropic Messages request was forwarded but not captured: its gzip body decodes to more than 1 MiB (--max-capture-bytes)',
    ]);
    expect(stored.filter((m) => m.type === 'snapshot')).toHaveLength(2);
    expect(proxy.counts()).toMatchObject({ calls: 5, turns: 2 });
  }, 60_000);

  it('an OpenAI tool call whose "arguments" string nests 100k deep (with --redact, which walks them): one input error naming why, the calls around it turns', async () => {
    const relay = await testRelay();
    cleanup.push(() => relay.close());
    const stub = await startStub(() => chatStream({ text: 'ok', promptTokens: 50 }));
    cleanup.push(() => stub.close());
    const logs: string[] = [];
    const proxy = await proxyFor({ anthropic: stub.url, openai: stub.url, relay: relay.url, redact: redactionPatterns(['sk-[a-z]+']) }, logs);
    cleanup.push(() => proxy.close());
    const call = (args: string, turns: number): string => {
      const messages: unknown[] = [{ role: 'user', content: 'read app.py' }];
      for (let i = 0; i < turns; i++) {
        const fn = { name: 'read_file', arguments: i === 1 ? args : '{"path":"app.py"}' };
        messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: fn }] });
        messages.push({ role: 'tool', tool_call_id: `c${i}`, content: 'import sys' });
      }
      return JSON.stringify({ model: 'gpt-4.1', stream: true, messages });
    };
    const openai = { authorization: 'Bearer sk-test', session_id: 'deep-args' };
    for (const body of [call('', 1), call(nestedArrays(100_000), 2), call('{"path":"b.py"}', 3)]) await send(proxy.url, '/v1/chat/completions', body, openai);
    await proxy.flush();
    await until(async () => (await storedMessages(relay.url, 'deep-args')).length >= 3, 8000);
    const stored = (await storedMessages(relay.url, 'deep-args')) as { type: string; input_errors?: { message: string }[] }[];
    expect(stored.flatMap((m) => m.input_errors ?? []).map((e) => e.message)).toEqual([
      expect.stringMatching(/^an OpenAI Chat Completions request: a tool call's "arguments" nests arrays and objects more than 64 levels deep/),
    ]);
    expect(stored.filter((m) => m.type === 'snapshot')).toHaveLength(2);
    expect(logs.join('\n')).not.toContain('could not be made a turn');
    expect(proxy.counts()).toMatchObject({ calls: 3, turns: 2 });
  }, 60_000);
});

describe('headers', () => {
  it('CR, LF or NUL in a header is refused before anything is forwarded; hop-by-hop headers and those Connection names are dropped', async () => {
    const { stub, proxy } = await setUp(() => anthropicJson({ text: 'x', usage: null }));
    const port = proxy.port;
    for (const injected of ['X-A: a\rX-Injected: 1', 'X-A: a\nX-Injected: 1', 'X-A: a\u0000b', 'X-A : a']) {
      const out = await raw(port, `GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n${injected}\r\nConnection: close\r\n\r\n`);
      expect(out, JSON.stringify(injected)).toMatch(/^HTTP\/1\.1 400/);
    }
    // request smuggling: both framings at once
    expect(
      await raw(port, 'POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n'),
    ).toMatch(/^HTTP\/1\.1 400/);
    expect(stub.received).toHaveLength(0);
    await send(
      proxy.url,
      '/v1/models',
      '',
      { 'x-api-key': 'k', connection: 'x-drop-me', 'x-drop-me': '1', 'keep-alive': 'timeout=5', te: 'trailers', upgrade: 'h2c' },
      'GET',
    );
    const names = stub.received[0]!.rawHeaders.filter((_, i) => i % 2 === 0).map((h) => h.toLowerCase());
    for (const gone of ['x-drop-me', 'keep-alive', 'te', 'upgrade']) expect(names).not.toContain(gone);
  });

  it('the Host a request carries never chooses the upstream: the upstream gets its own', async () => {
    const { stub, proxy } = await setUp(() => anthropicJson({ text: 'x', usage: null }));
    // a loopback name with another port, a second Host, an absolute-form target: none picks where it goes
    await raw(proxy.port, `GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1:1\r\nConnection: close\r\n\r\n`);
    expect(await raw(proxy.port, `GET //169.254.169.254/latest HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 /);
    expect(await raw(proxy.port, `GET http://127.0.0.1:1/v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 400/);
    const stubHost = new URL(stub.url).host;
    expect(stub.received.length).toBeGreaterThan(0);
    for (const r of stub.received) {
      const hosts = r.rawHeaders.filter((_, i) => i % 2 === 0 && r.rawHeaders[i]!.toLowerCase() === 'host').length;
      expect(hosts).toBe(1);
      expect(r.rawHeaders[r.rawHeaders.findIndex((h) => h.toLowerCase() === 'host') + 1]).toBe(stubHost);
    }
    // the "//169.254…" target is a path on the configured upstream, not a host
    expect(stub.received.some((r) => r.url.endsWith('//169.254.169.254/latest'))).toBe(true);
  });

  it('--anthropic-upstream takes an http(s) base URL only: no credentials, query, fragment or other scheme', () => {
    for (const bad of [
      'file:///etc/passwd',
      'gopher://127.0.0.1:6379/',
      'http://user:pw@127.0.0.1/',
      'http://127.0.0.1/?x=1',
      'http://127.0.0.1/#x',
      'not a url',
    ]) {
      expect(upstreamUrl(bad, '--anthropic-upstream'), bad).toHaveProperty('error');
    }
    // an internal address is the user's own choice (a local gateway, a test stub): it is taken
    expect(upstreamUrl('http://10.0.0.5:4000/anthropic', '--anthropic-upstream')).toBeInstanceOf(URL);
  });
});

describe('keys on the error paths', () => {
  const keys = {
    'x-api-key': 'sk-ant-api03-ERRPATHKEY000000',
    authorization: 'Bearer sk-proj-ERRPATHBEARER0000',
    'proxy-authorization': 'Basic RVJSUEFUSEJBU0lD',
    cookie: 'sid=ERRPATHCOOKIE',
    'api-key': 'ERRPATHAZURE',
    'x-goog-api-key': 'ERRPATHGOOG',
    'anthropic-version': '2023-06-01',
    'x-claude-code-session-id': SESSION,
  };
  const secrets = ['ERRPATHKEY', 'ERRPATHBEARER', 'RVJSUEFUSEJBU0lD', 'ERRPATHCOOKIE', 'ERRPATHAZURE', 'ERRPATHGOOG', 'ERRPATHQUERY'];

  it('an upstream error, an unreachable upstream, a body over the limit, malformed JSON, a bad header: no key in the relay, its data folder or a log', async () => {
    const { relay, proxy, logs } = await setUp(
      (r) => (r.url.includes('fail') ? { status: 401, chunks: ['{"error":"bad key"}'] } : anthropicStream({ text: 'ok' })),
      4096,
    );
    await send(proxy.url, '/v1/messages?key=ERRPATHQUERY', request([{ role: 'user', content: 'ok' }]), keys);
    await send(proxy.url, '/fail/v1/messages?key=ERRPATHQUERY', request([{ role: 'user', content: 'ok' }]), keys);
    await send(proxy.url, '/v1/messages?key=ERRPATHQUERY', request([{ role: 'user', content: 'x'.repeat(10_000) }]), keys);
    await send(proxy.url, '/v1/messages?key=ERRPATHQUERY', '{"model": "cut', keys);
    await send(proxy.url, '/v1/messages?key=ERRPATHQUERY', request([{ role: 'user', content: 'ok' }]), { ...keys, 'content-encoding': 'gzip' });
    // an upstream that is down: its log line names the path, not the query
    const down = await proxyFor({ anthropic: 'http://127.0.0.1:9', openai: 'http://127.0.0.1:9', relay: relay.url }, logs);
    cleanup.push(() => down.close());
    expect((await send(down.url, '/v1/messages?key=ERRPATHQUERY', request([{ role: 'user', content: 'ok' }]), keys)).status).toBe(502);
    await proxy.flush();
    await until(async () => (await storedMessages(relay.url, SESSION)).length >= 2, 8000);
    expect(logs.some((l) => l.includes('could not reach'))).toBe(true);
    const stored = allFiles(relay.dataDir).map((f) => fs.readFileSync(f, 'latin1'));
    for (const s of secrets) for (const text of [...stored, ...logs, ...relay.logs]) expect(text).not.toContain(s);
  }, 30_000);
});
