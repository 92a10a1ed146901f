// `context-health report --format html` (docs/reports.md): the one file opens in Chromium
// with the network blocked and shows the report and its charts.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test } from './helpers/test.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

test('the HTML report opens offline and shows its charts', async ({ page, context }) => {
  test.setTimeout(180_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-report-html-'));
  const run = spawnSync(
    process.execPath,
    [
      path.join(ROOT, 'bin/context-health.mjs'),
      'report',
      path.join(ROOT, 'public/samples/all-faults.jsonl'),
      '--incident',
      '1',
      '--format',
      'html',
      '--out',
      dir,
    ],
    { encoding: 'utf8' },
  );
  expect(run.stderr).toBe('');
  expect(run.status).toBe(1); // as check: the sample has faults
  const file = path.join(dir, 'report.html');
  const asked: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    asked.push(url);
    return route.abort();
  });
  await page.goto(pathToFileURL(file).href);
  await expect(page.locator('h1')).toContainText('Incident 1');
  const figures = page.locator('figure > svg');
  await expect(figures).toHaveCount(5); // the four charts and what fills the context
  for (let i = 0; i < 5; i++) {
    const fig = figures.nth(i);
    await expect(fig).toBeVisible();
    const box = (await fig.boundingBox())!;
    expect(box.width).toBeGreaterThan(400);
    expect(box.height).toBeGreaterThan(150);
    // the chart's own series are drawn (not an empty frame), and its stamp
    expect(await fig.locator('path.series-line, path.series-area, path.series-band').count()).toBeGreaterThan(0);
    await expect(fig.locator('.ch-stamp')).toContainText('Session all-faults');
  }
  await expect(page.locator('table').first()).toBeVisible();
  expect(asked).toEqual([]);
});
