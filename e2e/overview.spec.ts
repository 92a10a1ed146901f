// The sessions overview on the home page, fed by the relay's overview channel: sessions
// streamed by `replay` are listed, a session that collapses rises to the top as its
// verdict turns to freeze, and the alert rule watching it shows a toast whose link opens
// the session at that turn. With 520 sessions the table stays virtualised while 20 of them
// stream (the longest main-thread task while updating is recorded, not asserted: speed
// figures belong to `npm run bench`).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from './helpers/test.ts';
import { fixture } from './helpers/app.ts';
import { replay, startRelay, type RelayHandle } from './helpers/relay.ts';

let relay: RelayHandle;
test.beforeEach(async () => {
  relay = await startRelay();
});
// the page first: a page left open polls a relay that is gone, and logs it as a console error
test.afterEach(async ({ page }) => {
  await page.close();
  await relay.stop();
});

/** The collapse sample cut in two: turns up to `cut` (with the header), and the rest up to `last`. */
function splitCollapse(cut: number, last: number): [string, string] {
  const lines = fs.readFileSync(fixture('collapse.jsonl'), 'utf8').trim().split('\n');
  const turnOf = (l: string): number => (JSON.parse(l) as { turn?: number }).turn ?? 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-e2e-overview-'));
  const a = path.join(dir, 'before.jsonl');
  const b = path.join(dir, 'after.jsonl');
  fs.writeFileSync(a, lines.filter((l) => turnOf(l) <= cut).join('\n') + '\n');
  fs.writeFileSync(b, lines.filter((l) => turnOf(l) > cut && turnOf(l) <= last).join('\n') + '\n');
  return [a, b];
}

test('lists sessions streamed by replay, puts a collapsing one on top when it collapses, and toasts its alert', async ({ page }) => {
  const tag = `ov${Date.now()}`;
  const collapsing = `${tag}-collapse`;
  const res = await fetch(`${relay.url}/api/alerts/rules`, { method: 'POST', body: JSON.stringify({ signal: 'relevance_collapse', session_id: collapsing }) });
  expect(res.status).toBe(201);
  const [before, after] = splitCollapse(20, 30);
  expect(await replay(before, relay.url, { session: collapsing }).done).toBe(0);
  expect(await replay(fixture('healthy.jsonl'), relay.url, { session: `${tag}-healthy` }).done).toBe(0);

  await page.goto(`${relay.url}/`);
  const rows = page.getByTestId('overview-row');
  await expect(rows).toHaveCount(2);
  // both healthy so far: the most recently updated first
  await expect(rows.first()).toHaveAttribute('data-session', `${tag}-healthy`);
  await expect(rows.first().getByTestId('overview-verdict')).toHaveText('prune_ok');

  // the collapse: turns 21–30 of the sample (relevance_collapse from turn 25)
  expect(await replay(after, relay.url, { session: collapsing }).done).toBe(0);
  await expect(rows.first()).toHaveAttribute('data-session', collapsing);
  await expect(rows.first().getByTestId('overview-verdict')).toHaveText('freeze');
  const toast = page.getByTestId('alert-toast');
  await expect(toast).toHaveCount(1);
  await expect(toast).toContainText('relevance_collapse, turn 25');

  // filters: by text, and by state
  await page.getByTestId('overview-filter').fill('healthy');
  await expect(rows).toHaveCount(1);
  await page.getByTestId('overview-filter').fill('');
  await page.getByTestId('overview-state').selectOption('ended');
  await expect(rows).toHaveCount(0);
  await page.getByTestId('overview-state').selectOption('all');

  // the toast's link opens the session at the turn it fired
  await toast.getByRole('link').click();
  await expect(page.getByTestId('verdict')).toHaveAttribute('data-turn', '25');
});

test('520 sessions, 20 of them streaming: the table stays virtualised and current', async ({ page }) => {
  test.slow();
  const idle: string[] = [];
  for (let i = 0; i < 500; i++) {
    idle.push(JSON.stringify({ type: 'session', session_id: `idle-${String(i).padStart(3, '0')}`, title: `idle run ${i}` }));
    idle.push(JSON.stringify({ type: 'snapshot', session_id: `idle-${String(i).padStart(3, '0')}`, turn: 1, spans: [] }));
  }
  expect((await fetch(`${relay.url}/api/ingest`, { method: 'POST', body: idle.join('\n') })).status).toBe(200);
  await page.addInitScript(() => {
    const w = window as unknown as { __longTasks: number[] };
    w.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__longTasks.push(e.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
  await page.goto(`${relay.url}/`);
  const rows = page.getByTestId('overview-row');
  await expect(page.getByTestId('overview')).toContainText('500');
  await page.evaluate(() => ((window as unknown as { __longTasks: number[] }).__longTasks = []));

  // 20 live sessions streaming at once: a snapshot each, 40 rounds, ~5 a second
  const lines = fs.readFileSync(fixture('healthy.jsonl'), 'utf8').trim().split('\n').slice(0, 41);
  // the live ones only (idle rows with an info finding sort above them), and the most turns
  // a row shows (0 before any is listed); reads without waiting
  await page.getByTestId('overview-filter').fill('live-');
  const liveTurns = async (): Promise<number> => {
    const texts = await rows.getByTestId('overview-turns').allTextContents();
    return Math.max(0, ...texts.map((t) => Number(t.replace(/,/g, ''))));
  };
  let midway = 0;
  for (const [n, line] of lines.entries()) {
    // halfway through, the rows already show some of the stream's turns
    if (n === 20) {
      await expect.poll(liveTurns).toBeGreaterThan(0);
      midway = await liveTurns();
    }
    const round = Array.from({ length: 20 }, (_, i) =>
      fetch(`${relay.url}/api/ingest`, { method: 'POST', body: line.replace('"session_id":"healthy"', `"session_id":"live-${i}"`) }),
    );
    for (const r of await Promise.all(round)) expect(r.status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
  }
  await expect(page.getByTestId('overview')).toContainText('520');
  // and kept updating: the live rows' turns grew past what they showed halfway
  await expect.poll(liveTurns).toBeGreaterThan(midway);
  // the live ones are current, and the DOM holds only the rows in view
  await expect(rows).toHaveCount(20);
  await expect(rows.first()).toContainText('40');
  await page.getByTestId('overview-filter').fill('');
  const rendered = await rows.count();
  expect(rendered).toBeLessThan(60);
  const longest = await page.evaluate(() => Math.max(0, ...(window as unknown as { __longTasks: number[] }).__longTasks));
  test.info().annotations.push({ type: 'longest main-thread task while updating (ms)', description: longest.toFixed(0) });
});
