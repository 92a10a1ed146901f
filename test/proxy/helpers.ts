// Shared by the proxy's tests: a proxy in front of stub upstreams, sending to a real relay on
// 127.0.0.1; a raw HTTP client that returns the answer's exact bytes; the relay's stored
// messages of a session, whole (the compact wire expanded).
import http from 'node:http';
import { startProxy, type Proxy, type ProxyOptions } from '../../src/proxy/server.ts';

export async function proxyFor(o: { anthropic: string; openai: string; relay: string } & Partial<ProxyOptions>, logs: string[] = []): Promise<Proxy> {
  return startProxy({
    port: 0,
    host: '127.0.0.1',
    relayToken: null,
    token: null,
    redact: [],
    maxCaptureBytes: 64 * 1024 * 1024,
    maxQueued: 10_000,
    log: (l) => logs.push(l),
    ...o,
    upstreams: { anthropic: new URL(o.anthropic), openai: new URL(o.openai) },
  });
}

export interface Reply {
  status: number;
  rawHeaders: string[];
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** when each body chunk arrived (ms since the request was sent) */
  chunkTimes: number[];
}

export function send(base: string, path: string, body: string | Buffer, headers: Record<string, string> = {}, method = 'POST'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const u = new URL(path, base);
    const t0 = performance.now();
    const req = http.request(
      { hostname: u.hostname, port: u.port, path: u.pathname + u.search, method, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        const chunkTimes: number[] = [];
        res.on('data', (c: Buffer) => {
          chunks.push(c);
          chunkTimes.push(performance.now() - t0);
        });
        res.on('end', () => resolve({ status: res.statusCode!, rawHeaders: res.rawHeaders, headers: res.headers, body: Buffer.concat(chunks), chunkTimes }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The session's stored messages, whole. */
export async function storedMessages(relayUrl: string, sessionId: string): Promise<unknown[]> {
  const res = await fetch(`${relayUrl}api/sessions/${encodeURIComponent(sessionId)}/transcript?expand=1`);
  if (res.status !== 200) return [];
  const text = await res.text();
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l): unknown => JSON.parse(l));
}

/** Waits until `check` holds, polling every 20 ms, at most `ms`. */
export async function until(check: () => Promise<boolean> | boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The headers of a raw list without those a hop (or Node's own writing) may change. */
export function endToEndHeaders(raw: readonly string[]): string[][] {
  const skip = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date']);
  const out: string[][] = [];
  for (let i = 0; i < raw.length; i += 2) if (!skip.has(raw[i]!.toLowerCase())) out.push([raw[i]!.toLowerCase(), raw[i + 1]!]);
  return out;
}
