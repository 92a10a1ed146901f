// Issue 26 #3: one connection pipelining many transcript downloads and reading nothing
// made the relay buffer every answer (1.4 GB for 5,000). Answers are now made one at a
// time per connection and the socket is not read meanwhile: the relay's memory stays flat.
import net from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { generatedSession, postNdjson, spawnServe, tempDir } from '../relay/helpers.ts';

const children: { kill: (s: NodeJS.Signals) => boolean }[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

const rss = async (url: string): Promise<number> => ((await (await fetch(`${url}api/health`)).json()) as { memory: { rss: number } }).memory.rss;

it('1,000 pipelined transcript requests that are never read do not grow the relay', async () => {
  const serve = await spawnServe(['--port', '0', '--data', tempDir(), '--no-static', '--no-analysis']);
  children.push(serve.child);
  // a transcript of about 300 KB
  expect((await postNdjson(serve.url, generatedSession('big', 30, 20, 500).join('\n') + '\n')).status).toBe(200);
  const before = await rss(serve.url);
  const { port } = new URL(serve.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  socket.on('error', () => {});
  await new Promise((r) => socket.once('connect', r));
  socket.pause(); // reads nothing
  const request = 'GET /api/sessions/big/transcript HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
  socket.write(request.repeat(1000));
  await new Promise((r) => setTimeout(r, 2500));
  const after = await rss(serve.url);
  socket.destroy();
  // unfixed, each waiting answer held a 256 KiB read of the log: ~250 MB
  expect(after - before).toBeLessThan(60 * 1024 * 1024);
  // the relay still answers others
  expect((await fetch(`${serve.url}api/health`)).status).toBe(200);
}, 30_000);

it('pipelined requests on one connection are all answered, in order, when the client reads', async () => {
  const serve = await spawnServe(['--port', '0', '--data', tempDir(), '--no-static', '--no-analysis']);
  children.push(serve.child);
  expect((await postNdjson(serve.url, generatedSession('small', 2).join('\n') + '\n')).status).toBe(200);
  const { port } = new URL(serve.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  const paths = ['/api/sessions/small', '/api/health', '/api/sessions/small/transcript', '/api/nope', '/api/sessions/small'];
  socket.write(paths.map((p) => `GET ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`).join(''));
  let got = '';
  socket.on('data', (c: Buffer) => (got += c.toString()));
  const end = Date.now() + 10_000;
  while ((got.match(/HTTP\/1\.1 \d{3}/g) ?? []).length < paths.length && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  socket.destroy();
  expect(got.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200', 'HTTP/1.1 200', 'HTTP/1.1 404', 'HTTP/1.1 200']);
}, 30_000);
