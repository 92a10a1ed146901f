// Hostile requests (issue 8), each reproduced on loopback with small numbers: foreign
// pages and rebound host names, the token, session ids the routes cannot reach, bounded
// answers, unbounded bodies, unfinished messages, idle sockets, a vanished data directory.
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Relay } from '../../src/server/relay.ts';
import { snapshot, testRelay } from './helpers.ts';

const relays: Relay[] = [];
async function relay(options: Parameters<typeof testRelay>[0] = {}): Promise<Awaited<ReturnType<typeof testRelay>>> {
  const r = await testRelay(options);
  relays.push(r);
  return r;
}
afterEach(async () => {
  await Promise.all(relays.splice(0).map((r) => r.close()));
});

/** One HTTP request with exactly these headers (fetch may not set Host); resolves with status and body. */
function request(url: string, options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<{ status: number; body: string }> {
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
    expect(r.store.get('planted')).toBeUndefined();
    // the relay's own pages, under any of its loopback names, and clients without an Origin still work
    expect((await request(`${r.url}api/ingest`, { method: 'POST', headers: { origin: `http://localhost:${r.port}` }, body: line('own') })).status).toBe(200);
    expect(await upgradeStatus(`${r.url}api/sessions/secret/subscribe`, { origin: `http://127.0.0.1:${r.port}` })).toBe(101);
    expect(await upgradeStatus(`${r.url}api/sessions/secret/subscribe`)).toBe(101);
    expect((await request(`${r.url}api/sessions`, { headers: { origin: 'null' } })).status).toBe(403);
  });

  it('lets in exactly the origins given with --allow-origin (the Vite dev server)', async () => {
    const r = await relay({ allowOrigins: ['http://localhost:5173'] });
    expect((await request(`${r.url}api/ingest`, { method: 'POST', headers: { origin: 'http://localhost:5173', host: 'localhost:5173' }, body: line('dev') })).status).toBe(200);
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
