// A dropped file parsed by the analysis Worker's parsing Workers (docs/dashboard.md "Parsing
// Workers") shows exactly what it shows parsed on one thread (`?parse=1`): load-status, the
// signal counts and every finding, for a sample, gzip, a JSON array, bad lines and a file
// of many batches. A parsing Worker that dies mid-file ends the load as failed, saying so.
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from './helpers/test.ts';
import { collectFindings, dropFile, fixture, signalCounts, waitLoaded } from './helpers/app.ts';
import { writeSimulated } from '../bench/transcripts.ts';
import { allFaults } from '../src/sim/scenario.ts';

/** ~12 MB: a dozen batches of lines, so both Workers get several, and past the default pool's 8 MB. */
function manyBatches(): string {
  return writeSimulated(path.join(os.tmpdir(), 'context-health-e2e-parse-400x60.jsonl'), {
    seed: 25,
    sessionId: 'parse-workers',
    turns: 400,
    spans: 60,
    textChars: 400,
    faults: allFaults(400),
  });
}

interface Shown {
  state: string;
  turns: number;
  errors: number;
  text: string;
  timing: string;
  counts: Record<string, number>;
  findings: string[];
}

async function loadWith(page: Page, query: string, file: string): Promise<Shown> {
  await page.goto(`/${query}`);
  await expect(page.locator('.topbar')).toBeVisible();
  await dropFile(page, file);
  const status = await waitLoaded(page);
  const timing = (await page.getByTestId('load-status').getAttribute('data-timing')) ?? '';
  const findings = (await collectFindings(page)).map((f) => `${f.turn}:${f.signal}:${f.severity}`).sort();
  return { ...status, timing, counts: await signalCounts(page), findings };
}

const FILES = ['all-faults.jsonl', 'all-faults.jsonl.gz', 'all-faults.json', 'with-bad-lines.jsonl', 'two-sessions-interleaved.jsonl'];

for (const name of FILES) {
  test(`${name}: two parsing Workers show what one thread shows`, async ({ page }) => {
    const file = fixture(name);
    const one = await loadWith(page, '?parse=1', file);
    const pooled = await loadWith(page, '?parse=2', file);
    expect(one.timing).toContain('; 0 parsing Workers');
    expect(pooled.timing).toContain('; 2 parsing Workers');
    expect(pooled.state).toBe('done');
    const { timing: _a, ...a } = one;
    const { timing: _b, ...b } = pooled;
    expect(b).toEqual(a);
    expect(b.turns).toBeGreaterThan(0);
  });
}

test('a file of many batches: the default pool (two Workers or more) shows what one thread shows', async ({ page }) => {
  const file = manyBatches();
  const one = await loadWith(page, '?parse=1', file);
  const pooled = await loadWith(page, '', file);
  expect(Number(/; (\d+) parsing Workers/.exec(pooled.timing)?.[1])).toBeGreaterThanOrEqual(2);
  const { timing: _a, ...a } = one;
  const { timing: _b, ...b } = pooled;
  expect(b).toEqual(a);
  expect(b.turns).toBe(400);
});

test('a parsing Worker that dies mid-file ends the load as failed, saying so, not as a whole result', async ({ page, context }) => {
  const file = manyBatches();
  // A parsing Worker's own requests are not seen by the page's routes: the analysis Worker's
  // script is, and in it every Worker started gets a first module that throws (uncaught: an
  // error event where the pool listens) on receiving its third batch, which is never parsed.
  const killer =
    'let n = 0, h = null; const early = [];' +
    "Object.defineProperty(self, 'onmessage', { set(x) { h = x; for (const e of early.splice(0)) h(e); }, get() { return h; } });" +
    "self.addEventListener('message', (ev) => { if (++n === 3) throw new Error('killed by the test'); if (h) h(ev); else early.push(ev); });";
  const prelude = `{ const Base = self.Worker; self.Worker = class extends Base { constructor(url, options) {
    const src = ${JSON.stringify(killer)} + 'await import(' + JSON.stringify(String(url)) + ');';
    super(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })), options); } }; }\n`;
  let routed = 0;
  await context.route(/\/assets\/worker-[^/]*\.js$/, async (route) => {
    routed++;
    const response = await route.fetch();
    await route.fulfill({ response, body: prelude + (await response.text()) });
  });
  // every batch a Worker has room for (two in hand) goes to it: one judged slow would not get its third
  await page.goto('/?parse=2&share=all');
  await expect(page.locator('.topbar')).toBeVisible();
  await dropFile(page, file);
  const status = await waitLoaded(page);
  expect(status.state).toBe('failed');
  expect(status.text).toMatch(/the load stopped after line \d+: a parsing Worker failed \(.*killed by the test\), and the lines after it were not read/);
  // mid-file: the batches before the lost one were analysed, and only they
  expect(status.turns).toBeGreaterThan(0);
  expect(status.turns).toBeLessThan(400);
  expect(routed).toBe(1);
});
