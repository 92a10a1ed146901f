// A17: a flood of idle and slow connections must not cost the harnesses and the operator their
// relay. The real `serve` in its own process; this process opens FLOOD_CONNECTIONS TCP
// connections to it (default 20,000, fewer if this process's open-file limit is lower), a
// tenth of them slow (a request line and one header, never finished), and holds them; all the
// while a GET /api/health and an ingest POST go every 100 ms, each on a new connection. Prints
// how many of those failed (and how: ECONNRESET, timeouts, statuses), their p50/p99, and how
// many flood connections the relay closed (it sheds the oldest that sent no request, not the
// new one: descriptorBudget.ts).
//
//   npm run bench -- connection-flood
//   FLOOD_CONNECTIONS=20000 FLOOD_SECONDS=10 npm run bench -- connection-flood
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { openFileLimit } from '../src/server/descriptorBudget.ts';
import { percentile, startRelay } from './relay.ts';

interface Probe {
  ok: number;
  failed: number;
  reasons: Map<string, number>;
  ms: number[];
}

const probe = (): Probe => ({ ok: 0, failed: 0, reasons: new Map(), ms: [] });

function request(url: string, method: string, route: string, body: string | null): Promise<{ status: number } | { error: string }> {
  return new Promise((resolve) => {
    const req = http.request(new URL(route, url), { method, agent: false, timeout: 10_000, headers: { 'content-type': 'application/x-ndjson' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
      res.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT (10 s)' })));
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    req.end(body ?? undefined);
  });
}

async function timed(p: Probe, f: () => Promise<{ status: number } | { error: string }>): Promise<void> {
  const t0 = performance.now();
  const r = await f();
  const reason = 'error' in r ? r.error : r.status === 200 ? null : `HTTP ${r.status}`;
  if (reason === null) {
    p.ok++;
    p.ms.push(performance.now() - t0);
  } else {
    p.failed++;
    p.reasons.set(reason, (p.reasons.get(reason) ?? 0) + 1);
  }
}

function shown(name: string, p: Probe): string {
  const sorted = Float64Array.from(p.ms).sort();
  const reasons = [...p.reasons].map(([r, n]) => `${n} ${r}`).join(', ');
  return `    ${name}: ${p.ok} ok, ${p.failed} failed${reasons === '' ? '' : ` (${reasons})`}; p50 ${percentile(sorted, 0.5).toFixed(1)} ms, p99 ${percentile(sorted, 0.99).toFixed(1)} ms`;
}

export async function benchConnectionFlood(): Promise<void> {
  const limit = openFileLimit() ?? 1024;
  const wanted = Number(process.env.FLOOD_CONNECTIONS ?? 20_000);
  // this process holds one end of every connection: a few hundred descriptors stay for the rest
  const connections = Math.max(0, Math.min(wanted, limit - 300));
  const seconds = Number(process.env.FLOOD_SECONDS ?? 10);
  console.log(
    `\nconnection flood (A17): ${connections} idle or slow connections held ${seconds} s (open-file limit ${limit}); health and ingest every 100 ms on new connections`,
  );
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-bench-flood-'));
  const relay = await startRelay(dataDir, ['--no-analysis', '--idle-timeout', String(seconds * 3)]);
  const { port } = new URL(relay.url);
  const sockets = new Set<net.Socket>();
  let opened = 0;
  let closedByRelay = 0;
  let connectErrors = 0;
  let flooding = true;
  const health = probe();
  const ingest = probe();
  let turn = 1;
  const probes = (async () => {
    while (flooding) {
      const t = turn++;
      const line = JSON.stringify({ type: 'snapshot', session_id: 'flood-probe', turn: t, spans: [] });
      await Promise.all([
        timed(health, () => request(relay.url, 'GET', 'api/health', null)),
        timed(ingest, () =>
          request(relay.url, 'POST', 'api/ingest', (t === 1 ? JSON.stringify({ type: 'session', session_id: 'flood-probe' }) + '\n' : '') + line + '\n'),
        ),
        new Promise((r) => setTimeout(r, 100)),
      ]);
    }
  })();
  const t0 = performance.now();
  try {
    // opened in waves of 500, as fast as the relay accepts them
    for (let i = 0; i < connections; i += 500) {
      await Promise.all(
        Array.from(
          { length: Math.min(500, connections - i) },
          (_, k) =>
            new Promise<void>((resolve) => {
              const s = net.connect(Number(port), '127.0.0.1', () => {
                opened++;
                // a tenth are slow: a request begun, never finished
                if ((i + k) % 10 === 0) s.write('GET /api/health HTTP/1.1\r\nHost: x\r\n');
                resolve();
              });
              sockets.add(s);
              s.on('error', () => {});
              s.on('close', () => {
                if (flooding) closedByRelay++;
                sockets.delete(s);
                resolve();
              });
              s.once('error', () => connectErrors++);
            }),
        ),
      );
    }
    const openMs = performance.now() - t0;
    console.log(`    ${opened} opened in ${(openMs / 1000).toFixed(1)} s (${connectErrors} connect errors); holding`);
    await new Promise((r) => setTimeout(r, seconds * 1000));
  } finally {
    flooding = false;
    await probes;
    const stillOpen = sockets.size;
    for (const s of sockets) s.destroy();
    await relay.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    console.log(`    ${closedByRelay} flood connections closed by the relay meanwhile, ${stillOpen} still open at the end`);
    console.log(shown('GET /api/health', health));
    console.log(shown('POST /api/ingest', ingest));
    console.log(`    load average ${os.loadavg()[0]!.toFixed(2)}`);
  }
}

if (import.meta.filename === process.argv[1]) await benchConnectionFlood();
