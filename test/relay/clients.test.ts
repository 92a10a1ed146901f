// The harness clients against the real relay on loopback: the TypeScript client and the
// Python client (run with python3) stream generated sessions through a proxy that keeps
// dropping the connection after the relay stored a message but before its ack got back,
// so every retry path is taken; the logs still hold each turn exactly once.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HarnessClient, RelayRejected, textSha256, type Ack } from '../../src/client/harness.ts';
import { nodeSha256 } from '../../src/node/platform.ts';
import type { Relay } from '../../src/server/relay.ts';
import { generatedSession, ROOT, run, tempDir, testRelay, transcriptLines } from './helpers.ts';

const relays: Relay[] = [];
const proxies: FlakyProxy[] = [];
afterEach(async () => {
  for (const p of proxies.splice(0)) p.close();
  await Promise.all(relays.splice(0).map((r) => r.close()));
});

/**
 * Forwards to the relay; `drop()` first withholds the relay's answers for a moment (the
 * relay goes on storing what it receives), then cuts every connection.
 */
class FlakyProxy {
  readonly server: net.Server;
  private pairs = new Set<[net.Socket, net.Socket]>();
  private withhold = false;
  drops = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly target: number) {
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.target, '127.0.0.1');
      const pair: [net.Socket, net.Socket] = [client, upstream];
      this.pairs.add(pair);
      client.on('data', (d) => upstream.write(d));
      upstream.on('data', (d) => {
        if (!this.withhold) client.write(d);
      });
      const end = (): void => {
        client.destroy();
        upstream.destroy();
        this.pairs.delete(pair);
      };
      client.on('close', end).on('error', end);
      upstream.on('close', end).on('error', end);
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    return `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}/`;
  }

  /** Drops the connections every `everyMs`, answers withheld for `withholdMs` before each drop. */
  start(everyMs: number, withholdMs: number): void {
    const tick = (): void => {
      this.withhold = true;
      setTimeout(() => {
        for (const [a, b] of this.pairs) {
          a.destroy();
          b.destroy();
        }
        this.pairs.clear();
        this.withhold = false;
        this.drops++;
        this.timer = setTimeout(tick, everyMs);
      }, withholdMs);
    };
    this.timer = setTimeout(tick, everyMs);
  }

  close(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    for (const [a, b] of this.pairs) {
      a.destroy();
      b.destroy();
    }
    this.server.close();
  }
}

async function flakyRelay(): Promise<{ relay: Awaited<ReturnType<typeof testRelay>>; proxy: FlakyProxy; proxyUrl: string }> {
  const relay = await testRelay();
  relays.push(relay);
  const proxy = new FlakyProxy(relay.port);
  proxies.push(proxy);
  return { relay, proxy, proxyUrl: await proxy.listen() };
}

describe('TypeScript client', () => {
  it('streams a generated session through dropped connections: every turn stored once, in order', async () => {
    const { relay, proxy, proxyUrl } = await flakyRelay();
    const lines = generatedSession('ts-run', 400, 30, 120);
    const client = new HarnessClient({ url: proxyUrl, maxInFlight: 16, initialBackoffMs: 10, maxBackoffMs: 100 });
    proxy.start(60, 15);
    const acks: Ack[] = [];
    const inFlight: Promise<Ack>[] = [];
    for (const line of lines) {
      inFlight.push(client.send(line));
      if (inFlight.length >= 16) acks.push(await inFlight.shift()!);
      // pace the harness a little so the drops land mid-stream
      if (acks.length % 20 === 0) await new Promise((r) => setTimeout(r, 5));
    }
    acks.push(...(await Promise.all(inFlight)));
    await client.close();
    proxy.close();
    expect(proxy.drops).toBeGreaterThan(2);
    expect(acks.map((a) => a.seq)).toEqual(lines.map((_, i) => i + 1));
    expect(acks.some((a) => a.duplicate)).toBe(true); // stored before the drop, resent, recognised
    const stored = await transcriptLines(relay.url, 'ts-run');
    expect(stored.map((l) => JSON.parse(l) as unknown)).toEqual(lines.map((l) => JSON.parse(l) as unknown));
  });

  it('rejects what the relay would reject before sending it, and a relay rejection does not stop the stream', async () => {
    const relay = await testRelay();
    relays.push(relay);
    const client = new HarnessClient({ url: relay.url });
    const span = { span_id: 'a', text: 'x', score: Number.NaN, text_sha256: null };
    await expect(client.snapshot({ session_id: 'v', turn: 1, spans: [span] })).rejects.toThrow(/span 0 \("a"\) score must be a finite number/);
    await expect(client.snapshot({ session_id: 'v', turn: 2, spans: [] })).resolves.toMatchObject({ seq: 1, turn: 2 });
    const err = await client.snapshot({ session_id: 'v', turn: 1, spans: [] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RelayRejected);
    expect((err as RelayRejected).reason).toMatch(/turn 1 of session "v" does not increase/);
    await expect(client.snapshot({ session_id: 'v', turn: 3, spans: [] })).resolves.toMatchObject({ seq: 2, turn: 3 });
    await client.close();
  });

  it('fails a message too large for the relay instead of resending it forever, and goes on', async () => {
    const relay = await testRelay({ limits: { maxMessageBytes: 4096 } });
    relays.push(relay);
    const client = new HarnessClient({ url: relay.url, initialBackoffMs: 10 });
    const huge = { span_id: 'a', text: 'x'.repeat(3 << 20), score: null, text_sha256: null };
    const small = { span_id: 'a', text: 'x'.repeat(5000), score: null, text_sha256: null };
    const results = await Promise.allSettled([
      client.snapshot({ session_id: 'big', turn: 1, spans: [] }),
      client.snapshot({ session_id: 'big', turn: 2, spans: [small] }),
      client.snapshot({ session_id: 'big', turn: 3, spans: [huge] }),
      client.snapshot({ session_id: 'big', turn: 4, spans: [] }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/at most 4096 bytes per message/);
    expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/larger than the relay accepts/);
    expect((results[3] as PromiseFulfilledResult<Ack>).value).toMatchObject({ seq: 2, turn: 4 });
    await client.close();
  });

  it('reconnects and resends when the relay goes silent with messages in flight', async () => {
    const { WebSocketServer } = await import('ws');
    // first connection: a relay that hangs (reads, never answers); then one that answers
    let connections = 0;
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    wss.on('connection', (ws) => {
      connections++;
      if (connections === 1) return;
      let frame = 0;
      ws.on('message', () => ws.send(JSON.stringify({ type: 'ack', frame: ++frame, session_id: 'q', seq: 1, turn: 1, duplicate: connections > 1 })));
    });
    await new Promise((res) => wss.once('listening', res));
    const port = (wss.address() as net.AddressInfo).port;
    const client = new HarnessClient({ url: `http://127.0.0.1:${port}`, silenceTimeoutMs: 200, initialBackoffMs: 10 });
    const ack = await client.snapshot({ session_id: 'q', turn: 1, spans: [] });
    expect(connections).toBe(2);
    expect(ack).toMatchObject({ seq: 1, duplicate: true });
    await client.close();
    wss.close();
  });

  it('gives up with a clear error when the token is wrong (no retry can fix that)', async () => {
    const relay = await testRelay({ token: 'right' });
    relays.push(relay);
    const client = new HarnessClient({ url: relay.url, token: 'wrong' });
    await expect(client.snapshot({ session_id: 'v', turn: 1, spans: [] })).rejects.toThrow(/refused the connection: 401/);
    await client.close();
  });

  it('hashes text as UTF-8 the way the engine does', () => {
    for (const text of ['', 'plain', 'é', '日本語', '👩‍🔬 emoji', 'e\u0301 combining', '\u2028']) expect(textSha256(text)).toBe(nodeSha256(text));
  });

  it('the example runs against a relay', async () => {
    const relay = await testRelay();
    relays.push(relay);
    const r = await run(process.execPath, [
      '--import',
      'tsx',
      'examples/ts-harness.ts',
      '--url',
      relay.url,
      '--session',
      'ex-ts',
      '--turns',
      '12',
      '--interval-ms',
      '0',
    ]);
    expect(r.stderr + r.stdout).toMatch(/turn 12: 12 spans, stored as seq 13/);
    expect(r.code).toBe(0);
    expect(await transcriptLines(relay.url, 'ex-ts')).toHaveLength(13);
  });
});

describe('Python client', () => {
  it('streams a generated session through dropped connections: every turn stored once, in order', async () => {
    const { relay, proxy, proxyUrl } = await flakyRelay();
    const lines = generatedSession('py-run', 300, 30, 120);
    const file = path.join(tempDir(), 'session.jsonl');
    fs.writeFileSync(file, lines.join('\n') + '\n');
    proxy.start(80, 15);
    const r = await run('python3', [path.join(ROOT, 'test/relay/stream_file.py'), proxyUrl, file], { timeoutMs: 120_000 });
    proxy.close();
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout) as { sent: number; duplicates: number; retries: number; seqs: number[] };
    expect(summary.sent).toBe(lines.length);
    expect(summary.seqs).toEqual(lines.map((_, i) => i + 1));
    expect(summary.retries).toBeGreaterThan(0);
    expect(summary.duplicates).toBeGreaterThan(0);
    // the relay stores the Python client's compact, ASCII-escaped form; as JSON it is the same session
    const stored = await transcriptLines(relay.url, 'py-run');
    expect(stored.map((l) => JSON.parse(l) as unknown)).toEqual(lines.map((l) => JSON.parse(l) as unknown));
  });

  it('hashes text as UTF-8 the way the engine does', async () => {
    const texts = ['', 'plain', 'é', '日本語', '👩‍🔬 emoji', 'e\u0301 combining', '\u2028'];
    const code =
      'import json,sys; sys.path.insert(0, "clients/python"); from context_health_client import text_sha256; print(json.dumps([text_sha256(t) for t in json.loads(sys.argv[1])]))';
    const r = await run('python3', ['-c', code, JSON.stringify(texts)]);
    expect(JSON.parse(r.stdout)).toEqual(texts.map((t) => nodeSha256(t)));
  });

  it('raises RelayRejected naming the message, and refuses NaN before sending', async () => {
    const relay = await testRelay();
    relays.push(relay);
    const code = `
import sys; sys.path.insert(0, "clients/python")
from context_health_client import RelayClient, RelayRejected
c = RelayClient(sys.argv[1])
c.snapshot("p", 2, [])
try:
    c.snapshot("p", 1, [])
except RelayRejected as e:
    print("rejected:", e.errors[0][1])
try:
    c.snapshot("p", 3, [{"span_id": "a", "text": "x", "score": float("nan"), "text_sha256": None}])
except ValueError as e:
    print("refused:", e)
print("next:", c.snapshot("p", 3, []).seq)
`;
    const r = await run('python3', ['-c', code, relay.url]);
    expect(r.stdout).toMatch(/rejected: turn 1 of session "p" does not increase/);
    expect(r.stdout).toMatch(/refused: Out of range float values are not JSON compliant/);
    expect(r.stdout).toMatch(/next: 2/);
  });

  it('the example runs against a relay', async () => {
    const relay = await testRelay();
    relays.push(relay);
    const r = await run('python3', ['examples/python_harness.py', '--url', relay.url, '--session', 'ex-py', '--turns', '15', '--interval', '0']);
    expect(r.stdout).toMatch(/turn 15: 12 spans, stored as seq 16/);
    expect(r.code).toBe(0);
    expect(await transcriptLines(relay.url, 'ex-py')).toHaveLength(16);
  });
});
