// Comparing two sessions (contract §6.4) in the dashboard: the signal table and the first
// divergence must be what `diff --json` says about the same two files; the link the page
// writes must reopen the same comparison; a live B keeps the comparison growing.
import type { Page } from '@playwright/test';
import { expect, test } from './helpers/test.ts';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { dropFile, fixture, gotoApp, waitLoaded } from './helpers/app.ts';
import { replay, ROOT } from './helpers/relay.ts';

interface DiffJson {
  align: string;
  signals: { signal: string; a: number; b: number; difference: number }[];
  first_divergence: { a: { turn: number; action: string }; b: { turn: number; action: string }; cause: string | null } | null;
  incidents: { only_a: unknown[]; only_b: unknown[]; both: unknown[] };
}

function diffJson(a: string, b: string, align = 'turn'): DiffJson {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/context-health.mjs'), 'diff', '--json', '--fail-on-new', 'never', '--align', align, a, b], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`diff failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as DiffJson;
}

async function shownSignals(page: Page): Promise<DiffJson['signals']> {
  return page.getByTestId('compare-signal').evaluateAll((rows) =>
    rows.map((r) => ({
      signal: r.getAttribute('data-signal')!,
      a: Number(r.getAttribute('data-a')),
      b: Number(r.getAttribute('data-b')),
      difference: Number(r.getAttribute('data-difference')),
    })),
  );
}

async function expectMatchesDiff(page: Page, want: DiffJson): Promise<void> {
  await expect(page.getByTestId('compare-panel')).toHaveAttribute('data-ready', 'true');
  await expect.poll(() => shownSignals(page)).toEqual(want.signals.map(({ signal, a, b, difference }) => ({ signal, a, b, difference })));
  await expect(page.getByTestId('compare-only-a').locator('li')).toHaveCount(want.incidents.only_a.length);
  await expect(page.getByTestId('compare-only-b').locator('li')).toHaveCount(want.incidents.only_b.length);
  await expect(page.getByTestId('compare-both').locator('li')).toHaveCount(want.incidents.both.length);
}

test('two samples side by side: the table is diff --json, the first divergence lands on its turn, the link reopens it', async ({ page, context }) => {
  const want = diffJson(fixture('healthy.jsonl'), fixture('collapse.jsonl'));
  expect(want.first_divergence).not.toBeNull();
  await gotoApp(page, '#sample=healthy.jsonl');
  await waitLoaded(page);
  await page.getByTestId('compare-pick').selectOption('sample:collapse.jsonl');
  await expect(page.getByTestId('compare-status')).toHaveAttribute('data-state', 'done');
  await expectMatchesDiff(page, want);

  const d = want.first_divergence!;
  const button = page.getByTestId('first-divergence');
  await expect(button).toHaveAttribute('data-a-turn', String(d.a.turn));
  await button.click();
  await expect(page.getByTestId('verdict')).toHaveAttribute('data-turn', String(d.a.turn));
  const side = page.getByTestId('compare-verdicts');
  await expect(side).toHaveAttribute('data-a-turn', String(d.a.turn));
  await expect(side).toHaveAttribute('data-b-turn', String(d.b.turn));
  await expect(side).toHaveAttribute('data-a-action', d.a.action);
  await expect(side).toHaveAttribute('data-b-action', d.b.action);

  // B is drawn dashed in every chart that has its series (healthy A has no orphans to draw against, B neither: an empty path is fine there)
  for (const id of ['chart-spread', 'chart-drift']) {
    const dashed = page.getByTestId(id).locator('path.series-line[stroke="#6d28d9"]');
    await expect.poll(async () => (await dashed.getAttribute('d'))?.length ?? 0).toBeGreaterThan(50);
  }

  // the link the page wrote, opened fresh, shows the same comparison
  expect(new URL(page.url()).hash).toContain('compare=sample%3Acollapse.jsonl');
  const fresh = await context.newPage();
  await gotoApp(fresh, new URL(page.url()).hash);
  await waitLoaded(fresh);
  await expectMatchesDiff(fresh, want);
  await expect(fresh.getByTestId('verdict')).toHaveAttribute('data-turn', String(d.a.turn));
});

test('two dropped files: one on the page is A, one on Compare with… is B', async ({ page }) => {
  const want = diffJson(fixture('stale-scores.jsonl'), fixture('drift-and-orphans.jsonl'));
  await gotoApp(page);
  await dropFile(page, fixture('stale-scores.jsonl'));
  await waitLoaded(page);
  await dropFile(page, fixture('drift-and-orphans.jsonl'), '[data-testid="compare-drop"]');
  await expect(page.getByTestId('compare-status')).toHaveAttribute('data-state', 'done');
  // A is still the first file
  await expect(page.getByTestId('load-status')).toContainText('stale-scores.jsonl');
  await expectMatchesDiff(page, want);
});

test('aligned by relative position, two runs of different length compare as diff --align relative does', async ({ page }) => {
  const want = diffJson(fixture('healthy.jsonl'), fixture('all-faults.jsonl'), 'relative');
  await gotoApp(page, '#sample=healthy.jsonl&compare=sample:all-faults.jsonl&align=relative');
  await waitLoaded(page);
  await expect(page.getByTestId('compare-align')).toHaveValue('relative');
  await expectMatchesDiff(page, want);
  const d = want.first_divergence!;
  await page.getByTestId('first-divergence').click();
  await expect(page.getByTestId('compare-verdicts')).toHaveAttribute('data-b-turn', String(d.b.turn));
  await expect(page.getByTestId('compare-verdicts')).toHaveAttribute('data-b-action', d.b.action);
});

test('a file compared with a live replay updates as the live session grows', async ({ page, baseURL }) => {
  const file = fixture('collapse.jsonl');
  const sessionId = `e2e-compare-${Date.now()}`;
  await gotoApp(page, '#sample=healthy.jsonl');
  await waitLoaded(page);
  const streaming = replay(file, baseURL!, { session: sessionId, speed: '8' });
  const pick = page.getByTestId('compare-pick');
  // the relay's list is polled every few seconds
  await expect(pick.locator('option', { hasText: sessionId })).toHaveCount(1, { timeout: 30_000 });
  await pick.selectOption(`live:${sessionId}`);
  const status = page.getByTestId('compare-status');
  await expect(status).toHaveAttribute('data-state', /catching-up|live/);
  // 60 turns a second apart at 8× take about 7 s: the comparison is seen part-way, then whole
  const bTurns = async (): Promise<number> => Number(await status.getAttribute('data-turns'));
  const bCounted = async (): Promise<number> => (await shownSignals(page)).reduce((n, s) => n + s.b, 0);
  await expect.poll(bTurns, { timeout: 30_000 }).toBeGreaterThan(0);
  const partTurns = await bTurns();
  expect(partTurns).toBeLessThan(60);
  await expect(page.getByTestId('compare-panel')).toHaveAttribute('data-ready', 'true');
  const partCounted = await bCounted();
  expect(await streaming.done).toBe(0);
  await expect(status).toHaveAttribute('data-turns', '60', { timeout: 30_000 });
  const want = diffJson(fixture('healthy.jsonl'), file);
  // B's last signal fires at turn 42: seen part-way before it, the counts must grow (seen
  // after it, on a slow machine, they are already whole, and the turns above grew)
  if (partCounted < want.signals.reduce((n, s) => n + s.b, 0)) await expect.poll(bCounted).toBeGreaterThan(partCounted);
  await expectMatchesDiff(page, want);
});
