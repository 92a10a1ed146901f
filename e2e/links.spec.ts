// Links that reopen the view (issue 9, docs/dashboard.md "Links"): the URL the page writes,
// opened in a fresh page, shows the same turn, zoom, filters, thresholds, span and comparison;
// Back/Forward walk through jumps (arrow steps replace); a link to a dropped file waits for that
// file and says so when another is dropped.
import type { Page } from '@playwright/test';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { dropFile, fixture, gotoApp, showLastTurn, signalCounts, waitLoaded } from './helpers/app.ts';
import { checkJson, countsBySignal, replay } from './helpers/relay.ts';
import { expect, test } from './helpers/test.ts';

const sha256 = (file: string): string => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const hashOf = (page: Page): string => new URL(page.url()).hash;

interface Shown {
  turn: string | null;
  zoom: string | null;
  severities: boolean[];
  signal: string;
  thresholds: string;
  span: string | null;
  compare: string;
  counts: Record<string, number>;
}

/** What the page shows of the view, read from the screen (not the URL). */
async function shown(page: Page): Promise<Shown> {
  const head = (await page.locator('.overview-head').textContent()) ?? '';
  const inspector = page.getByTestId('span-inspector');
  return {
    turn: await page.getByTestId('verdict').getAttribute('data-turn'),
    zoom: /showing (-?\d+)–(-?\d+)/.exec(head)?.slice(1).join('..') ?? null,
    severities: await page
      .getByRole('group', { name: 'Filter findings' })
      .getByRole('checkbox')
      .evaluateAll((els) => els.map((e) => (e as HTMLInputElement).checked)),
    signal: await page.getByRole('combobox', { name: 'Signal' }).inputValue(),
    thresholds: (await page.getByRole('button', { name: /^Thresholds/ }).textContent()) ?? '',
    span: (await inspector.count()) === 0 ? null : await inspector.locator('.span-title').textContent(),
    compare: (await page.getByTestId('compare-status').count()) === 0 ? '' : ((await page.locator('.compare-b').textContent()) ?? ''),
    counts: await signalCounts(page),
  };
}

test('a copied link opened in a fresh page shows the same turn, zoom, filters, thresholds, span and comparison', async ({ page, context }) => {
  const file = fixture('stale-scores.jsonl');
  await gotoApp(page, '#sample=stale-scores.jsonl');
  await waitLoaded(page);
  // thresholds: the analysis runs again, as check --set
  await page.getByRole('button', { name: /Thresholds/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Thresholds' });
  await dialog.getByRole('textbox', { name: /max_rewrites/ }).fill('1');
  await dialog.getByRole('textbox', { name: /spread_floor/ }).fill('0.02');
  await dialog.getByRole('button', { name: /Apply/ }).click();
  const oracle = checkJson(file, { max_rewrites: 1, spread_floor: 0.02 }).sessions[0]!;
  expect(countsBySignal(oracle.findings)).not.toEqual(countsBySignal(checkJson(file).sessions[0]!.findings));
  await expect.poll(() => signalCounts(page)).toEqual(countsBySignal(oracle.findings));
  // filters, then a finding: its turn becomes the cursor and its first span opens
  await page.getByRole('combobox', { name: 'Signal' }).selectOption('stale_score');
  await page.getByRole('group', { name: 'Filter findings' }).getByRole('checkbox', { name: /info/ }).uncheck();
  const firstStale = oracle.findings.find((f) => f.signal === 'stale_score')!;
  await page.locator(`.finding-row[data-signal="stale_score"][data-turn="${firstStale.turn}"]`).click();
  await expect(page.getByTestId('verdict')).toHaveAttribute('data-turn', String(firstStale.turn));
  await expect(page.getByTestId('span-inspector')).toBeVisible();
  await page.getByRole('button', { name: 'Zoom in' }).click();
  await expect(page.locator('.overview-head')).toContainText('showing');
  await page.getByTestId('compare-pick').selectOption('sample:collapse.jsonl');
  await expect(page.getByTestId('compare-status')).toHaveAttribute('data-state', 'done');

  const before = await shown(page);
  expect(before.zoom).not.toBeNull();
  expect(before.span).not.toBeNull();
  expect(before.severities).toEqual([true, true, false]);
  expect(before.thresholds).toBe('Thresholds (2 set)');
  const link = hashOf(page);
  for (const part of [
    'sample=stale-scores.jsonl',
    `turn=${firstStale.turn}`,
    `zoom=${before.zoom}`,
    'sev=fault%2Cwarning',
    'signal=stale_score',
    'set.max_rewrites=1',
    'set.spread_floor=0.02',
    'span=',
    'compare=sample%3Acollapse.jsonl',
  ]) {
    expect(link).toContain(part);
  }

  const fresh = await context.newPage();
  await gotoApp(fresh, link);
  await waitLoaded(fresh);
  await expect(fresh.getByTestId('compare-status')).toHaveAttribute('data-state', 'done');
  await expect(fresh.getByTestId('span-inspector')).toBeVisible();
  await expect.poll(() => shown(fresh)).toEqual(before);
  // and it writes the same link back: nothing was lost or added on the way
  await expect.poll(() => hashOf(fresh)).toBe(link);
});

test('Back and Forward walk through jumps; arrow steps and filters replace the entry', async ({ page }) => {
  await gotoApp(page);
  const start = await page.evaluate(() => history.length);
  await page.getByRole('button', { name: 'stale-scores.jsonl' }).click();
  await waitLoaded(page);
  const verdict = page.getByTestId('verdict');
  // a saved run opens on its first fault: a default, not a step of its own
  await expect(verdict).toHaveAttribute('data-turn', '15');
  await expect.poll(() => hashOf(page)).toContain('turn=15');
  expect(await page.evaluate(() => history.length)).toBe(start + 1);

  await page.keyboard.press('End'); // a jump
  await expect(verdict).toHaveAttribute('data-turn', '60');
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowLeft'); // steps
  await expect(verdict).toHaveAttribute('data-turn', '57');
  await expect.poll(() => hashOf(page)).toContain('turn=57');
  await page.getByRole('combobox', { name: 'Signal' }).selectOption('stale_score'); // a filter
  await expect.poll(() => hashOf(page)).toContain('signal=stale_score');
  expect(await page.evaluate(() => history.length)).toBe(start + 2);
  await page.getByRole('button', { name: 'Zoom in' }).click(); // a jump
  await expect(page.locator('.overview-head')).toContainText('showing');
  await expect.poll(() => hashOf(page)).toContain('zoom=');
  expect(await page.evaluate(() => history.length)).toBe(start + 3);

  await page.goBack(); // the zoom undone, the cursor where the steps left it
  await expect(page.locator('.overview-head')).not.toContainText('showing');
  await expect(verdict).toHaveAttribute('data-turn', '57');
  await page.goBack();
  await expect(verdict).toHaveAttribute('data-turn', '15');
  await expect(page.getByRole('combobox', { name: 'Signal' })).toHaveValue('');
  await page.goForward();
  await expect(verdict).toHaveAttribute('data-turn', '57');
  await expect(page.getByRole('combobox', { name: 'Signal' })).toHaveValue('stale_score');
  await page.goForward();
  await expect(page.locator('.overview-head')).toContainText('showing');
  // back past the first view: the welcome screen, as the page was
  await page.goBack();
  await page.goBack();
  await page.goBack();
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expect(verdict).toHaveCount(0);
  await page.goForward();
  await expect(verdict).toHaveAttribute('data-turn', '15');
});

test('a link to a dropped file names it, opens its view when that file is dropped, and says so when another is', async ({ page, context }) => {
  const file = fixture('stale-scores.jsonl');
  const other = fixture('collapse.jsonl');
  await gotoApp(page);
  await dropFile(page, file);
  await waitLoaded(page);
  await showLastTurn(page, 60);
  // the file is named by its sha256, as sha256sum prints it
  await expect.poll(() => hashOf(page)).toContain(`sha256=${sha256(file)}`);
  await expect.poll(() => hashOf(page)).toContain('turn=60');
  const link = hashOf(page);
  expect(link).toContain('file=stale-scores.jsonl');

  const fresh = await context.newPage();
  await gotoApp(fresh, link);
  const expected = fresh.getByTestId('link-expected');
  await expect(expected).toHaveAttribute('data-name', 'stale-scores.jsonl');
  await expect(expected).toHaveAttribute('data-sha256', sha256(file));
  await expect(expected).toContainText(sha256(file));
  // another file: said plainly, and none of its data shown under the link's view
  await dropFile(fresh, other);
  const check = fresh.getByTestId('link-check');
  await expect(check).toHaveAttribute('data-state', 'mismatch');
  await expect(check).toContainText('This is not the file the link names');
  await expect(check).toContainText(sha256(other));
  await expect(fresh.getByTestId('verdict')).toHaveCount(0);
  await expect(fresh.getByTestId('signal-count')).toHaveCount(0);
  expect(hashOf(fresh)).toBe(link); // the link is kept: it is what the person was sent
  // the right file: the link's view
  await dropFile(fresh, file);
  await expect(fresh.getByTestId('verdict')).toHaveAttribute('data-turn', '60');
  await expect.poll(() => signalCounts(fresh)).toEqual(countsBySignal(checkJson(file).sessions[0]!.findings));
  await expect(check).toHaveCount(0);
  // another view, then Back: the file this tab had is read again (and checked), no drop needed
  await fresh.evaluate(() => (location.hash = 'sample=healthy.jsonl'));
  await expect(fresh.getByTestId('load-status')).toContainText('healthy.jsonl');
  await fresh.goBack();
  await expect(fresh.getByTestId('load-status')).toContainText('stale-scores.jsonl');
  await expect(fresh.getByTestId('verdict')).toHaveAttribute('data-turn', '60');
  expect(hashOf(fresh)).toBe(link);

  // "open anyway": the other file, with none of the link's view, and a link of its own
  const third = await context.newPage();
  await gotoApp(third, link);
  await dropFile(third, other);
  await third.getByTestId('open-anyway').click();
  const want = checkJson(other).sessions[0]!;
  await expect.poll(() => signalCounts(third)).toEqual(countsBySignal(want.findings));
  await expect(third.getByTestId('load-status')).toContainText('collapse.jsonl');
  await expect.poll(() => hashOf(third)).toContain(`sha256=${sha256(other)}`);
  expect(hashOf(third)).not.toContain('turn=60');
  await third.goBack(); // Back: the link again, waiting for its file
  await expect(third.getByTestId('link-expected')).toHaveAttribute('data-sha256', sha256(file));
  // Forget the link: the welcome screen, and a URL without the link
  await third.getByRole('button', { name: 'Forget the link' }).click();
  await expect(third.getByRole('heading', { level: 1 })).toBeVisible();
  await expect(third.getByTestId('link-expected')).toHaveCount(0);
  await expect.poll(() => hashOf(third)).toBe('');
});

test('a link to a live session at a turn reopens it on the relay, paused there', async ({ page, baseURL }) => {
  const file = fixture('stale-scores.jsonl');
  const sessionId = `e2e-links-${Date.now()}`;
  expect(await replay(file, baseURL!, { session: sessionId, speed: 'max' }).done).toBe(0);
  await gotoApp(page, `#live=${encodeURIComponent(sessionId)}&turn=20&signal=stale_score`);
  await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', /catching-up|live/);
  await expect(page.getByTestId('verdict')).toHaveAttribute('data-turn', '20');
  await expect(page.getByTestId('follow-toggle')).toHaveAttribute('aria-pressed', 'false');
  await expect(page.getByRole('combobox', { name: 'Signal' })).toHaveValue('stale_score');
  // following again: the link no longer pins a turn
  await page.getByTestId('follow-toggle').click();
  await expect.poll(() => hashOf(page)).not.toContain('turn=');
  expect(hashOf(page)).toContain(`live=${encodeURIComponent(sessionId)}`);
});

test('a malformed link opens what it can and names what it left out', async ({ page }) => {
  await gotoApp(page, '#sample=stale-scores.jsonl&turn=20&zoom=40..10&signal=made_up');
  await waitLoaded(page);
  await expect(page.getByTestId('verdict')).toHaveAttribute('data-turn', '20');
  const problems = page.getByTestId('link-problems');
  await expect(problems).toContainText('zoom=40..10: a window is two turns a..b with a < b');
  await expect(problems).toContainText('signal=made_up: not a contract §4 signal');
  await expect(page.locator('.overview-head')).not.toContainText('showing');
});
