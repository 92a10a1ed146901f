// Hostile requests (issue 8), each reproduced on loopback with small numbers: foreign
// pages and rebound host names, the token, session ids the routes cannot reach, bounded
// answers, unbounded bodies, unfinished messages, idle sockets, a vanished data directory.
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { relaysPerTest, snapshot } from './helpers.ts';

const relay = relaysPerTest();

/** One HTTP request with exactly these headers (fetch may not set Host); resolves with status and body. */
function request(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The HTTP status a WebSocket upgrade gets (101 when it opens). */
function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url.replace(/^http/, 'ws'), { headers });
    ws.on('open', () => {
      resolve(101);
      ws.close();
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => {});
  });
}

const line = (id: string, turn = 1): string => JSON.stringify(snapshot(id, turn, 1));

describe('origin and host policy', () => {
  it('refuses a page served from another port on this machine: no-cors POST and WebSocket read', async () => {
    const r = await relay();
    await request(`${r.url}api/ingest`, { method: 'POST', body: line('secret') });
    const otherPort = `http://127.0.0.1:${r.port === 65535 ? 1 : r.port + 1}`;
    // what a no-cors fetch from that page sends: text/plain with the page's Origin
    const post = await request(`${r.url}api/ingest`, { method: 'POST', headers: { origin: otherPort, 'content-type': 'text/plain' }, body: line('planted') });
    expect(post.status).toBe(403);
    expect(JSON.parse(post.body).error).toMatch(/not this relay's own.*--allow-origin/);
    expect(await upgradeStatus(`${r.url}api/sessions/secret/subscribe`, { origin: otherPort })).toBe(403);
    expect(r.files.get('planted')).toBeUndefined();
    // the relay's own pages, under any of its loopback names, and clients without an Origin still work
    expect((await request(`${r.url}api/ingest`, { method: 'POST', headers: { origin: `http://localhost:${r.port}` }, body: line('own') })).status).toBe(200);
    expect(await upgradeStatus(`${r.url}api/sessions/secret/subscribe`, { origin: `http://127.0.0.1:${r.port}` })).toBe(101);
    expect(await upgradeStatus(`${r.url}api/sessions/secret/subscribe`)).toBe(101);
    expect((await request(`${r.url}api/sessions`, { headers: { origin: 'null' } })).status).toBe(403);
  });

  it('lets in exactly the origins given with --allow-origin (the Vite dev server)', async () => {
    const r = await relay({ allowOrigins: ['http://localhost:5173'] });
    expect(
      (await request(`${r.url}api/ingest`, { method: 'POST', headers: { origin: 'http://localhost:5173', host: 'localhost:5173' }, body: line('dev') })).status,
    ).toBe(200);
    expect(await upgradeStatus(`${r.url}api/sessions/dev/subscribe`, { origin: 'http://localhost:5173' })).toBe(101);
    expect((await request(`${r.url}api/sessions`, { headers: { origin: 'http://localhost:5174' } })).status).toBe(403);
  });

  it('checks Host on a non-loopback bind too (DNS rebinding), and takes the --public-url as its own', async () => {
    // ::ffff:127.0.0.1 is loopback on the wire but not a loopback name: the relay treats it as a public bind
    const r = await relay({ host: '::ffff:127.0.0.1', token: 'T', publicUrls: ['https://relay.example.com'] });
    const evil = { host: `evil.com:${r.port}`, origin: `http://evil.com:${r.port}` };
    const listed = await request(`${r.url}api/sessions`, { headers: evil });
    expect(listed.status).toBe(403);
    expect(JSON.parse(listed.body).error).toMatch(/Host "evil\.com:\d+" is not an address this relay serves/);
    expect(await upgradeStatus(`${r.url}api/sessions/x/subscribe`, evil)).toBe(403);
    expect((await request(`${r.url}api/sessions`)).status).toBe(200);
    const proxied = { host: 'relay.example.com', origin: 'https://relay.example.com' };
    expect((await request(`${r.url}api/sessions`, { headers: proxied })).status).toBe(200);
  });
});

describe('access options', () => {
  it('refuses to start with an --allow-origin that is not an origin, or --token-for-reads without a token', async () => {
    const { startRelay } = await import('../../src/server/relay.ts');
    const { tempDir } = await import('./helpers.ts');
    const base = { port: 0, host: '127.0.0.1', dataDir: tempDir(), distDir: null, log: () => {} };
    await expect(startRelay({ ...base, allowOrigins: ['http://localhost:5173/app'] })).rejects.toThrow(/--allow-origin takes an origin/);
    await expect(startRelay({ ...base, allowOrigins: ['localhost:5173'] })).rejects.toThrow(/--allow-origin must be/);
    await expect(startRelay({ ...base, tokenForReads: true })).rejects.toThrow(/--token-for-reads needs a token/);
  });
});

describe('token', () => {
  it('matches the Authorization scheme case-insensitively (RFC 7235)', async () => {
    const r = await relay({ token: 'T' });
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const res = await request(`${r.url}api/ingest`, { method: 'POST', headers: { authorization: `${scheme} T` }, body: line(`s-${scheme}`) });
      expect(res.status, scheme).toBe(200);
    }
    expect((await request(`${r.url}api/ingest`, { method: 'POST', headers: { authorization: 'Basic T' }, body: line('basic') })).status).toBe(401);
    expect(await upgradeStatus(`${r.url}api/ingest`, { authorization: 'bearer T' })).toBe(101);
  });

  it('requires the token for reads too with tokenForReads', async () => {
    const r = await relay({ token: 'T', tokenForReads: true });
    await request(`${r.url}api/ingest`, { method: 'POST', headers: { authorization: 'Bearer T' }, body: line('r') });
    expect((await request(`${r.url}api/sessions`)).status).toBe(401);
    expect((await request(`${r.url}api/sessions/r/transcript`)).status).toBe(401);
    expect(await upgradeStatus(`${r.url}api/sessions/r/subscribe`)).toBe(401);
    expect((await request(`${r.url}api/sessions`, { headers: { authorization: 'bearer T' } })).status).toBe(200);
    expect(await upgradeStatus(`${r.url}api/sessions/r/subscribe?token=T`)).toBe(101);
    expect((await request(`${r.url}api/health`)).status).toBe(200);
  });
});

describe('bounded POST bodies', () => {
  it('answers a gzip body of nothing but newlines with a bounded reply instead of a result per line', async () => {
    const r = await relay({ connection: { maxRequestLines: 1000 } });
    const zlib = await import('node:zlib');
    // 2 MB of newlines compress to a few KB: the 97 KB → 100 MB, scaled down
    const body = zlib.gzipSync(Buffer.alloc(2 * 1024 * 1024, 0x0a));
    const res = await request(`${r.url}api/ingest`, { method: 'POST', headers: { 'content-encoding': 'gzip' }, body });
    expect(res.status).toBe(413);
    const reply = JSON.parse(res.body) as { accepted: unknown[]; errors: { line: number; message: string }[]; blank_lines: number };
    expect(reply.accepted).toEqual([]);
    expect(reply.blank_lines).toBe(1000);
    expect(reply.errors).toEqual([{ line: 1001, message: expect.stringMatching(/more than 1000 lines.*--max-request-lines/) }]);
    expect(res.body.length).toBeLessThan(1000);
  });

  it('counts blank lines without keeping anything per line, however many there are', async () => {
    const r = await relay({ connection: { maxRequestLines: 10_000_000 } });
    const zlib = await import('node:zlib');
    const body = zlib.gzipSync(Buffer.concat([Buffer.alloc(1024 * 1024, 0x0a), Buffer.from(line('after-blanks'))]));
    const res = await request(`${r.url}api/ingest`, { method: 'POST', headers: { 'content-encoding': 'gzip' }, body });
    expect(res.status).toBe(200);
    const reply = JSON.parse(res.body) as { accepted: { line: number }[]; blank_lines: number };
    expect(reply.blank_lines).toBe(1024 * 1024);
    expect(reply.accepted.map((a) => a.line)).toEqual([1024 * 1024 + 1]);
  });

  it('stops reading a body past --max-request-bytes once decompressed, keeping what it stored', async () => {
    const r = await relay({ connection: { maxRequestBytes: 64 * 1024 } });
    const zlib = await import('node:zlib');
    const good = Array.from({ length: 3 }, (_, i) => line('big', i + 1)).join('\n') + '\n';
    const body = zlib.gzipSync(Buffer.concat([Buffer.from(good), Buffer.alloc(1024 * 1024, 0x20)]));
    const res = await request(`${r.url}api/ingest`, { method: 'POST', headers: { 'content-encoding': 'gzip' }, body });
    expect(res.status).toBe(413);
    const reply = JSON.parse(res.body) as { accepted: { seq: number }[]; errors: { message: string }[] };
    expect(reply.accepted.map((a) => a.seq)).toEqual([1, 2, 3]);
    expect(reply.errors[0]!.message).toMatch(/longer than 65536 bytes \(decompressed\).*--max-request-bytes/);
  });

  it('lists at most a thousand errors and echoes a long session id only in part', async () => {
    const r = await relay();
    const longId = 'x'.repeat(100_000);
    // each line is refused (the id is too long to name a file) and would echo 100 KB
    const body = Array.from({ length: 1500 }, (_, i) => line(longId, i + 1)).join('\n');
    const res = await request(`${r.url}api/ingest`, { method: 'POST', body });
    expect(res.status).toBe(400);
    const reply = JSON.parse(res.body) as { errors: { session_id: string; message: string }[]; errors_not_listed: number };
    expect(reply.errors).toHaveLength(1000);
    expect(reply.errors_not_listed).toBe(500);
    expect(reply.errors[0]!.session_id.length).toBeLessThanOrEqual(201);
    expect(reply.errors[0]!.message.length).toBeLessThan(1000);
    expect(res.body.length).toBeLessThan(1_000_000);
  });
});

describe('unfinished messages and idle sockets', () => {
  /** An ingest WebSocket that has sent `bytes` of a message it never finishes; resolves with how it closed. */
  async function unfinishedFrame(url: string, bytes: number): Promise<{ ws: WebSocket; closed: Promise<{ code: number; reason: string }> }> {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}api/ingest`);
    const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    ws.on('error', () => {});
    await new Promise<void>((resolve) => ws.once('open', () => resolve()));
    ws.send(Buffer.alloc(bytes, 0x20), { fin: false, binary: false });
    return { ws, closed };
  }

  it('closes WebSockets past the relay-wide budget for unfinished messages, with the reason', async () => {
    const r = await relay({ connection: { maxUnfinishedBytes: 1024 * 1024, maxUnfinishedBytesPerAddress: 64 * 1024 * 1024 } });
    const first = await unfinishedFrame(r.url, 600 * 1024);
    const second = await unfinishedFrame(r.url, 600 * 1024);
    const { code, reason } = await second.closed;
    expect(code).toBe(1013);
    expect(reason).toMatch(/--max-unfinished-bytes/);
    // the first one, within the budget, is still open and its bytes are still counted
    expect(first.ws.readyState).toBe(WebSocket.OPEN);
    const health = JSON.parse((await request(`${r.url}api/health`)).body) as { unfinished: { bytes: number; refused: number } };
    expect(health.unfinished.refused).toBe(1);
    expect(health.unfinished.bytes).toBeGreaterThanOrEqual(600 * 1024);
    first.ws.terminate();
  });

  it('refuses a POST whose unfinished line takes one address past its budget', async () => {
    const r = await relay({ connection: { maxUnfinishedBytesPerAddress: 1024 * 1024 } });
    const held = await unfinishedFrame(r.url, 700 * 1024);
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(`${r.url}api/ingest`, { method: 'POST' }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      // a line without its newline, never finished
      req.write(Buffer.alloc(700 * 1024, 0x20));
    });
    expect(res.status).toBe(429);
    expect(JSON.parse(res.body).errors[0].message).toMatch(/one address would exceed 1048576 bytes \(--max-unfinished-bytes-per-address\)/);
    held.ws.terminate();
  });

  it('closes a connection that never sends a byte, a slow body, and a WebSocket message that never finishes', async () => {
    const r = await relay({ connection: { idleTimeoutMs: 200, bodyTimeoutMs: 400 } });
    const net = await import('node:net');
    const silent = net.connect(r.port, '127.0.0.1');
    silent.on('error', () => {});
    await new Promise<void>((resolve) => silent.once('close', () => resolve()));

    const slow = net.connect(r.port, '127.0.0.1');
    let answer = '';
    slow.on('data', (c: Buffer) => (answer += c.toString()));
    slow.on('error', () => {});
    slow.write('POST /api/ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n{"type":');
    await new Promise<void>((resolve) => slow.once('close', () => resolve()));
    expect(answer).toMatch(/^HTTP\/1\.1 408/);

    const stalled = await unfinishedFrame(r.url, 10);
    const { code, reason } = await stalled.closed;
    expect(code).toBe(1008);
    expect(reason).toMatch(/--body-timeout/);
  });
});

describe('session ids', () => {
  it('refuses the ids . and .., which no URL can reach, and goes on with the rest of the body', async () => {
    const r = await relay();
    const res = await request(`${r.url}api/ingest`, { method: 'POST', body: [line('.'), line('..'), line('fine')].join('\n') });
    expect(res.status).toBe(400);
    const reply = JSON.parse(res.body) as { accepted: { line: number }[]; errors: { line: number; message: string }[] };
    expect(reply.errors.map((e) => e.line)).toEqual([1, 2]);
    expect(reply.errors[0]!.message).toMatch(/session_id "\." cannot be used/);
    expect(reply.accepted.map((a) => a.line)).toEqual([3]);
    expect(r.files.count()).toBe(1);
  });

  it('echoes a long session id only in part in a WebSocket error frame', async () => {
    const r = await relay();
    const ws = new WebSocket(`${r.url.replace(/^http/, 'ws')}api/ingest`);
    await new Promise<void>((resolve) => ws.once('open', () => resolve()));
    const reply = new Promise<Record<string, string>>((resolve) => ws.once('message', (d) => resolve(JSON.parse(String(d)) as Record<string, string>)));
    ws.send(line('y'.repeat(50_000)));
    const frame = await reply;
    expect(frame.type).toBe('error');
    expect(frame.session_id!.length).toBeLessThanOrEqual(201);
    ws.close();
  });
});

describe('a vanished data directory', () => {
  it('stops acknowledging when the data directory is removed under a session with an open log, and health says why', async () => {
    const fs = await import('node:fs');
    // the periodic check is slowed right down: the write itself must notice
    const r = await relay({ dataCheckMs: 60_000 });
    expect((await request(`${r.url}api/ingest`, { method: 'POST', body: line('open', 1) })).status).toBe(200);
    fs.rmSync(r.dataDir, { recursive: true, force: true });
    const after = await request(`${r.url}api/ingest`, { method: 'POST', body: line('open', 2) });
    expect(after.status).toBe(400);
    expect(JSON.parse(after.body).errors[0].message).toMatch(
      /could not store the message: the log of session "open" .* was deleted while the relay ran; nothing more is acknowledged/,
    );
    const health = await request(`${r.url}api/health`);
    expect(health.status).toBe(503);
    expect(JSON.parse(health.body)).toMatchObject({ ok: false, problem: expect.stringMatching(/deleted while the relay ran/) });
    // nothing else is acknowledged either
    expect((await request(`${r.url}api/ingest`, { method: 'POST', body: line('other', 1) })).status).toBe(400);
  });

  it('notices a removed data directory on its own, before any write', async () => {
    const fs = await import('node:fs');
    let noticed: () => void = () => {};
    const lost = new Promise<void>((resolve) => (noticed = resolve));
    const r = await relay({ dataCheckMs: 20, log: (l: string) => /nothing more is acknowledged/.test(l) && noticed() });
    fs.rmSync(r.dataDir, { recursive: true, force: true });
    await lost;
    const health = await request(`${r.url}api/health`);
    expect(health.status).toBe(503);
    expect(JSON.parse(health.body).problem).toMatch(/data directory .* is gone/);
  });
});
