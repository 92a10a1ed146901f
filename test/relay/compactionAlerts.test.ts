// contract §8 through the relay: a Claude Code session that `watch` streams in, with a lost
// file the agent reads again after the compaction. A rule on `compaction_loss` fires its
// webhook at the turn `check --json` raises the signal, and the overview's last-compaction
// column is the session engine's own last record, on the main thread and on an analysis
// thread alike.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AlertFiring, AlertRule, Overview } from '../../src/protocol/relay.ts';
import type { CheckOutput } from '../../src/core/checkOutput.ts';
import { startWatch, type Watcher } from '../../src/cli/watch.ts';
import { runCli } from '../cli/runCli.ts';
import { until, WebhookReceiver } from './expectations.ts';
import { relaysPerTest, ROOT, tempDir } from './helpers.ts';

const FIXTURE = path.join(ROOT, 'e2e/fixtures/claude-code-compactions.jsonl');
const relay = relaysPerTest();
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe.each([0, 1])('compactions on the relay (analysis threads: %i)', (analysisThreads) => {
  it('a compaction_loss rule fires its webhook where check raises it; the overview shows the last compaction', async () => {
    const report = JSON.parse((await runCli(['check', '--json', '--fail-on', 'never', FIXTURE])).stdout) as CheckOutput;
    const session = report.sessions[0]!;
    const losses = session.findings.filter((f) => f.signal === 'compaction_loss');
    expect(losses.map((f) => f.severity)).toEqual(['warning']);

    const receiver = new WebhookReceiver();
    await receiver.start();
    cleanup.push(() => receiver.stop());
    const r = await relay({ analysisThreads, allowWebhookHosts: ['127.0.0.1'] });
    const res = await fetch(`${r.url}api/alerts/rules`, { method: 'POST', body: JSON.stringify({ signal: 'compaction_loss', webhook: receiver.url }) });
    expect(res.status).toBe(201);
    const rule = ((await res.json()) as { rule: AlertRule }).rule;

    // the transcript grows record by record, as Claude Code writes it
    const dir = tempDir('ch-compaction-watch-');
    const file = path.join(dir, 'project', 'cc-compactions.jsonl');
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, '');
    const watcher: Watcher = startWatch({ paths: [dir], url: r.url, statePath: path.join(dir, 'state.json'), pollMs: 20 });
    cleanup.push(() => watcher.stop());
    const lines = fs.readFileSync(FIXTURE, 'utf8').trim().split('\n');
    const second = lines.findLastIndex((l) => l.includes('"compact_boundary"'));
    const overview = async () => ((await (await fetch(`${r.url}api/overview`)).json()) as Overview).sessions.find((s) => s.session_id === session.session_id);
    const append = async (part: string[]): Promise<void> => {
      for (const line of part) {
        fs.appendFileSync(file, line + '\n');
        await watcher.poll();
      }
    };
    // up to the second compaction: the last one is the first, and the refetch after it has updated it
    await append(lines.slice(0, second));
    const first = session.compactions![0]!;
    await until(async () => (await overview())?.last_compaction?.confirmed === 1, 'the confirmed loss in the overview');
    expect((await overview())!.last_compaction).toMatchObject({ turn: first.turn, retention: first.retention, compactions: 1 });
    await append(lines.slice(second));

    await until(() => receiver.bodies.length >= 1, 'the compaction_loss webhook');
    const fired = receiver.bodies[0]!;
    expect(fired).toMatchObject({ rule_id: rule.id, session_id: session.session_id, turn: losses[0]!.turn });
    expect(fired.text).toContain('compaction_loss');
    const history = ((await (await fetch(`${r.url}api/alerts/history`)).json()) as { alerts: AlertFiring[] }).alerts;
    expect(history.map((h) => h.turn)).toEqual([losses[0]!.turn]);

    const last = session.compactions!.at(-1)!;
    await until(async () => (await overview())?.turns === session.turns, 'every turn analysed');
    expect((await overview())!.last_compaction).toEqual({
      turn: last.turn,
      kind: last.kind,
      tokens_before: last.tokens_before,
      tokens_after: last.tokens_after,
      retention: last.retention,
      confirmed: Object.values(last.retention).reduce((n, k) => n + k.confirmed, 0),
      compactions: session.compactions!.length,
    });
    // contract §8.9: the row of an out-of-scope session carries its agent and its headline, in check's words
    const human = (await runCli(['check', '--fail-on', 'never', FIXTURE])).stdout;
    const row = (await overview())!;
    expect(row.agent).toBe('claude-code');
    expect(row.context).toMatchObject({ kind: 'loss_confirmed', label: 'LOSS CONFIRMED', compactions: 2, confirmed_losses: 1, orphan_edges: 0 });
    expect(human).toContain(`    ${row.context!.text}\n`);
    expect(row.context!.fill).toBeCloseTo(session.metrics.at(-1)!.tokens_total / session.context_window!.tokens, 4);
  });
});
