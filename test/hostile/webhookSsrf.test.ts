// Issue 26, webhook SSRF: by default a rule's webhook reaches only public addresses (the
// name resolved, each address checked where the connection is made), --allow-webhook-host
// names exceptions, and the delivery log says "unreachable" however an attempt failed, so
// rules cannot be used as a port scanner.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AlertDelivery, AlertFiring } from '../../src/protocol/relay.ts';
import { WebhookDelivery } from '../../src/server/alerts/webhook.ts';
import { isPublicAddress, WebhookAddressPolicy, WebhookBlocked } from '../../src/server/alerts/webhookAddress.ts';
import { tempDir } from '../relay/helpers.ts';

const closers: (() => void)[] = [];
afterEach(() => {
  for (const c of closers.splice(0)) c();
});

const FIRING: AlertFiring = {
  id: 'a1',
  rule_id: 'r1',
  session_id: 's',
  title: null,
  turn: 1,
  seq: 1,
  what: 'x',
  severity: 'fault',
  fired_at: '2026-01-01T00:00:00.000Z',
  link: 'http://127.0.0.1/',
  text: 'x',
};

async function receiver(): Promise<{ port: number; hits: () => number }> {
  let hits = 0;
  const server = http.createServer((req, res) => {
    hits++;
    req.resume();
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => server.close());
  return { port: (server.address() as AddressInfo).port, hits: () => hits };
}

async function deliver(url: string, allow: string[] = []): Promise<AlertDelivery> {
  const d = new WebhookDelivery(path.join(tempDir(), 'd.jsonl'), { attempts: 1, timeoutMs: 3000 }, () => {}, null, new WebhookAddressPolicy(allow));
  closers.push(() => d.close());
  d.send(FIRING, url, 1);
  const end = Date.now() + 5000;
  while (d.deliveries().length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  return d.deliveries()[0]!;
}

describe('webhook addresses', () => {
  it('loopback, link-local, private and reserved addresses are not public; others are', () => {
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      'fe80::1',
      'fd00::1',
    ])
      expect(isPublicAddress(a), a).toBe(false);
    for (const a of ['8.8.8.8', '1.1.1.1', '2001:4860:4860::8888']) expect(isPublicAddress(a), a).toBe(true);
  });

  it('by default a webhook to loopback, [::1], localhost or the metadata address is not attempted', async () => {
    const r = await receiver();
    for (const url of [
      `http://127.0.0.1:${r.port}/hook`,
      `http://[::1]:${r.port}/`,
      `http://localhost:${r.port}/`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1:2375/',
    ]) {
      const d = await deliver(url);
      expect(d, url).toMatchObject({ outcome: 'failed', status: null, error: 'unreachable: not a public address (--allow-webhook-host)' });
    }
    expect(r.hits()).toBe(0);
  });

  it('a name is resolved and its addresses checked where the connection is made', async () => {
    const lookup = new WebhookAddressPolicy().lookupFor(new URL('http://localhost.example/'))!;
    const error = await new Promise<Error | null>((resolve) => lookup('localhost', {}, (e) => resolve(e)));
    expect(error).toBeInstanceOf(WebhookBlocked);
  });

  it('--allow-webhook-host lets a named host through', async () => {
    const r = await receiver();
    expect(await deliver(`http://127.0.0.1:${r.port}/hook`, ['127.0.0.1'])).toMatchObject({ outcome: 'delivered', status: 200 });
    expect(r.hits()).toBe(1);
  });

  it('a refused connection and a reset one read the same in the delivery log', async () => {
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const reset = net.createServer((s) => s.resetAndDestroy());
    await new Promise<void>((r) => reset.listen(0, '127.0.0.1', r));
    closers.push(() => reset.close());
    const refusedOne = await deliver(`http://127.0.0.1:${closedPort}/`, ['127.0.0.1']);
    const resetOne = await deliver(`http://127.0.0.1:${(reset.address() as AddressInfo).port}/`, ['127.0.0.1']);
    expect(refusedOne.error).toBe('unreachable');
    expect(resetOne.error).toBe('unreachable');
  });
});
