// serve's local sessions (issue 34, docs/dashboard.md "Local sessions"): a temporary HOME holds a
// Claude Code, a Codex and a Gemini CLI session and an OpenHands conversation folder where each
// agent keeps them; the home page lists all four without a drop, opening one analyses it as a
// drop would (check --json is the oracle; for OpenHands, check on the folder), and the Claude
// Code session, written to just now, is followed live: a call appended to its file moves its page.
// The Gemini CLI rows open through its adapter (docs/adapters.md "Gemini CLI"), written on
// another branch: until it is merged, the Gemini opening test fails; its listing passes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from './helpers/test.ts';
import { signalCounts, waitLoaded } from './helpers/app.ts';
import { checkJson, countsBySignal, startRelay, type RelayHandle } from './helpers/relay.ts';
import { writeAgentHome, type AgentHome } from '../test/adapters/agentHome.ts';
import { codingSession } from '../test/adapters/codingSession.ts';

const SHOTS = process.env.E2E_SHOTS ?? path.join(os.tmpdir(), 'ch-e2e-shots');

let relay: RelayHandle;
let agents: AgentHome;
const OPENHANDS_FIXTURE = path.resolve('test/fixtures/adapters/openhands-conversation/7d1e9f20a3b44c5d8e6f7a8b9c0d1e2f');
const openhandsDir = () => path.join(agents.home, '.openhands', 'conversations', path.basename(OPENHANDS_FIXTURE));

test.beforeAll(async () => {
  agents = writeAgentHome(fs.mkdtempSync(path.join(os.tmpdir(), 'ch-e2e-agents-')));
  // only the Claude Code session was written to in the last 10 minutes: the other two open as files
  const old = new Date('2025-11-02T15:00:00Z');
  fs.utimesSync(agents.codex, old, old);
  fs.utimesSync(agents.gemini, old, old);
  // an OpenHands conversation (V1: base_state.json and events/event-*.json), a folder
  fs.cpSync(OPENHANDS_FIXTURE, openhandsDir(), { recursive: true });
  relay = await startRelay({ home: agents.home });
});

test.afterAll(async () => {
  await relay?.stop();
});

const row = (page: Page, agent: string) => page.locator(`[data-testid="local-session"][data-agent="${agent}"]`);

test('the four agents’ sessions are listed without a drop, with their project, title and figures', async ({ page }) => {
  await page.goto(`${relay.url}/`);
  await expect(page.getByTestId('local-session')).toHaveCount(4);
  await expect(row(page, 'openhands')).toContainText('The /workspace/app/utils.py slugify() keeps trailing dashes');
  await expect(row(page, 'openhands').getByTestId('local-figures')).toContainText('8 calls1 compaction');
  await expect(row(page, 'claude-code')).toContainText('Fix the flaky login test');
  await expect(row(page, 'claude-code')).toContainText('/work/shop');
  await expect(row(page, 'codex')).toContainText('Fix the failing eviction test in src/lru.rs');
  await expect(row(page, 'codex')).toContainText('/home/dev/ferris-cache');
  await expect(row(page, 'gemini-cli')).toContainText('Why does the checkout page render twice on load?');
  // the background analysis, as check reads the file
  await expect(row(page, 'claude-code').getByTestId('local-figures')).toHaveText('26 calls2 compactions1 confirmed losspeak 83% of the window');
  // the page names the agents and where they keep their sessions
  const home = page.locator('.welcome-card');
  for (const words of [
    'Claude Code',
    'Codex',
    'Gemini CLI',
    'OpenHands',
    'SWE-agent',
    '~/.claude/projects',
    '~/.codex/sessions',
    '~/.gemini/tmp',
    '~/.openhands/conversations',
  ])
    await expect(home).toContainText(words);
});

for (const agent of ['codex', 'claude-code'] as const) {
  test(`opening the ${agent} row analyses the file as a drop does: its turns, findings and charts`, async ({ page }) => {
    const file = agent === 'codex' ? agents.codex : agents.claude;
    const oracle = checkJson(file).sessions[0]!;
    await page.goto(`${relay.url}/`);
    const r = row(page, agent);
    if (agent === 'claude-code') {
      // followed live: opening it opens the relay's session
      await expect(r).toHaveAttribute('data-live', 'true', { timeout: 30_000 });
      await r.click();
      await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'live');
      await expect(page.getByTestId('verdict')).toHaveAttribute('data-turn', String(oracle.turns));
    } else {
      await r.click();
      await expectLoadedAs(page, oracle);
    }
    await expectFindingsAndCharts(page, oracle);
  });
}

/** The opened row's analysis finished with check's turns. */
async function expectLoadedAs(page: Page, oracle: { turns: number }): Promise<void> {
  const status = await waitLoaded(page);
  expect(status.state).toBe('done');
  expect(status.turns).toBe(oracle.turns);
}

/** check's findings by signal, and the charts of an agent's session with compactions. */
async function expectFindingsAndCharts(page: Page, oracle: { findings: Parameters<typeof countsBySignal>[0] }): Promise<void> {
  await expect.poll(() => signalCounts(page)).toEqual(countsBySignal(oracle.findings));
  await expect(page.getByTestId('chart-composition')).toBeVisible();
  await expect(page.getByTestId('compactions-strip')).toBeVisible();
}

test('a call appended to the Claude Code file moves its page live', async ({ page }) => {
  await page.goto(`${relay.url}/`);
  const r = row(page, 'claude-code');
  await expect(r).toHaveAttribute('data-live', 'true', { timeout: 30_000 });
  await r.click();
  const verdict = page.getByTestId('verdict');
  await expect(verdict).toHaveAttribute('data-turn', '26');
  // the same session one call longer: its first records are the file's
  const longer = codingSession({ sessionId: '7f3c2a91-5b7e-4d2a-9c1e-0a8b6d4e2f10', cwd: '/work/shop', tail: 3 });
  const now = fs.readFileSync(agents.claude, 'utf8');
  expect(longer.startsWith(now)).toBe(true);
  fs.appendFileSync(agents.claude, longer.slice(now.length));
  await expect(verdict).toHaveAttribute('data-turn', '27');
});

test('screenshots of the home page with local sessions at 390, 1024 and 1440 px', async ({ page }) => {
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const width of [390, 1024, 1440]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${relay.url}/`);
    await expect(row(page, 'claude-code').getByTestId('local-figures')).toBeVisible();
    await expect(row(page, 'codex').getByTestId('local-figures')).toBeVisible();
    await page.screenshot({ path: path.join(SHOTS, `home-${width}.png`), fullPage: true });
    // nothing wider than the window
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  }
});

test('opening the OpenHands row analyses the conversation folder as check reads it', async ({ page }) => {
  const oracle = checkJson(openhandsDir()).sessions[0]!;
  expect(oracle.turns).toBe(8);
  await page.goto(`${relay.url}/`);
  await row(page, 'openhands').click();
  await expectLoadedAs(page, oracle);
  await expectFindingsAndCharts(page, oracle);
});

test('opening the Gemini CLI row analyses it (needs the Gemini CLI adapter)', async ({ page }) => {
  const oracle = checkJson(agents.gemini).sessions[0];
  expect(oracle?.turns).toBeGreaterThan(0);
  await page.goto(`${relay.url}/`);
  await row(page, 'gemini-cli').click();
  const status = await waitLoaded(page);
  expect(status.state).toBe('done');
  expect(status.turns).toBe(oracle!.turns);
  await expect(page.getByTestId('chart-composition')).toBeVisible();
});

test('the coding-agent sample is listed first among the samples and opens with its two compactions', async ({ page }) => {
  await page.goto(`${relay.url}/`);
  const first = page.locator('.ways section').filter({ hasText: 'Try a sample' }).getByRole('button').first();
  await expect(first).toHaveText('claude-code-session.jsonl');
  await first.click();
  const status = await waitLoaded(page);
  expect(status.state).toBe('done');
  expect(status.turns).toBe(26);
  await expect(page.getByTestId('compactions-strip').getByTestId('compaction')).toHaveCount(2);
  await expect(page.getByTestId('compaction-confirmed')).toHaveCount(1);
});
