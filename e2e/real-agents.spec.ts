// Issue 34, items 2–4 (docs/dashboard.md "An agent's session", contract §8.9): a Claude Code
// session, where no score detector ran, is headlined by what was measured (LOSS CONFIRMED …),
// laid out compactions first, its reference-score charts folded with the reason, its lineage in
// one line; no screen of it says the scored loop's words (banner, page, print, overview row). A
// native sample keeps its order and its words. Screenshots at 390, 1024 and 1440 px.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from './helpers/test.ts';
import { dropFile, gotoApp, waitLoaded } from './helpers/app.ts';
import { checkJson, ROOT } from './helpers/relay.ts';
import { COMPACTIONS_FIXTURE } from './fixtures/claudeCodeCompactions.ts';

const SHOTS = process.env.FACE_SHOTS ?? path.join(os.tmpdir(), 'shots-face');
/** the scored loop's words: never on a screen of a session where no score detector ran */
const SCORED_WORDS = [/PRUNE OK/, /pruning may proceed/i, /\bbound\b/i];
const CHARTS = ['chart-spread', 'chart-canary', 'chart-drift', 'chart-orphans'];
/** check's own headline of the fixture (contract §8.9), as of its last turn */
const HEADLINE = 'LOSS CONFIRMED: turn 6 re-read a file the compaction at turn 5 dropped; 2 compactions, 1 confirmed loss;';

const topOf = (page: Page, testId: string): Promise<number> =>
  page
    .getByTestId(testId)
    .first()
    .evaluate((el) => el.getBoundingClientRect().top + window.scrollY);

async function expectNoScoredWords(page: Page, where: string): Promise<void> {
  const text = await page.evaluate(() => document.body.innerText);
  for (const w of SCORED_WORDS) expect(text, `${where} says ${String(w)}`).not.toMatch(w);
}

async function openAgentSession(page: Page): Promise<void> {
  await gotoApp(page);
  await dropFile(page, COMPACTIONS_FIXTURE);
  expect((await waitLoaded(page)).state).toBe('done');
  await expect(page.getByTestId('charts')).toHaveAttribute('data-layout', 'agent');
  await expect(page.getByTestId('compactions-strip')).toHaveAttribute('data-state', 'ready');
}

test('a Claude Code session: its §8.9 headline, compactions first, the scores folded with why, the lineage in a line', async ({ page }) => {
  const human = checkHuman(COMPACTIONS_FIXTURE);
  expect(human).toContain(HEADLINE);
  await openAgentSession(page);

  // the banner at the last turn: check's words
  const verdict = page.getByTestId('verdict');
  await page.keyboard.press('End');
  await expect(verdict).toHaveAttribute('data-turn', '10');
  await expect(verdict).toHaveAttribute('data-headline', 'loss_confirmed');
  await expect(page.getByTestId('headline')).toContainText('LOSS CONFIRMED');
  await expect(page.getByTestId('headline')).toContainText('Turn 6 re-read a file the compaction at turn 5 dropped (lru.ts)');
  // before the refetch (turn 5) the loss is not known yet: the banner is of the session as it stood
  await page.getByTestId('compactions-strip').getByTestId('compaction').first().click();
  await expect(verdict).toHaveAttribute('data-turn', '5');
  await expect(verdict).toHaveAttribute('data-headline', 'context_ok');
  await expect(page.getByTestId('headline')).toContainText('CONTEXT OK');

  // the order: the compactions (heading starts with the word), then what fills the context, the lineage, the folded scores
  const section = page.getByTestId('section-compactions');
  const heading = section.locator('h2').first();
  await expect(heading).toHaveText(/^Compactions\b/);
  await expect(heading).toContainText('Compactions: 2 compactions, 1 confirmed loss');
  await expect(section.getByTestId('compactions-strip')).toHaveCount(1);
  const panel = section.getByTestId('compaction-panel');
  await expect(panel).toBeVisible();
  await expect(panel.locator('[data-testid="compaction-item"][data-confirmed="true"]')).toContainText('/repo/src/lru.ts');
  const tops = [
    await topOf(page, 'section-compactions'),
    await topOf(page, 'chart-composition'),
    await topOf(page, 'section-lineage'),
    await topOf(page, 'section-scores'),
  ];
  expect(tops).toEqual([...tops].sort((a, b) => a - b));
  // the agent's own auto-compaction point, said in words (the window is above this session's scale)
  await expect(page.getByTestId('chart-composition')).toContainText('Claude Code auto-compacts at 167,000 tokens (83.5% of the window)');

  // the lineage: at the compaction (turn 5) the graph of the summary and the spans it replaced;
  // at a turn without derived_from edges no empty box, one line
  await expect(page.getByTestId('section-lineage').locator('section.lineage')).toHaveCount(1);
  await page.keyboard.press('Home');
  await expect(verdict).toHaveAttribute('data-turn', '1');
  const line = page.getByTestId('lineage-line');
  await expect(line).toContainText('Lineage at turn 1: no derived_from edge here; no orphaned parent in 10 turns.');
  expect((await line.boundingBox())!.height).toBeLessThan(40);
  await expect(page.locator('.lineage-canvas')).toHaveCount(0);

  // the score charts: folded, with the §8.1 reasons; in the DOM with their hooks
  const scores = page.getByTestId('section-scores');
  await expect(scores).toHaveAttribute('data-open', 'false');
  await expect(scores.getByTestId('scores-reason')).toContainText('seed 000');
  await expect(scores.getByTestId('scores-reason')).toContainText('seed 002');
  for (const id of CHARTS) {
    await expect(scores.getByTestId(id)).toHaveCount(1);
    await expect(scores.getByTestId(id)).toBeHidden();
    await expect(scores.getByTestId(id)).toHaveAttribute('data-state', /ready|empty/);
  }
  await expectNoScoredWords(page, 'the page');
  await scores.getByTestId('scores-toggle').click();
  await expect(scores).toHaveAttribute('data-open', 'true');
  await expect(scores.getByTestId('chart-spread')).toBeVisible();
  await expectNoScoredWords(page, 'the page with the scores open');

  // printed: the banner's words, never the scored loop's
  await page.emulateMedia({ media: 'print' });
  await expect(verdict).toBeVisible();
  await expect(page.getByTestId('headline')).toContainText('CONTEXT OK');
  await expect(page.locator('[data-testid="chart-orphans"] section.lineage')).toHaveCount(0);
  await expectNoScoredWords(page, 'the print page');
  await page.emulateMedia({ media: 'screen' });
});

test("comparing two Claude Code sessions: each side headlined by §8.9 (B's confirmed loss from its own records), never the scored words", async ({ page }) => {
  await openAgentSession(page);
  await page.getByTestId('compare-file-input').setInputFiles(COMPACTIONS_FIXTURE);
  await expect(page.getByTestId('compare-status')).toHaveAttribute('data-state', 'done');
  const side = page.getByTestId('compare-verdicts');
  await page.keyboard.press('End');
  await expect(side).toHaveAttribute('data-a-turn', '10');
  await expect(side).toHaveAttribute('data-b-turn', '10');
  // B's loss is known only from B's compaction records, which its Worker hands over
  await expect(side).toHaveAttribute('data-a-headline', 'loss_confirmed');
  await expect(side).toHaveAttribute('data-b-headline', 'loss_confirmed');
  await expect(side).toContainText('A turn 10: LOSS CONFIRMED');
  await expect(side).toContainText('B turn 10: LOSS CONFIRMED');
  // before the compaction's loss was confirmed, both sides say so as of that turn
  await page.getByTestId('compactions-strip').getByTestId('compaction').first().click();
  await expect(side).toHaveAttribute('data-a-turn', '5');
  await expect(side).toHaveAttribute('data-a-headline', 'context_ok');
  await expect(side).toHaveAttribute('data-b-headline', 'context_ok');
  const text = await side.innerText();
  for (const w of SCORED_WORDS) expect(text).not.toMatch(w);
});

test('the overview row of a Claude Code session: agent, fill, compactions, confirmed losses; the score columns "—" with why', async ({ page, baseURL }) => {
  const sessionId = `e2e-face-${Date.now()}`;
  const text = fs.readFileSync(COMPACTIONS_FIXTURE, 'utf8').replaceAll('"sessionId":"cc-compactions"', `"sessionId":"${sessionId}"`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-e2e-face-'));
  const file = path.join(dir, 'project', `${sessionId}.jsonl`);
  fs.mkdirSync(path.dirname(file));
  fs.writeFileSync(file, text);
  const oracle = checkJson(COMPACTIONS_FIXTURE).sessions[0]! as unknown as { metrics: { tokens_total: number }[] };
  const watcher = watch(dir, baseURL!);
  try {
    await page.goto('/');
    const row = page.locator(`[data-testid="overview-row"][data-session="${sessionId}"]`);
    await expect(row.getByTestId('overview-compactions')).toHaveAttribute('data-confirmed', '1', { timeout: 20_000 });
    await expect(row.getByTestId('overview-agent')).toHaveText(/Claude Code/);
    await expect(row.getByTestId('overview-verdict')).toHaveText('LOSS CONFIRMED');
    await expect(row.getByTestId('overview-verdict')).toHaveAttribute('title', new RegExp(`^${HEADLINE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    const fill = oracle.metrics.at(-1)!.tokens_total / 200_000;
    await expect(row.getByTestId('overview-fill')).toHaveText(`${Math.round(fill * 100)}%`);
    await expect(row.getByTestId('overview-compactions')).toHaveText('2 · 1 lost');
    await expect(row.getByTestId('overview-compaction')).toHaveAttribute('data-turn', '9');
    for (const id of ['overview-spread', 'overview-canary']) {
      await expect(row.getByTestId(id)).toHaveText('—');
      await expect(row.getByTestId(id)).toHaveAttribute('title', /contract §8\.1/);
    }
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.getByTestId('overview').screenshot({ path: path.join(SHOTS, 'overview-1280.png') });
    const rowText = (await row.innerText()) + (await row.getByTestId('overview-verdict').getAttribute('title'));
    for (const w of SCORED_WORDS) expect(rowText).not.toMatch(w);
  } finally {
    watcher.kill('SIGTERM');
  }
});

test('a native sample keeps the scored loop order and words', async ({ page }) => {
  await gotoApp(page, '#sample=all-faults.jsonl&turn=40');
  await waitLoaded(page);
  await expect(page.getByTestId('charts')).toHaveAttribute('data-layout', 'scored');
  await expect(page.getByTestId('section-scores')).toHaveCount(0);
  await expect(page.getByTestId('section-compactions')).toHaveCount(0);
  const tops: number[] = [];
  for (const id of CHARTS) {
    await expect(page.getByTestId(id)).toBeVisible();
    tops.push(await topOf(page, id));
  }
  expect(tops).toEqual([...tops].sort((a, b) => a - b));
  await expect(page.getByTestId('verdict')).toHaveAttribute('data-turn', '40');
  await expect(page.getByTestId('headline')).toContainText('RECOMPUTE');
  await expect(page.getByTestId('verdict')).toContainText('Scores stopped being trustworthy at');
});

test('screenshots of a coding-agent session at 390, 1024 and 1440 px', async ({ page }) => {
  fs.mkdirSync(SHOTS, { recursive: true });
  await openAgentSession(page);
  await page.keyboard.press('End');
  await expect(page.getByTestId('verdict')).toHaveAttribute('data-headline', 'loss_confirmed');
  for (const width of [390, 1024, 1440]) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(400); // the charts re-measure their width after a resize (150 ms debounce)
    // the derivation graph is drawn once it comes near the viewport (LineageGraph useSeen): scroll past it first
    await page.getByTestId('section-lineage').scrollIntoViewIfNeeded();
    await expect(page.locator('.lineage-canvas[data-fitted="true"]')).toHaveCount(1);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(SHOTS, `agent-${width}.png`), fullPage: true });
    // nothing wider than the screen
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  }
});

/** `check`'s human output of a file. */
function checkHuman(file: string): string {
  return execFileSync(process.execPath, [path.join(ROOT, 'bin', 'context-health.mjs'), 'check', '--fail-on', 'never', file], { cwd: ROOT, encoding: 'utf8' });
}

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
