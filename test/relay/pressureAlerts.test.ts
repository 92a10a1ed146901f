// contract §8.7 through the relay: a Claude Code session that `watch` streams in while it
// fills its context. A rule on `context_pressure` fires its webhook at the turn `check --json`
// raises the signal (82.5% of a 200,000-token model's window), before the compaction: while
// the agent still has room. The overview names the session by its project and first prompt,
// and gives it no rate (an imported transcript arrives at the reader's pace).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AlertFiring, AlertRule, Overview } from '../../src/protocol/relay.ts';
import type { CheckOutput } from '../../src/core/checkOutput.ts';
import { startWatch, type Watcher } from '../../src/cli/watch.ts';
import { runCli } from '../cli/runCli.ts';
import { until, WebhookReceiver } from './expectations.ts';
import { relaysPerTest, ROOT, tempDir } from './helpers.ts';

const FIXTURE = path.join(ROOT, 'e2e/fixtures/claude-code-pressure.jsonl');
const relay = relaysPerTest();
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe.each([0, 1])('context pressure on the relay (analysis threads: %i)', (analysisThreads) => {
  it('a context_pressure rule fires its webhook at the turn check raises it, before the compaction', async () => {
    const report = JSON.parse((await runCli(['check', '--json', '--fail-on', 'never', FIXTURE])).stdout) as CheckOutput;
    const session = report.sessions[0]!;
    const pressure = session.findings.filter((f) => f.signal === 'context_pressure');
    expect(pressure.map((f) => f.severity)).toEqual(['info']);
    const compaction = session.findings.find((f) => f.signal === 'compaction')!;
    expect(pressure[0]!.turn).toBeLessThan(compaction.turn);

    const receiver = new WebhookReceiver();
    await receiver.start();
    cleanup.push(() => receiver.stop());
    const r = await relay({ analysisThreads, allowWebhookHosts: ['127.0.0.1'] });
    const res = await fetch(`${r.url}api/alerts/rules`, { method: 'POST', body: JSON.stringify({ signal: 'context_pressure', webhook: receiver.url }) });
    expect(res.status).toBe(201);
    const rule = ((await res.json()) as { rule: AlertRule }).rule;

    // the transcript grows record by record, as Claude Code writes it
    const dir = tempDir('ch-pressure-watch-');
    const file = path.join(dir, 'project', 'cc-pressure.jsonl');
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, '');
    const watcher: Watcher = startWatch({ paths: [dir], url: r.url, statePath: path.join(dir, 'state.json'), pollMs: 20 });
    cleanup.push(() => watcher.stop());
    const lines = fs.readFileSync(FIXTURE, 'utf8').trim().split('\n');
    const boundary = lines.findIndex((l) => l.includes('"compact_boundary"'));
    for (const line of lines.slice(0, boundary)) {
      fs.appendFileSync(file, line + '\n');
      await watcher.poll();
    }
    // the alert arrives before the transcript reaches its compaction
    await until(() => receiver.bodies.length >= 1, 'the context_pressure webhook');
    const fired = receiver.bodies[0]!;
    expect(fired).toMatchObject({ rule_id: rule.id, session_id: session.session_id, turn: pressure[0]!.turn });
    expect(fired.text).toContain('context_pressure');
    for (const line of lines.slice(boundary)) {
      fs.appendFileSync(file, line + '\n');
      await watcher.poll();
    }
    const overview = async () => ((await (await fetch(`${r.url}api/overview`)).json()) as Overview).sessions.find((s) => s.session_id === session.session_id);
    await until(async () => (await overview())?.turns === session.turns, 'every turn analysed');
    // one firing: the signal is raised on the first turn of each run only
    const history = ((await (await fetch(`${r.url}api/alerts/history`)).json()) as { alerts: AlertFiring[] }).alerts;
    expect(history.map((h) => h.turn)).toEqual([pressure[0]!.turn]);
    const row = (await overview())!;
    expect(row.title).toMatch(/^billing-service — Port the billing exporter/);
    expect(row.imported).toBe(true);
    expect(row.rate_per_min).toBeNull();
    expect(row.worst_recent).toBe('info');
  });
});
