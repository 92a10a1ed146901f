// Issue 26 #2: a webhook receiver that answers 200 and then sends an endless body. The
// relay must take the status and hang up, reading (nearly) nothing of the body.
import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { AlertDelivery, AlertFiring } from '../../src/protocol/relay.ts';
import { WebhookDelivery } from '../../src/server/alerts/webhook.ts';
import { WebhookAddressPolicy } from '../../src/server/alerts/webhookAddress.ts';
import { tempDir } from '../relay/helpers.ts';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

const FIRING: AlertFiring = {
  id: 'a1',
  rule_id: 'r1',
  session_id: 's',
  title: null,
  turn: 1,
  seq: 1,
  what: 'relevance_collapse (fault) for 1 turn',
  severity: 'fault',
  fired_at: '2026-01-01T00:00:00.000Z',
  link: 'http://127.0.0.1/',
  text: 'collapse',
};

it('never reads a webhook answer body: an endless 200 is recorded at once and the connection closed', async () => {
  let sent = 0;
  let closedAt = 0;
  const chunk = Buffer.alloc(64 * 1024, 120);
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const started = Date.now();
      // bounded: at most 3 s or 256 MiB, whichever comes first
      const pump = (): void => {
        while (!res.destroyed && Date.now() - started < 3000 && sent < 256 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => (closedAt = Date.now()));
      pump();
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

  const file = path.join(tempDir(), 'deliveries.jsonl');
  const delivery = new WebhookDelivery(file, { attempts: 1, timeoutMs: 10_000 }, () => {}, null, new WebhookAddressPolicy(['127.0.0.1']));
  const started = Date.now();
  delivery.send(FIRING, url, 1);
  let recorded: AlertDelivery | undefined;
  while (recorded === undefined && Date.now() - started < 8000) {
    await new Promise((r) => setTimeout(r, 20));
    recorded = delivery.deliveries()[0];
  }
  delivery.close();
  expect(recorded).toMatchObject({ outcome: 'delivered', status: 200 });
  expect(Date.now() - started).toBeLessThan(1500);
  await new Promise((r) => setTimeout(r, 200));
  expect(closedAt).toBeGreaterThan(0);
  // what the relay could have taken in: the socket buffers, not the stream
  expect(sent).toBeLessThan(16 * 1024 * 1024);
  expect(fs.readFileSync(file, 'utf8')).toContain('"delivered"');
});

it('a receiver dripping its answer a byte at a time is given up within the attempt time limit', async () => {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.write('HTTP/1.1 200 OK\r\nX-Slow: ');
    // bounded: one byte every 100 ms for at most 5 s
    const drip = setInterval(() => socket.write('x'), 100);
    const stop = setTimeout(() => socket.destroy(), 5000);
    socket.on('close', () => {
      clearInterval(drip);
      clearTimeout(stop);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const delivery = new WebhookDelivery(
    path.join(tempDir(), 'd.jsonl'),
    { attempts: 1, timeoutMs: 500 },
    () => {},
    null,
    new WebhookAddressPolicy(['127.0.0.1']),
  );
  const started = Date.now();
  delivery.send(FIRING, url, 1);
  while (delivery.deliveries().length === 0 && Date.now() - started < 6000) await new Promise((r) => setTimeout(r, 20));
  delivery.close();
  for (const s of sockets) s.destroy();
  await new Promise((r) => server.close(r));
  expect(delivery.deliveries()[0]).toMatchObject({ outcome: 'failed', error: 'unreachable' });
  expect(Date.now() - started).toBeLessThan(1500);
});
