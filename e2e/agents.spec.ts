// Other agents' transcripts on the dashboard (docs/adapters.md, contract §7): a Claude Code
// session dropped on the page reads as `check --json` reads it, with its compaction marked on
// every chart and the reference scorer named; the scorer setting reads as `check --scorer`.
import path from 'node:path';
import { expect, test } from './helpers/test.ts';
import { dropFile, gotoApp, signalCounts, waitLoaded } from './helpers/app.ts';
import { checkJson, countsBySignal, ROOT } from './helpers/relay.ts';

const CLAUDE = path.join(ROOT, 'test/fixtures/adapters/claude-code.jsonl');
const DISAGREES = path.join(ROOT, 'test/fixtures/adapters/harness-disagrees.jsonl');
const CHARTS = ['chart-spread', 'chart-canary', 'chart-drift', 'chart-orphans'];

test('a dropped Claude Code transcript: turns, records not mapped, findings as check --json, the compaction marked, reference scores named', async ({
  page,
}) => {
  const oracle = checkJson(CLAUDE);
  const session = oracle.sessions[0]!;
  const skipped = Object.entries(oracle.adapter!.skipped_records);
  expect(skipped.length).toBeGreaterThan(0);
  await gotoApp(page);
  await dropFile(page, CLAUDE);
  const status = await waitLoaded(page);
  expect(status.state).toBe('done');
  expect(status.turns).toBe(session.turns);
  expect(status.text).toContain(`${session.turns} turns loaded`);
  expect(status.text).toContain('Claude Code transcript; records not mapped: ');
  for (const [kind, n] of skipped) expect(status.text).toContain(`${n} ${kind}`);
  expect(status.text).toContain('scores: reference (BM25)');

  // the signal list renders after the summary arrives: wait for it, never a sleep
  await expect.poll(() => signalCounts(page)).toEqual(countsBySignal(session.findings));

  // contract §8.3: every compaction where it takes effect: the microcompaction at turn 3, and
  // turn 5, the first call after the compact_boundary
  for (const id of CHARTS) {
    const markers = page.getByTestId(id).getByTestId('compaction-marker');
    await expect(markers).toHaveCount(2);
    expect(await markers.evaluateAll((els) => els.map((e) => e.getAttribute('data-turn')))).toEqual(['3', '5']);
  }
});

test('the scorer setting "both" reads as check --scorer both: reference_disagreement and the agreement chart', async ({ page }) => {
  const oracle = checkJson(DISAGREES, {}, ['--scorer', 'both']);
  const counts = countsBySignal(oracle.sessions[0]!.findings);
  expect(counts.reference_disagreement).toBeGreaterThan(0);
  await gotoApp(page);
  await dropFile(page, DISAGREES);
  await waitLoaded(page);
  // auto (the default) leaves a harness-scored session alone: no agreement, no chart
  await expect.poll(() => signalCounts(page)).toEqual(countsBySignal(checkJson(DISAGREES).sessions[0]!.findings));
  await expect(page.getByTestId('chart-agreement')).toHaveCount(0);

  await page.getByRole('button', { name: /Thresholds/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Thresholds' });
  await dialog.getByTestId('scorer-setting').selectOption('both');
  await dialog.getByRole('button', { name: 'Apply and re-analyse' }).click();
  await expect(page.getByTestId('load-status')).toContainText("scores: the harness's, compared with the reference (BM25)");
  await expect.poll(() => signalCounts(page)).toEqual(counts);
  await expect(page.getByRole('button', { name: 'Thresholds · scorer both' })).toBeVisible();
  const chart = page.getByTestId('chart-agreement');
  await expect(chart).toHaveAttribute('data-state', 'ready');
  await expect(chart).toContainText('reference_agreement_floor 0');
  await expect(chart).toContainText('Kendall τ-b (−1 to 1)');
});
