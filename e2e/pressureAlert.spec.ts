// Issue 21 item 3 in a real dashboard: a context_pressure rule added in the Alerts panel fires
// its webhook while `watch` streams a Claude Code transcript that fills its window, before the
// agent compacts; the receiver (on loopback, named with --allow-webhook-host) gets the POST.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from './helpers/test.ts';
import { checkJson, ROOT, startRelay, type RelayHandle } from './helpers/relay.ts';
import { PRESSURE_FIXTURE, PRESSURE_TURN } from './fixtures/claudeCodePressure.ts';

const TOKEN = 'e2e-pressure-token';
let relay: RelayHandle;
let receiver: http.Server;
const posts: Record<string, unknown>[] = [];

test.beforeEach(async () => {
  relay = await startRelay({ token: TOKEN, allowWebhookHost: '127.0.0.1' });
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      posts.push(JSON.parse(body) as Record<string, unknown>);
      res.end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
});
test.afterEach(async ({ page }) => {
  await page.close();
  await relay.stop();
  await new Promise((r) => receiver.close(r));
});

test('a context_pressure rule added in the dashboard posts to its webhook while watch streams a filling transcript', async ({ page }) => {
  const oracle = checkJson(PRESSURE_FIXTURE).sessions[0]!;
  expect(oracle.findings.filter((f) => f.signal === 'context_pressure').map((f) => f.turn)).toEqual([PRESSURE_TURN]);
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const session = `e2e-pressure-${Date.now()}`;

  await page.goto(`${relay.url}/`);
  await page.getByTestId('relay-token').fill(TOKEN);
  await page.getByTestId('overview-alerts').click();
  await page.getByTestId('rule-signal').selectOption('context_pressure');
  await page.getByTestId('rule-severity').selectOption('');
  await page.getByTestId('rule-session').fill(session);
  await page.getByTestId('rule-webhook').fill(hook);
  await page.getByTestId('rule-add').click();
  await expect(page.getByTestId('alert-rule')).toHaveCount(1);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-e2e-pressure-'));
  const file = path.join(dir, 'billing-service', `${session}.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const lines = fs
    .readFileSync(PRESSURE_FIXTURE, 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.replace(/"sessionId":"[^"]+"/, `"sessionId":"${session}"`));
  fs.writeFileSync(file, '');
  const watcher = spawn(
    process.execPath,
    [
      path.join(ROOT, 'bin', 'context-health.mjs'),
      'watch',
      dir,
      '--url',
      relay.url,
      '--token',
      TOKEN,
      '--state',
      path.join(dir, 'state.json'),
      '--poll',
      '100',
    ],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  watcher.stderr!.resume();
  try {
    // the transcript grows a record at a time, as the agent writes it
    for (const line of lines) {
      fs.appendFileSync(file, line + '\n');
      await new Promise((r) => setTimeout(r, 20));
    }
    await expect.poll(() => posts.length, { timeout: 20_000 }).toBeGreaterThan(0);
    expect(JSON.stringify(posts[0])).toContain('context_pressure');
    expect(JSON.stringify(posts[0])).toContain(session);
    // the dashboard's history shows the firing at the pressure turn, before the compaction
    const firing = page.getByTestId('alert-firing');
    await expect(firing).toHaveCount(1);
    await expect(firing.getByRole('link', { name: `turn ${PRESSURE_TURN}` })).toBeVisible();
    const compaction = oracle.findings.find((f) => f.signal === 'compaction')!.turn;
    expect(PRESSURE_TURN).toBeLessThan(compaction);
  } finally {
    watcher.kill('SIGTERM');
  }
});
