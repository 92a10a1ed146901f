// Issue 21 on the dashboard: a Claude Code session whose records are UUIDs is named by its
// spans' labels in the findings, the inspector (the id kept beside it) and the lineage; "What
// fills the context" draws its bands, the window and the 80% threshold, and follows a live
// `watch`; context_pressure fires at the threshold; the overview's rows read distinctly; and
// at 1440 and 1024 px no text of the overview or the turn panel is clipped.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from './helpers/test.ts';
import { dropFile, gotoApp, waitLoaded } from './helpers/app.ts';
import { followSession } from './helpers/live.ts';
import { checkJson, ROOT } from './helpers/relay.ts';
import { PRESSURE_FIXTURE, PRESSURE_TURN } from './fixtures/claudeCodePressure.ts';

const SHOTS = process.env.E2E_SHOTS ?? path.join(os.tmpdir(), 'ch-e2e-shots');
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

/** Elements with text whose content is wider than their box (clipped, or cut by an ellipsis). */
async function clippedText(page: Page, selector: string): Promise<string[]> {
  return page.locator(selector).evaluateAll((roots) => {
    const out: string[] = [];
    for (const root of roots)
      for (const el of [root, ...Array.from(root.querySelectorAll('*'))]) {
        const h = el as HTMLElement;
        if (h.childElementCount > 0 && Array.from(h.childNodes).every((n) => n.nodeType !== Node.TEXT_NODE || n.textContent!.trim() === '')) continue;
        if ((h.textContent ?? '').trim() === '' || h.clientWidth === 0) continue;
        if (getComputedStyle(h).overflowX === 'auto' || getComputedStyle(h).overflowX === 'scroll') continue; // a scroller, not a clip
        if (h.scrollWidth > h.clientWidth + 1) out.push(`${h.className}: ${(h.textContent ?? '').trim().slice(0, 60)} (${h.scrollWidth} > ${h.clientWidth})`);
      }
    return out;
  });
}

test('a dropped Claude Code session names its spans by label, draws what fills the context and its pressure', async ({ page }) => {
  const oracle = checkJson(PRESSURE_FIXTURE).sessions[0]!;
  const pressure = oracle.findings.filter((f) => f.signal === 'context_pressure');
  expect(pressure.map((f) => f.turn)).toEqual([PRESSURE_TURN]);
  await gotoApp(page);
  await dropFile(page, PRESSURE_FIXTURE);
  expect((await waitLoaded(page)).state).toBe('done');

  // the composition chart: its bands, the window and the threshold on the scale, the signal at the threshold
  const chart = page.getByTestId('chart-composition');
  await expect(chart).toHaveAttribute('data-state', 'ready');
  await expect(chart.locator('h3')).toHaveText('What fills the context');
  await expect(chart).toContainText('context (tokens)');
  await expect(chart).toContainText('turn');
  await expect(chart.locator('.composition-plot')).toHaveAttribute('data-window-on-scale', 'true');
  expect(Number(await chart.locator('.composition-plot').getAttribute('data-bands'))).toBeGreaterThanOrEqual(4);
  await expect(chart.locator('path.series-band')).not.toHaveCount(0);
  await expect(chart.getByTestId('pressure-line').locator('path.series-line')).toHaveCount(2);
  expect(
    await chart
      .getByTestId('pressure-line')
      .locator('path.series-line')
      .evaluateAll((ps) => ps.every((p) => (p.getAttribute('d') ?? '').length > 4)),
  ).toBe(true);
  await expect(chart.getByTestId('compaction-marker')).toHaveCount(1);
  await expect(chart).toContainText('pressure threshold (80% of the window)');
  await expect(page.locator('[data-testid="signal-count"][data-signal="context_pressure"]')).toHaveAttribute('data-count', '1');
  const row = page.locator(`[data-signal="context_pressure"][data-turn="${PRESSURE_TURN}"]`);
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('82.5%');

  // the compaction finding names the summary span by its label, not its UUID
  const finding = page.locator('.finding-row[data-signal="compaction"]');
  await expect(finding.getByTestId('finding-span')).toHaveText(/compaction summary/);
  expect(await finding.innerText()).not.toMatch(UUID);

  // the turn panel at the pressure turn: the breakdown, the largest spans, span rows by label
  await row.click();
  const comp = page.getByTestId('turn-composition');
  await expect(comp).toContainText('82.5% of a 200,000-token window');
  await expect(comp.getByTestId('kind-bar').first()).toBeVisible();
  const largest = comp.getByTestId('largest-span');
  await expect(largest.first()).toBeVisible();
  expect((await largest.allInnerTexts()).join('\n')).not.toMatch(UUID);
  expect((await page.locator('.span-row').allInnerTexts()).join('\n')).not.toMatch(UUID);
  await page.locator('.span-row', { hasText: 'Bash: go test' }).first().click();
  const inspector = page.getByTestId('span-inspector');
  await expect(inspector.getByTestId('span-name')).toHaveText(/^Bash: go test/);
  // the id stays available: on screen beside the label, with a copy button
  await expect(inspector.getByTestId('span-id')).toHaveText(UUID);
  await expect(inspector.getByRole('button', { name: /Copy the span id/ })).toBeVisible();

  // the lineage at the compaction: the summary and the spans it replaced, by label
  const compactionTurn = oracle.findings.find((f) => f.signal === 'compaction')!.turn;
  await page.locator(`.finding-row[data-signal="compaction"][data-turn="${compactionTurn}"]`).click();
  // the graph is drawn once it comes near the viewport
  await page.locator('section.lineage').scrollIntoViewIfNeeded();
  const lineage = page.locator('.lineage-canvas[data-fitted="true"]');
  await expect(lineage).toBeVisible();
  const nodes = page.locator('.span-node');
  await expect(nodes.first()).toBeVisible();
  const texts = await nodes.allInnerTexts();
  expect(texts.join('\n')).not.toMatch(UUID);
  expect(texts.join('\n')).toContain('compaction summary');
  // what the compaction replaced is archived (contract §8.2), drawn as such: not a missing parent,
  // and, being many, as one node
  const archived = page.locator('.span-node.archived[data-members]');
  await expect(archived).toHaveCount(1);
  await expect(archived).toContainText(/^\d+ archived parentsarchived · not live$/);
  await expect(page.locator('.span-node.ghost')).toHaveCount(0);
  await expect(page.locator('.lineage-head')).toContainText(/0 missing parent\(s\) · \d+ archived parent\(s\)/);
  await page.locator('section.lineage').screenshot({ path: path.join(SHOTS, 'labels-lineage-archived.png') });
  // the summary's inspector lists them as archived parents, not missing ones, the first few by label
  await page.locator('.span-node', { hasText: 'compaction summary' }).click();
  const lineageList = page.getByTestId('span-inspector').locator('.lineage-list');
  await expect(lineageList.locator('dt', { hasText: 'archived parents' })).toBeVisible();
  await expect(lineageList).toContainText(/\d+ spans, the first 12/);
  await expect(lineageList.locator('dt', { hasText: 'missing parents' })).toHaveCount(0);

  // back at the pressure turn, whose turn panel shows the breakdown, for the clipping check
  // (the span inspector takes the turn panel's place while a span is selected)
  await page.getByRole('button', { name: /Close the span inspector/ }).click();
  await row.click();
  for (const width of [1440, 1024]) {
    await page.setViewportSize({ width, height: 1000 });
    await expect(page.getByTestId('turn-composition')).toBeAttached();
    await page.waitForTimeout(300); // the charts' resize settles (a ResizeObserver debounced by 150 ms)
    expect(await clippedText(page, '.turn-panel')).toEqual([]);
    await page.screenshot({ path: path.join(SHOTS, `labels-dashboard-${width}.png`), fullPage: true });
    await chart.screenshot({ path: path.join(SHOTS, `labels-composition-${width}.png`) });
  }
  // exported like every chart
  const png = page.waitForEvent('download');
  await chart.getByRole('button', { name: /Save “What fills the context” as PNG/ }).click();
  expect((await png).suggestedFilename()).toMatch(/^composition.*\.png$/);
});

test('live: the composition chart follows watch, and the overview rows read distinctly without clipped text', async ({ page, baseURL }) => {
  const run = Date.now();
  const ids = [`e2e-pressure-a-${run}`, `e2e-pressure-b-${run}`];
  const lines = fs.readFileSync(PRESSURE_FIXTURE, 'utf8').trim().split('\n');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-e2e-labels-'));
  // two sessions of one project with the same first prompt: alike after truncation, told apart by their ids
  const files = ids.map((id) => {
    const file = path.join(dir, 'billing-service', `${id}.jsonl`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    return { id, file, lines: lines.map((l) => l.replace(/"sessionId":"[^"]+"/, `"sessionId":"${id}"`)) };
  });
  fs.writeFileSync(files[1]!.file, files[1]!.lines.join('\n') + '\n');
  fs.writeFileSync(files[0]!.file, files[0]!.lines.slice(0, 5).join('\n') + '\n');
  const watcher = watch(dir, baseURL!);
  try {
    await page.goto('/');
    await followSession(page, ids[0]!);
    const chart = page.getByTestId('chart-composition');
    await expect(chart).toHaveAttribute('data-state', 'ready');
    const before = Number(await chart.getAttribute('data-points'));
    const bandsBefore = await chart.locator('.legend li').allInnerTexts();
    fs.appendFileSync(files[0]!.file, files[0]!.lines.slice(5).join('\n') + '\n');
    await expect(page.getByTestId('session-turns')).toHaveAttribute('data-turns', '7', { timeout: 15_000 });
    await expect.poll(async () => Number(await chart.getAttribute('data-points')), { timeout: 10_000 }).toBeGreaterThan(before);
    // the bands that were there keep their order as the session grows
    const bandsAfter = await chart.locator('.legend li').allInnerTexts();
    expect(bandsAfter.filter((b) => bandsBefore.includes(b))).toEqual(bandsBefore.filter((b) => bandsAfter.includes(b)));
    await expect(chart.locator('.composition-plot')).toHaveAttribute('data-window-on-scale', 'true');

    await page.goto('/');
    for (const width of [1440, 1024]) {
      await page.setViewportSize({ width, height: 900 });
      const rows = page.locator(ids.map((id) => `[data-testid="overview-row"][data-session="${id}"]`).join(','));
      await expect(rows).toHaveCount(2);
      const names = await rows.getByTestId('overview-name').allInnerTexts();
      expect(names[0]).toContain('billing-service — Port');
      expect(new Set(names).size).toBe(2);
      // what tells them apart is on screen, inside its row, not cut off below it
      const inside = await rows.evaluateAll((els) =>
        els.map((row) => {
          const id = row.querySelector('.overview-id');
          if (id === null) return false;
          const r = row.getBoundingClientRect();
          const b = id.getBoundingClientRect();
          return b.height > 0 && b.top >= r.top && b.bottom <= r.bottom + 0.5;
        }),
      );
      expect(inside).toEqual([true, true]);
      // imported: no rate
      expect(await rows.getByTestId('overview-rate').allInnerTexts()).toEqual(['—', '—']);
      // this test's rows (the relay is shared with other specs; e2e/screens.spec.ts checks the whole page)
      const own = ids.map((id) => `[data-testid="overview-row"][data-session="${id}"] [role="cell"]`).join(', ');
      expect(await clippedText(page, own)).toEqual([]);
      await page.screenshot({ path: path.join(SHOTS, `labels-overview-${width}.png`) });
    }
  } finally {
    watcher.kill('SIGTERM');
  }
});

/** `context-health watch <dir> --url <relay>`, polling often, with its own state file. */
function watch(dir: string, url: string): ChildProcess {
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'bin', 'context-health.mjs'), 'watch', dir, '--url', url, '--state', path.join(dir, 'state.json'), '--poll', '100'],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr!.resume();
  return child;
}
