// Alerts evaluated by the relay: a webhook receiver started here gets exactly the firings the
// rules call for (computed independently from `check --json`'s report), including a
// baseline-relative rule, and none from a rule that must not fire; it is down at first
// (the relay retries), and the relay is restarted in the middle of a run (nothing fires twice).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AlertDelivery, AlertFiring, AlertRule, AlertRuleInput } from '../../src/protocol/relay.ts';
import type { CheckOutput } from '../../src/core/checkOutput.ts';
import { runCli } from '../cli/runCli.ts';
import { firings, until, WebhookReceiver } from './expectations.ts';
import { postNdjson, relaysPerTest, ROOT, tempDir } from './helpers.ts';

const relay = relaysPerTest();
const SAMPLES = path.join(ROOT, 'public/samples');

const receivers: WebhookReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.stop()));
});

async function addRule(url: string, rule: AlertRuleInput): Promise<AlertRule> {
  const res = await fetch(`${url}api/alerts/rules`, { method: 'POST', body: JSON.stringify(rule) });
  const body = (await res.json()) as { rule: AlertRule; error?: string };
  expect(res.status, body.error).toBe(201);
  return body.rule;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

describe('alerts', () => {
  it('a webhook gets exactly the expected firings, through receiver downtime and a relay restart', async () => {
    const files = ['collapse.jsonl', 'healthy.jsonl'];
    const expected: string[] = [];
    for (const f of files) {
      const report = JSON.parse((await runCli(['check', '--json', '--fail-on', 'never', path.join(SAMPLES, f)])).stdout) as CheckOutput;
      for (const s of report.sessions) {
        const turns = s.metrics.map((m) => m.turn);
        const fired = (sig: string, i: number): boolean => s.findings.some((x) => x.turn === turns[i] && x.signal === sig);
        for (const t of firings(turns, (i) => fired('relevance_collapse', i), 3)) expected.push(`collapse3 ${s.session_id} ${t}`);
        const spreads = s.metrics.map((m) => m.stdev_score);
        const base = median(spreads.slice(0, 10).filter((x): x is number => x !== null));
        for (const t of firings(turns, (i) => i >= 10 && spreads[i] !== null && spreads[i]! < base * 0.5, 1)) expected.push(`baseline ${s.session_id} ${t}`);
      }
    }
    // the sample's collapse: a baseline firing before spread_collapse does, and a 3-turn relevance_collapse run
    expect(expected.filter((e) => e.includes(' collapse ')).length).toBe(2);

    const receiver = new WebhookReceiver();
    receivers.push(receiver);
    await receiver.start();
    await receiver.stop(); // down: the relay must retry until it is back

    const dataDir = tempDir();
    const retry = { initialMs: 100, maxMs: 400, attempts: 200 };
    let r = await relay({ dataDir, alertRetry: retry, allowWebhookHosts: ['127.0.0.1'] });
    const hook = receiver.url;
    const rules = {
      collapse3: await addRule(r.url, { signal: 'relevance_collapse', min_severity: 'fault', for_turns: 3, webhook: hook }),
      baseline: await addRule(r.url, { spread_below_baseline: { percent: 50, turns: 10 }, webhook: hook }),
      // must not fire: the healthy session never freezes
      never: await addRule(r.url, { action: 'freeze', session_id: 'healthy', webhook: hook }),
    };
    const name = new Map(Object.entries(rules).map(([k, rule]) => [rule.id, k]));
    const lines = fs.readFileSync(path.join(SAMPLES, 'collapse.jsonl'), 'utf8').trim().split('\n');
    // stop in the middle of the relevance_collapse run (turn 26 of 25…42): it fires at 27, after the restart
    const cut = lines.findIndex((l) => (JSON.parse(l) as { turn?: number }).turn === 27);
    expect((await postNdjson(r.url, lines.slice(0, cut).join('\n'))).status).toBe(200);
    await until(
      async () => ((await (await fetch(`${r.url}api/alerts/history`)).json()) as { alerts: AlertFiring[] }).alerts.length === 1,
      'the baseline firing',
    );
    await r.close();

    r = await relay({ dataDir, alertRetry: retry, allowWebhookHosts: ['127.0.0.1'] });
    expect((await postNdjson(r.url, lines.slice(cut - 2).join('\n'))).status).toBe(200);
    expect((await postNdjson(r.url, fs.readFileSync(path.join(SAMPLES, 'healthy.jsonl'), 'utf8'))).status).toBe(200);
    const history = async (): Promise<AlertFiring[]> => ((await (await fetch(`${r.url}api/alerts/history`)).json()) as { alerts: AlertFiring[] }).alerts;
    await until(async () => (await history()).length === expected.length, `${expected.length} firings in the history`);

    await receiver.start(); // back: the deliveries retried since the restart (and the one from before it) arrive
    await until(() => receiver.bodies.length >= expected.length, `${expected.length} webhook deliveries`);
    const got = receiver.bodies.map((b) => `${name.get(b.rule_id)} ${b.session_id} ${b.turn}`);
    expect(got.sort()).toEqual([...expected].sort());
    for (const b of receiver.bodies) {
      expect(b.text).toContain(b.session_id);
      // the relay's address when it fired (the first relay's port for the firing before the restart)
      expect(b.link).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/#live=${encodeURIComponent(b.session_id)}&turn=${b.turn}$`));
    }
    const deliveries = ((await (await fetch(`${r.url}api/alerts/deliveries?limit=500`)).json()) as { deliveries: AlertDelivery[] }).deliveries;
    expect(deliveries.filter((d) => d.outcome === 'delivered').length).toBe(expected.length);
    expect(deliveries.some((d) => d.outcome === 'retrying' && d.error !== null)).toBe(true);
    expect((await history()).map((h) => h.id).sort()).toEqual(receiver.bodies.map((b) => b.id).sort());
  });

  it('rules are checked, listed, removed, kept across a restart, and changing them needs the token', async () => {
    const dataDir = tempDir();
    let r = await relay({ dataDir, token: 't0ken' });
    const auth = { authorization: 'Bearer t0ken' };
    const post = (body: unknown, headers: Record<string, string> = auth): Promise<Response> =>
      fetch(`${r.url}api/alerts/rules`, { method: 'POST', body: JSON.stringify(body), headers });
    expect((await post({ signal: 'stale_score' }, {})).status).toBe(401);
    const bad = await post({ signal: 'stale_scores' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/^signal must be "any" or one of unbound_score, stale_score/);
    expect(((await (await post({ signal: 'any', action: 'freeze' })).json()) as { error: string }).error).toMatch(/exactly one of signal, action/);
    expect(((await (await post({ action: 'freeze', webhook: 'file:///etc/passwd' })).json()) as { error: string }).error).toMatch(/webhook must be an http/);
    const made = (await (await post({ signal: 'any', min_severity: 'warning', for_turns: 2 })).json()) as { rule: AlertRule };
    expect(made.rule).toMatchObject({ signal: 'any', min_severity: 'warning', for_turns: 2 });
    await r.close();
    r = await relay({ dataDir, token: 't0ken' });
    const list = (await (await fetch(`${r.url}api/alerts/rules`)).json()) as { rules: AlertRule[] };
    expect(list.rules).toEqual([made.rule]);
    expect((await fetch(`${r.url}api/alerts/rules/${made.rule.id}`, { method: 'DELETE' })).status).toBe(401);
    expect((await fetch(`${r.url}api/alerts/rules/${made.rule.id}`, { method: 'DELETE', headers: auth })).status).toBe(200);
    expect((await fetch(`${r.url}api/alerts/rules/${made.rule.id}`, { method: 'DELETE', headers: auth })).status).toBe(404);
    expect(((await (await fetch(`${r.url}api/alerts/rules`)).json()) as { rules: AlertRule[] }).rules).toEqual([]);
  });
});

describe('context-health alerts', () => {
  it('adds, lists and removes rules on a running relay, with its token', async () => {
    const r = await relay({ token: 'cli-t0ken' });
    const url = r.url;
    const denied = await runCli(['alerts', 'add', '--signal', 'stale_score', '--url', url]);
    expect(denied.code).toBe(3);
    expect(denied.stderr).toMatch(/answered 401/);
    const bad = await runCli(['alerts', 'add', '--action', 'stop', '--url', url, '--token', 'cli-t0ken']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/action must be one of prune_ok, recompute, freeze; got "stop"/);
    const added = await runCli([
      'alerts',
      'add',
      ...['--spread-below', '40%', '--baseline-turns', '15', '--for', '2', '--session', 'run-1', '--webhook', 'http://127.0.0.1:9/h'],
      ...['--url', url, '--token', 'cli-t0ken', '--json'],
    ]);
    expect(added.code).toBe(0);
    const rule = JSON.parse(added.stdout) as AlertRule;
    expect(rule).toMatchObject({ spread_below_baseline: { percent: 40, turns: 15 }, for_turns: 2, session_id: 'run-1', webhook: 'http://127.0.0.1:9/h' });
    // a webhook URL is a secret: without the token only where it goes is shown
    const list = await runCli(['alerts', 'list', '--url', url]);
    expect(list.stdout).toBe(`${rule.id}  spread below 40% of the first 15 snapshots' median for 2 snapshots · session "run-1" · http://127.0.0.1:9/…\n`);
    const withToken = await runCli(['alerts', 'list', '--url', url, '--token', 'cli-t0ken']);
    expect(withToken.stdout).toBe(`${rule.id}  spread below 40% of the first 15 snapshots' median for 2 snapshots · session "run-1" · http://127.0.0.1:9/h\n`);
    expect((await runCli(['alerts', 'rm', rule.id, '--url', url, '--token', 'cli-t0ken'])).code).toBe(0);
    expect((await runCli(['alerts', 'list', '--url', url])).stdout).toBe('no alert rules\n');
    expect((await runCli(['alerts', 'rm', rule.id, '--url', url, '--token', 'cli-t0ken'])).stderr).toMatch(/404: no alert rule/);
  });
});
