// Dropped and picked files: load-status, findings against `check --json`, bad lines by
// line number, gzip and JSON-array transcripts, and every chart drawn with data.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { expect, test } from './helpers/test.ts';
import { collectFindings, dropFile, fixture, gotoApp, pickFile, signalCounts, waitLoaded } from './helpers/app.ts';
import { BIN, checkJson, countsBySignal, ROOT } from './helpers/relay.ts';

test('a dropped file loads with the right load-status and the same findings as check --json', async ({ page }) => {
  const file = fixture('all-faults.jsonl');
  const oracle = checkJson(file);
  const session = oracle.sessions[0]!;
  await gotoApp(page);
  await dropFile(page, file);
  const status = await waitLoaded(page);
  expect(status.state).toBe('done');
  expect(status.turns).toBe(session.turns);
  expect(status.errors).toBe(oracle.input_errors.length);
  expect(status.text).toContain(`${session.turns} turns loaded`);
  expect(status.text).toContain(`${oracle.input_errors.length} input errors`);

  await expect.poll(() => signalCounts(page)).toEqual(countsBySignal(session.findings));
  const shown = await collectFindings(page);
  const key = (f: { signal: string; turn: number }): string => `${f.turn}:${f.signal}`;
  expect(shown.map(key).sort()).toEqual(session.findings.map(key).sort());
  for (const f of shown) expect(f.severity).toBe(session.findings.find((g) => key(g) === key(f))!.severity);
});

test('a picked file loads too, and every chart draws its data', async ({ page }) => {
  const file = fixture('collapse.jsonl');
  const oracle = checkJson(file);
  await gotoApp(page);
  await pickFile(page, file);
  const status = await waitLoaded(page);
  expect(status.turns).toBe(oracle.sessions[0]!.turns);
  for (const id of ['chart-spread', 'chart-canary', 'chart-drift', 'chart-orphans']) {
    const chart = page.getByTestId(id);
    await expect(chart).toHaveAttribute('data-state', 'ready');
    expect(Number(await chart.getAttribute('data-points'))).toBeGreaterThan(10);
    // a drawn line or area: an SVG path with real geometry
    const d = await chart.locator('path.series-line, path.series-area').first().getAttribute('d');
    expect(d?.length ?? 0).toBeGreaterThan(50);
  }
  await expect.poll(() => signalCounts(page)).toEqual(countsBySignal(oracle.sessions[0]!.findings));
});

test('bad lines are listed by line number and never stop the load', async ({ page }) => {
  const file = fixture('with-bad-lines.jsonl');
  const oracle = checkJson(file);
  expect(oracle.input_errors.length).toBeGreaterThan(0);
  await gotoApp(page);
  await dropFile(page, file);
  const status = await waitLoaded(page);
  expect(status.errors).toBe(oracle.input_errors.length);
  expect(status.turns).toBe(oracle.sessions.reduce((n, s) => n + s.turns, 0));
  await page.getByRole('button', { name: /Show the \d+ input error/ }).click();
  const lines = await page
    .getByTestId('input-errors')
    .locator('li[data-line]')
    .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-line'))));
  expect(lines).toEqual(oracle.input_errors.map((e) => e.line));
});

for (const name of ['all-faults.jsonl.gz', 'all-faults.json']) {
  test(`${name} loads like the JSON Lines file`, async ({ page }) => {
    const oracle = checkJson(fixture(name));
    await gotoApp(page);
    await dropFile(page, fixture(name));
    const status = await waitLoaded(page);
    expect(status.turns).toBe(oracle.sessions[0]!.turns);
    expect(status.errors).toBe(oracle.input_errors.length);
    await expect.poll(() => signalCounts(page)).toEqual(countsBySignal(oracle.sessions[0]!.findings));
  });
}

test('a dropped file of no format gets the one sentence check gives, not an error per line', async ({ page }, info) => {
  const file = info.outputPath('notes.txt');
  fs.writeFileSync(file, 'meeting notes\n<html><body>not a transcript</body></html>\n42\n');
  const cli = spawnSync(process.execPath, [BIN, 'check', file], { cwd: ROOT, encoding: 'utf8' });
  expect(cli.status).toBe(2);
  const sentence = /not a transcript this reads: expected one of [^\n]*/.exec(cli.stderr)![0];
  await gotoApp(page);
  await dropFile(page, file);
  const status = await waitLoaded(page);
  expect(status.turns).toBe(0);
  expect(status.text).toBe(`notes.txt: ${sentence}`);
});
