// Keyboard stepping, the findings ↔ cursor link, and thresholds applied by re-analysis.
import { expect, test } from './helpers/test.ts';
import { dropFile, fixture, gotoApp, signalCounts, waitLoaded } from './helpers/app.ts';
import { checkJson, countsBySignal } from './helpers/relay.ts';

test('arrow keys step turns, Home/End jump, Shift+arrows seek faults', async ({ page }) => {
  await gotoApp(page);
  await dropFile(page, fixture('stale-scores.jsonl'));
  await waitLoaded(page);
  const verdict = page.getByTestId('verdict');
  // a saved run opens on its first fault
  await expect(verdict).toHaveAttribute('data-turn', '15');
  await page.keyboard.press('End');
  await expect(verdict).toHaveAttribute('data-turn', '60');
  await page.keyboard.press('ArrowLeft');
  await expect(verdict).toHaveAttribute('data-turn', '59');
  await page.keyboard.press('Home');
  await expect(verdict).toHaveAttribute('data-turn', '1');
  await expect(verdict).toHaveAttribute('data-action', 'prune_ok');
  await page.keyboard.press('Shift+ArrowRight');
  await expect(verdict).toHaveAttribute('data-turn', '15');
  await expect(verdict).toHaveAttribute('data-action', 'recompute');
  await page.keyboard.press('ArrowRight');
  await expect(verdict).toHaveAttribute('data-turn', '16');
  // the signal summary filters the list; a finding row moves the cursor to its turn
  await page.locator('[data-testid="signal-count"][data-signal="pruned_on_stale_score"]').click();
  await expect(page.getByTestId('findings-list').locator('[data-signal]').first()).toHaveAttribute('data-signal', 'pruned_on_stale_score');
  await page.locator('[data-signal="pruned_on_stale_score"][data-turn="45"]').click();
  await expect(verdict).toHaveAttribute('data-turn', '45');
});

test('thresholds from the settings re-run the analysis like check --set', async ({ page }) => {
  const file = fixture('collapse.jsonl');
  await gotoApp(page);
  await dropFile(page, file);
  await waitLoaded(page);
  await page.getByRole('button', { name: /Thresholds/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Thresholds' });
  await dialog.getByRole('textbox', { name: /spread_floor/ }).fill('0.02');
  await dialog.getByRole('textbox', { name: /collapse_turns/ }).fill('3');
  await dialog.getByRole('button', { name: /Apply/ }).click();
  await expect(page.getByRole('button', { name: 'Thresholds (2 set)' })).toBeVisible();
  const oracle = checkJson(file, { spread_floor: 0.02, collapse_turns: 3 }).sessions[0]!;
  await expect.poll(() => signalCounts(page)).toEqual(countsBySignal(oracle.findings));
  expect(countsBySignal(oracle.findings)).not.toEqual(countsBySignal(checkJson(file).sessions[0]!.findings));
});
