// Screenshots of the main states, for a person to look at (test-results/screens/).
import { expect, test } from '@playwright/test';
import { dropFile, fixture, gotoApp, waitLoaded } from './helpers/app.ts';

const dir = 'test-results/screens';

test('screens: welcome, a loaded file, the inspector', async ({ page }) => {
  await gotoApp(page);
  await page.screenshot({ path: `${dir}/01-welcome.png` });
  await dropFile(page, fixture('all-faults.jsonl'));
  await waitLoaded(page);
  await expect(page.getByTestId('chart-orphans')).toHaveAttribute('data-state', 'ready');
  await expect(page.getByTestId('verdict')).toHaveAttribute('data-action', /.+/);
  await page.screenshot({ path: `${dir}/02-loaded.png` });
  await page.screenshot({ path: `${dir}/03-loaded-full.png`, fullPage: true });
  await page.locator('.verdict .chip').first().click();
  await expect(page.getByTestId('span-inspector').getByTestId('hash-check')).toBeVisible();
  await page.screenshot({ path: `${dir}/04-inspector.png` });
});
