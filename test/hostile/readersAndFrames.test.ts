// Issue 26, risky: a reader without the token saw Slack webhook URLs (secrets) in the
// rules, the history, the overview and the delivery log; and any site could frame the
// dashboard and its Delete buttons.
import fs from 'node:fs';
import path from 'node:path';
import type { AlertDelivery, AlertFiring, AlertRule, Overview } from '../../src/protocol/relay.ts';
import { expect, it } from 'vitest';
import { relaysPerTest, ROOT } from '../relay/helpers.ts';

const relay = relaysPerTest();
const TOKEN = 'readers-26';
// on loopback (port 9, nothing listens): the firings' deliveries stay on this machine
const HOOK = 'http://127.0.0.1:9/services/T000/B000/XXXXSECRETXXXX';

it('webhook URLs are shown whole only with the token', async () => {
  const r = await relay({ token: TOKEN, analysisThreads: 0, allowWebhookHosts: ['127.0.0.1'], alertRetry: { attempts: 1 } });
  const auth = { authorization: `Bearer ${TOKEN}` };
  const added = await fetch(`${r.url}api/alerts/rules`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ signal: 'relevance_collapse', webhook: HOOK }),
  });
  expect(added.status).toBe(201);
  const lines = fs.readFileSync(path.join(ROOT, 'public/samples/collapse.jsonl'), 'utf8');
  expect((await fetch(`${r.url}api/ingest`, { method: 'POST', headers: auth, body: lines })).status).toBe(200);
  const end = Date.now() + 15_000;
  while (r.alerts!.recent().length === 0 && Date.now() < end) await new Promise((res) => setTimeout(res, 50));
  r.alerts!.delivery.remember({ alert_id: 'x', url: HOOK, attempt: 1, at: '2026-01-01T00:00:00Z', outcome: 'retrying', status: null, error: 'unreachable' });

  const read = async (p: string, headers: Record<string, string> = {}): Promise<string> => {
    const res = await fetch(`${r.url}${p}`, { headers });
    expect(res.status, p).toBe(200);
    return res.text();
  };
  for (const p of ['api/alerts/rules', 'api/alerts/history', 'api/overview', 'api/alerts/deliveries']) {
    const anonymous = await read(p);
    expect(anonymous, p).not.toContain('SECRET');
    expect(anonymous, p).toContain('http://127.0.0.1:9/…');
    expect(await read(p, auth), p).toContain(HOOK);
  }
  const rules = JSON.parse(await read('api/alerts/rules')) as { rules: AlertRule[] };
  expect(rules.rules[0]!.webhook).toBe('http://127.0.0.1:9/…');
  expect((JSON.parse(await read('api/alerts/history')) as { alerts: AlertFiring[] }).alerts.length).toBeGreaterThan(0);
  expect((JSON.parse(await read('api/overview')) as Overview).alerts.length).toBeGreaterThan(0);
  expect((JSON.parse(await read('api/alerts/deliveries')) as { deliveries: AlertDelivery[] }).deliveries.length).toBeGreaterThan(0);
}, 30_000);

it('no answer may be framed by another site', async () => {
  const r = await relay({ analysis: false });
  for (const p of ['', 'index.html', 'api/health', 'api/sessions', 'api/nope']) {
    const res = await fetch(`${r.url}${p}`);
    expect(res.headers.get('x-frame-options'), p).toBe('DENY');
    expect(res.headers.get('content-security-policy'), p).toContain("frame-ancestors 'none'");
  }
});
