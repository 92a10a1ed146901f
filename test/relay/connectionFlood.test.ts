// A17: during a flood of idle and slow connections, health checks and ingest POSTs on new
// connections are served, not reset: at --max-connections the relay closes the oldest
// connection that sent no request (descriptorBudget.ts), and a kept-alive harness
// connection opened before the flood keeps working.
import { EventEmitter } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionCap } from '../../src/server/descriptorBudget.ts';
import { generatedSession, relaysPerTest } from './helpers.ts';

const relay = relaysPerTest();
const opened: net.Socket[] = [];
afterEach(() => {
  for (const s of opened.splice(0)) s.destroy();
});

function request(
  url: string,
  method: string,
  route: string,
  body: string | null,
  agent: http.Agent | false = false,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(route, url), { method, agent, headers: { 'content-type': 'application/x-ndjson' } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

/** `n` connections, every tenth slow (a request begun, never finished); resolves once each is connected or closed. */
async function flood(port: number, n: number): Promise<void> {
  for (let i = 0; i < n; i += 250) {
    await Promise.all(
      Array.from(
        { length: Math.min(250, n - i) },
        (_, k) =>
          new Promise<void>((resolve) => {
            const s = net.connect(port, '127.0.0.1', () => {
              if ((i + k) % 10 === 0) s.write('GET /api/health HTTP/1.1\r\nHost: x\r\n');
              resolve();
            });
            s.on('error', () => resolve());
            s.on('close', () => resolve());
            opened.push(s);
          }),
      ),
    );
  }
}

class FakeSocket extends EventEmitter {
  destroyed = false;
  constructor(readonly name: string) {
    super();
  }
}
const fake = (name: string): net.Socket => new FakeSocket(name) as unknown as net.Socket;
const nameOf = (s: net.Socket | null): string | null => (s === null ? null : (s as unknown as FakeSocket).name);

describe('ConnectionCap', () => {
  it('sheds the oldest that sent no request, then the longest idle kept alive, and refuses the new one only when all are busy', () => {
    const cap = new ConnectionCap(3);
    const [a, b, c] = [fake('a'), fake('b'), fake('c')];
    for (const s of [a, b, c]) expect(cap.opened(s)).toBeNull();
    cap.requestBegan(a); // a and c are in requests; b is waiting
    cap.requestBegan(c);
    expect(nameOf(cap.opened(fake('d')))).toBe('b');
    expect(cap.size).toBe(3);
    cap.requestEnded(c); // c is kept alive, idle; d is waiting
    const e = fake('e');
    expect(nameOf(cap.opened(e))).toBe('d'); // a waiting one goes before one kept alive
    cap.requestBegan(e); // none waiting now: the kept-alive c goes
    expect(nameOf(cap.opened(fake('f')))).toBe('c');
    expect(cap.stats()).toMatchObject({ open: 3, max: 3, shed: 3, refused: 0 });
  });

  it('never sheds a connection in a request or upgraded to a WebSocket', () => {
    const cap = new ConnectionCap(2);
    const [ws, busy] = [fake('ws'), fake('busy')];
    cap.opened(ws);
    cap.upgraded(ws);
    cap.opened(busy);
    cap.requestBegan(busy);
    const late = fake('late');
    expect(cap.opened(late)).toBe(late);
    expect(cap.stats()).toMatchObject({ open: 2, shed: 0, refused: 1 });
    // a connection that closes leaves room
    (busy as unknown as FakeSocket).emit('close');
    expect(cap.opened(fake('next'))).toBeNull();
  });
});

it('health and ingest on new connections are served during a flood of idle and slow connections', async () => {
  const max = 300;
  const r = await relay({ analysis: false, connection: { maxConnections: max } });
  const { port } = new URL(r.url);
  // a harness's kept-alive connection, opened before the flood
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const lines = generatedSession('flood', 6);
  expect((await request(r.url, 'POST', 'api/ingest', lines.slice(0, 2).join('\n') + '\n', agent)).status).toBe(200);
  const failures: string[] = [];
  let served = 0;
  let probing = true;
  const probes = (async () => {
    for (let turn = 2; probing; turn++) {
      const checks = [
        request(r.url, 'GET', 'api/health', null),
        request(
          r.url,
          'POST',
          'api/ingest',
          generatedSession('probe', 1, 2, 20, turn)
            .slice(turn === 2 ? 0 : 1)
            .join('\n') + '\n',
        ),
      ];
      for (const c of await Promise.allSettled(checks)) {
        if (c.status === 'rejected') failures.push(String((c.reason as Error).message));
        else if (c.value.status !== 200) failures.push(`HTTP ${c.value.status} ${c.value.text}`);
        else served++;
      }
    }
  })();
  await flood(Number(port), 5 * max);
  probing = false;
  await probes;
  // during the flood, on the kept-alive connection
  expect((await request(r.url, 'POST', 'api/ingest', lines.slice(2).join('\n') + '\n', agent)).status).toBe(200);
  agent.destroy();
  const health = JSON.parse((await request(r.url, 'GET', 'api/health', null)).text) as { connections: { open: number; shed: number; refused: number } };
  expect(failures).toEqual([]);
  expect(served).toBeGreaterThan(0);
  expect(health.connections.open).toBeLessThanOrEqual(max);
  expect(health.connections.shed).toBeGreaterThanOrEqual(4 * max - 10);
  expect(health.connections.refused).toBe(0);
  expect(r.logs.join('\n')).toMatch(/300 connections are open \(--max-connections\): closing the oldest that sent no request/);
}, 30_000);
