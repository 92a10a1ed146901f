// Issue 26 #1: a flood of idle connections under a small open-file limit must not stop the
// relay for good. A check of the data directory that cannot look (EMFILE) is not a deleted
// directory, and past --max-connections new connections are refused, not data.
import http from 'node:http';
import net from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { generatedSession, spawnServe, tempDir } from '../relay/helpers.ts';

const children: { kill: (s: NodeJS.Signals) => boolean }[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

const LIMIT = ['prlimit', '--nofile=256:256', '--'];
const FLOOD = 320;

async function flood(url: string): Promise<net.Socket[]> {
  const { port } = new URL(url);
  const sockets = await Promise.all(
    Array.from(
      { length: FLOOD },
      () =>
        new Promise<net.Socket>((resolve) => {
          const s = net.connect(Number(port), '127.0.0.1', () => resolve(s));
          s.on('error', () => resolve(s));
        }),
    ),
  );
  return sockets;
}

function request(url: string, method: string, path: string, body: string | null, agent?: http.Agent): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, url), { method, agent, headers: { 'content-type': 'application/x-ndjson' } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

it('recovers after descriptors ran out: EMFILE while checking the lock is not a deleted data directory', async () => {
  // no connection cap, so the flood really exhausts the 256 descriptors
  const serve = await spawnServe(['--port', '0', '--data', tempDir(), '--no-static', '--no-analysis', '--max-connections', '100000'], {}, { wrapper: LIMIT });
  children.push(serve.child);
  const sockets = await flood(serve.url);
  await sleep(1600); // the data directory is checked every second
  for (const s of sockets) s.destroy();
  await sleep(300);
  const health = await request(serve.url, 'GET', 'api/health', null);
  expect(health.text).not.toMatch(/gone/);
  expect(health.status).toBe(200);
  const stored = await request(serve.url, 'POST', 'api/ingest', generatedSession('after-flood', 2).join('\n') + '\n');
  expect(stored.status).toBe(200);
}, 30_000);

it('refuses new connections past --max-connections and keeps storing on the ones open', async () => {
  const serve = await spawnServe(['--port', '0', '--data', tempDir(), '--no-static', '--no-analysis'], {}, { wrapper: LIMIT });
  children.push(serve.child);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const lines = generatedSession('during-flood', 4);
  expect((await request(serve.url, 'POST', 'api/ingest', lines.slice(0, 2).join('\n') + '\n', agent)).status).toBe(200);
  const sockets = await flood(serve.url);
  await sleep(1300);
  // the harness's connection, opened before the flood, still gets its messages stored
  const during = await request(serve.url, 'POST', 'api/ingest', lines.slice(2).join('\n') + '\n', agent);
  expect(during.status).toBe(200);
  for (const s of sockets) s.destroy();
  agent.destroy();
  await sleep(300);
  expect((await request(serve.url, 'GET', 'api/health', null)).status).toBe(200);
  expect(serve.output()).toMatch(/\d+ connections are open \(--max-connections\): closing the oldest that sent no request/);
}, 30_000);
