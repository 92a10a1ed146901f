// Screenshots of the main states, for a person to look at (test-results/screens/), and
// the PNG a "Save PNG" button produces.
import { expect, test } from './helpers/test.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nodeSha256 } from '../src/node/platform.ts';
import { simulateSession } from '../src/sim/scenario.ts';
import { dropFile, fixture, gotoApp, waitLoaded } from './helpers/app.ts';
import { replay } from './helpers/relay.ts';

const dir = 'test-results/screens';

test('screens: welcome, a loaded file, the inspector, an exported PNG', async ({ page }) => {
  await gotoApp(page);
  await page.screenshot({ path: `${dir}/01-welcome.png` });
  await dropFile(page, fixture('all-faults.jsonl'));
  await waitLoaded(page);
  await expect(page.getByTestId('chart-orphans')).toHaveAttribute('data-state', 'ready');
  await expect(page.getByTestId('verdict')).toHaveAttribute('data-action', /.+/);
  await page.screenshot({ path: `${dir}/02-loaded.png` });
  await page.screenshot({ path: `${dir}/03-loaded-full.png`, fullPage: true });
  await page.locator('.verdict .chip').nth(1).click();
  await expect(page.getByTestId('span-inspector').getByTestId('hash-check')).toBeVisible();
  await page.screenshot({ path: `${dir}/04-inspector.png` });
  const download = page.waitForEvent('download');
  await page.getByTestId('chart-spread').getByRole('button', { name: /Save/ }).click();
  await (await download).saveAs(`${dir}/05-export-spread.png`);
});

test('screens: a stale span with its diff, the lineage graph with ghosts', async ({ page }) => {
  await gotoApp(page);
  await dropFile(page, fixture('stale-scores.jsonl'));
  await waitLoaded(page);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('verdict')).toHaveAttribute('data-turn', '17');
  await page.locator('.turn-findings .chip').first().click();
  await expect(page.getByTestId('span-inspector').getByTestId('hash-check')).toHaveAttribute('data-binding', 'stale');
  await page.screenshot({ path: `${dir}/06-stale-span.png` });

  await dropFile(page, fixture('drift-and-orphans.jsonl'));
  await waitLoaded(page);
  await page.locator('[data-testid="signal-count"][data-signal="orphaned_parent"]').click();
  await page.locator('[data-signal="orphaned_parent"][data-turn="35"]').click();
  const orphans = page.getByTestId('chart-orphans');
  await orphans.scrollIntoViewIfNeeded();
  await expect(orphans.locator('.span-node.ghost').first()).toBeVisible();
  await orphans.screenshot({ path: `${dir}/07-lineage.png` });
  await page.getByTestId('chart-drift').screenshot({ path: `${dir}/08-drift.png` });
});

test('screens: no canary, thresholds dialog', async ({ page }) => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ch-nocanary-')), 'no-canary.jsonl');
  const lines = [...simulateSession({ seed: 9, sessionId: 'no-canary', turns: 40, spans: 20, pinned: 0 }, nodeSha256)].map((m) => JSON.stringify(m));
  fs.writeFileSync(file, lines.join('\n') + '\n');
  await gotoApp(page);
  await dropFile(page, file);
  await waitLoaded(page);
  await expect(page.getByTestId('chart-canary')).toHaveAttribute('data-state', 'empty');
  await page.getByTestId('chart-canary').screenshot({ path: `${dir}/09-no-canary.png` });
  await page.getByRole('button', { name: /Thresholds/ }).click();
  await expect(page.getByRole('dialog', { name: 'Thresholds' })).toBeVisible();
  await page.screenshot({ path: `${dir}/10-thresholds.png` });
});

test('screens: a live session being followed', async ({ page, baseURL }) => {
  const sessionId = `screens-live-${Date.now()}`;
  await page.goto(`/#live=${sessionId}`);
  const streaming = replay(fixture('all-faults.jsonl'), baseURL!, { session: sessionId, speed: '15' });
  await expect.poll(async () => Number(await page.getByTestId('session-turns').getAttribute('data-turns')), { timeout: 30_000 }).toBeGreaterThanOrEqual(90);
  await page.screenshot({ path: `${dir}/11-live.png` });
  await streaming.done;
});
