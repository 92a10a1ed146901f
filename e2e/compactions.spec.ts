// contract §8 on the dashboard: a Claude Code session's compactions on the strip under the
// charts, each opening a panel with its summary (as text) and its items (lost first,
// confirmed losses marked), the signals that do not apply greyed with their reason, and
// "Report this compaction"; and live, a compaction that `watch` streams into `serve` shows
// on the strip about a second after its first call is written.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from './helpers/test.ts';
import { dropFile, gotoApp, waitLoaded } from './helpers/app.ts';
import { followSession } from './helpers/live.ts';
import { checkJson, ROOT } from './helpers/relay.ts';
import { COMPACTIONS_FIXTURE, SUMMARY_MARKUP } from './fixtures/claudeCodeCompactions.ts';
import { carriedPastCapTranscript } from './fixtures/claudeCodeCarried.ts';

interface CompactionJson {
  turn: number;
  tokens_before: number | null;
  tokens_after: number;
  summary_text: string;
  items: { kind: string; text: string; status: string; confirmed: boolean; from_turn: number }[];
  carried: unknown[];
}
type Session = { compactions: CompactionJson[]; not_applicable: Record<string, string> };

const SHOTS = process.env.E2E_SHOTS ?? path.join(os.tmpdir(), 'ch-e2e-shots');
const STATUS_RANK: Record<string, number> = { lost: 0, paraphrased: 1, kept: 2 };

test('a dropped Claude Code session: the strip shows each compaction; its panel lists the items lost first, confirmed losses marked, the summary as text; not-applicable signals greyed', async ({
  page,
}) => {
  const oracle = checkJson(COMPACTIONS_FIXTURE).sessions[0] as unknown as Session;
  await gotoApp(page);
  await dropFile(page, COMPACTIONS_FIXTURE);
  expect((await waitLoaded(page)).state).toBe('done');

  const strip = page.getByTestId('compactions-strip');
  await expect(strip).toHaveAttribute('data-state', 'ready');
  const marks = strip.getByTestId('compaction');
  await expect(marks).toHaveCount(oracle.compactions.length);
  expect(await marks.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-turn'))))).toEqual(oracle.compactions.map((c) => c.turn));
  const first = oracle.compactions[0]!;
  await expect(marks.first()).toHaveAttribute('data-tokens-before', String(first.tokens_before));
  await expect(marks.first()).toHaveAttribute('data-tokens-after', String(first.tokens_after));
  await expect(marks.first()).toHaveAttribute('data-confirmed', '1');
  await expect(strip.getByTestId('compaction-confirmed')).toHaveCount(1);
  // the title, both axes with their units, and the legend: legible in an exported PNG too
  await expect(strip.locator('h3')).toHaveText('Compactions');
  await expect(strip).toContainText('tokens');
  await expect(strip).toContainText('items (%)');
  // exported like every chart: a stamped PNG named after the figure
  const png = page.waitForEvent('download');
  await strip.getByRole('button', { name: /Save “Compactions” as PNG/ }).click();
  expect((await png).suggestedFilename()).toMatch(/^compactions-strip.*\.png$/);

  // not applicable: greyed with the reason, the signal-count hooks untouched
  const na = page.getByTestId('signal-not-applicable');
  await expect(na).toHaveCount(Object.keys(oracle.not_applicable).length);
  for (const [signal, reason] of Object.entries(oracle.not_applicable)) {
    await expect(page.locator(`[data-testid="signal-not-applicable"][data-signal="${signal}"]`)).toHaveAttribute('data-reason', reason);
  }
  await expect(page.getByTestId('not-applicable')).toContainText('seed 002');
  await expect(page.locator('[data-testid="signal-count"][data-signal="compaction_loss"]')).toHaveAttribute('data-count', '1');

  await marks.first().click();
  const panel = page.getByTestId('compaction-panel');
  await expect(panel).toHaveAttribute('data-turn', String(first.turn));
  // the cursor moved to the compaction's turn
  await expect(page.getByTestId('verdict')).toHaveAttribute('data-turn', String(first.turn));
  // the summary is the agent's text: its markup shows as characters, nothing is rendered
  const summary = panel.getByTestId('compaction-summary');
  await expect(summary).toContainText(SUMMARY_MARKUP);
  await expect(summary.locator('img, b')).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

  const rows = panel.locator('[data-testid="compaction-item"][data-carried="false"]');
  await expect(rows).toHaveCount(first.items.length);
  const shown = await rows.evaluateAll((els) =>
    els.map((e) => ({ kind: e.getAttribute('data-kind')!, status: e.getAttribute('data-status')!, confirmed: e.getAttribute('data-confirmed') === 'true' })),
  );
  // by kind; within a kind, lost first (confirmed first among them), then paraphrased, then kept
  const byKind = new Map<string, typeof shown>();
  for (const r of shown) byKind.set(r.kind, [...(byKind.get(r.kind) ?? []), r]);
  for (const [kind, list] of byKind) {
    const ranks = list.map((r) => STATUS_RANK[r.status]! * 2 + (r.confirmed ? 0 : 1));
    expect(ranks, kind).toEqual([...ranks].sort((a, b) => a - b));
    expect(list.length, kind).toBe(first.items.filter((i) => i.kind === kind).length);
  }
  expect(shown.filter((r) => r.confirmed)).toEqual([{ kind: 'file', status: 'lost', confirmed: true }]);
  const confirmed = panel.locator('[data-testid="compaction-item"][data-confirmed="true"]');
  await expect(confirmed).toContainText('/repo/src/lru.ts');
  await expect(confirmed).toContainText('confirmed loss');
  await expect(confirmed).toContainText('gone back for at turn 6');
  // an item links to the turn it came from
  await confirmed.getByTestId('item-turn').click();
  await expect(page.getByTestId('verdict')).toHaveAttribute('data-turn', '1');

  // the second compaction judges again what the first kept: carried items shown too
  await marks.nth(1).click();
  await expect(panel).toHaveAttribute('data-turn', String(oracle.compactions[1]!.turn));
  await expect(panel.locator('[data-testid="compaction-item"][data-carried="true"]')).toHaveCount(oracle.compactions[1]!.carried.length);

  await marks.first().click();
  fs.mkdirSync(SHOTS, { recursive: true });
  await strip.scrollIntoViewIfNeeded();
  await strip.screenshot({ path: path.join(SHOTS, 'compactions-strip.png') });
  // the strip and the panel under the sticky top bar
  await strip.evaluate((el) => window.scrollBy(0, el.getBoundingClientRect().top - 64));
  await page.screenshot({ path: path.join(SHOTS, 'compactions-dashboard.png') });

  // Report this compaction: the incident report's Markdown/zip, with the compaction's section
  const download = page.waitForEvent('download');
  await panel.getByTestId('report-compaction').click();
  const dialog = page.getByTestId('report-dialog');
  await expect(dialog).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  expect((await download).suggestedFilename()).toMatch(/^compaction-turn-5.*\.zip$/);
  const md = (await dialog.getByTestId('report-markdown').textContent()) ?? '';
  expect(md).toContain('# Compaction at turn 5');
  expect(md).toContain('## The compaction');
  expect(md).toContain('| lost | **yes** | file | /repo/src/lru.ts | 1 |');
  // the summary sits in a fence: its markup stays text in any Markdown renderer
  expect(md).toContain('```text\nThis session is being continued');
  await expect(page.getByTestId('compactions-strip')).toBeVisible();
});

test('a Codex session whose summaries are encrypted: its items are unknown, never lost, and the panel says why there is no summary text', async ({ page }) => {
  const fixture = path.join(ROOT, 'test/fixtures/adapters/codex-encrypted-compaction.jsonl');
  const oracle = checkJson(fixture).sessions[0] as unknown as Session;
  await gotoApp(page);
  await dropFile(page, fixture);
  expect((await waitLoaded(page)).state).toBe('done');
  const strip = page.getByTestId('compactions-strip');
  await expect(strip).toHaveAttribute('data-state', 'ready');
  await expect(strip.getByTestId('compaction')).toHaveCount(oracle.compactions.length);
  // the grey share of the bar: items the encrypted summary may hold
  await expect(strip.getByTestId('compaction-unknown')).toHaveCount(1);
  await strip.getByTestId('compaction').first().click();
  const panel = page.getByTestId('compaction-panel');
  const summary = panel.getByTestId('compaction-summary');
  await expect(summary).toHaveAttribute('data-encrypted', 'true');
  await expect(summary).toHaveText('The summary is encrypted (Codex): what it kept cannot be read.');
  await expect(panel.getByTestId('compaction-facts')).toContainText('3 unknown (not in the text that can be read)');
  const rows = panel.locator('[data-testid="compaction-item"][data-carried="false"]');
  const statuses = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-status')));
  expect(statuses).toEqual(oracle.compactions[0]!.items.map((i) => i.status).sort((a, b) => (a === b ? 0 : a === 'unknown' ? -1 : 1)));
  expect(statuses).not.toContain('lost');
  // a refetched unknown item is no confirmed loss: compaction_loss never fires (shown as 0 or not at all)
  await expect(page.locator('[data-testid="signal-count"][data-signal="compaction_loss"]:not([data-count="0"])')).toHaveCount(0);
});

test("past the audit cap (1,000 carried items): the panel says, in report.md's words, how many earlier items were not judged again; only then", async ({
  page,
}, testInfo) => {
  // contract §8.4: the first summary keeps 1,005 files, the second compaction follows 1,000 of them
  const file = testInfo.outputPath('cc-carried-past-cap.jsonl');
  fs.writeFileSync(file, carriedPastCapTranscript(1005));
  const oracle = checkJson(file).sessions[0] as unknown as { compactions: (CompactionJson & { carried_not_followed?: number })[] };
  expect(oracle.compactions.map((c) => c.carried_not_followed)).toEqual([undefined, 5]);
  await gotoApp(page);
  await dropFile(page, file);
  expect((await waitLoaded(page)).state).toBe('done');
  const marks = page.getByTestId('compactions-strip').getByTestId('compaction');
  await expect(marks).toHaveCount(2);
  const panel = page.getByTestId('compaction-panel');

  await marks.first().click();
  await expect(panel).toHaveAttribute('data-turn', String(oracle.compactions[0]!.turn));
  await expect(panel.getByTestId('compaction-not-followed')).toHaveCount(0);

  await marks.nth(1).click();
  await expect(panel).toHaveAttribute('data-turn', String(oracle.compactions[1]!.turn));
  const note = panel.getByTestId('compaction-not-followed');
  await expect(note).toHaveAttribute('data-count', '5');
  await expect(note).toHaveText('5 more items of earlier compactions were not judged again: the audit follows at most 1,000 from one compaction to the next.');
  // the 1,000 carried rows are listed up to the panel's cap, the rest counted
  await expect(panel.locator('[data-testid="compaction-item"][data-carried="true"]')).toHaveCount(200);
  await expect(panel).toContainText('… and 800 more');

  // the same sentence in the compaction's report
  await panel.getByTestId('report-compaction').click();
  const dialog = page.getByTestId('report-dialog');
  await expect(dialog).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  expect((await dialog.getByTestId('report-markdown').textContent()) ?? '').toContain(
    '_5 more items of earlier compactions were not judged again: the audit follows at most 1,000 from one compaction to the next._',
  );
});

test('live: a compaction that watch streams into serve appears on the strip about a second after its first call', async ({ page, baseURL }) => {
  // a session id of this run's own: the relay of global setup keeps every session it was sent
  const sessionId = `e2e-compaction-${Date.now()}`;
  const lines = fs
    .readFileSync(COMPACTIONS_FIXTURE, 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.replace('"sessionId":"cc-compactions"', `"sessionId":"${sessionId}"`));
  const boundary = lines.findIndex((l) => l.includes('"compact_boundary"'));
  expect(boundary).toBeGreaterThan(0);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-e2e-watch-'));
  const file = path.join(dir, 'project', `${sessionId}.jsonl`);
  fs.mkdirSync(path.dirname(file));
  // everything before the first compaction
  fs.writeFileSync(file, lines.slice(0, boundary).join('\n') + '\n');
  const watcher = watch(dir, baseURL!);
  try {
    await page.goto('/');
    await followSession(page, sessionId);
    await expect(page.getByTestId('session-turns')).toHaveAttribute('data-turns', '4');
    await expect(page.getByTestId('compactions-strip')).toHaveCount(0);

    // the boundary and the summary, then the first call after them: the compaction takes effect there
    fs.appendFileSync(file, lines.slice(boundary, boundary + 2).join('\n') + '\n');
    const t0 = Date.now();
    fs.appendFileSync(file, lines[boundary + 2]! + '\n');
    const mark = page.getByTestId('compactions-strip').getByTestId('compaction');
    await expect(mark).toHaveCount(1, { timeout: 10_000 });
    const elapsed = Date.now() - t0;
    test.info().annotations.push({ type: 'compaction shown after', description: `${elapsed} ms` });
    if (process.env.E2E_VERBOSE) process.stdout.write(`compaction shown ${elapsed} ms after its first call was written\n`);
    // watch polls every 100 ms, the Worker sends a summary every 500 ms: a second, with slack for a machine shared by the suite
    expect(elapsed).toBeLessThan(2_500);
    await expect(mark).toHaveAttribute('data-turn', '5');

    // the rest: the refetch confirms a loss of that compaction, and the second one arrives
    fs.appendFileSync(file, lines.slice(boundary + 3).join('\n') + '\n');
    await expect(mark).toHaveCount(2, { timeout: 10_000 });
    await expect(mark.first()).toHaveAttribute('data-confirmed', '1');

    // the overview's last-compaction column, from the relay's own analysis of the session
    await page.goto('/');
    const cell = page.locator(`[data-testid="overview-row"][data-session="${sessionId}"]`).getByTestId('overview-compaction');
    await expect(cell).toHaveAttribute('data-turn', '9');
    await expect(cell).toHaveText('files 1/2');
    await page.getByTestId('overview').screenshot({ path: path.join(SHOTS, 'compactions-overview.png') });
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
