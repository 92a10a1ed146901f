// Untrusted span text and ids: rendered as text everywhere (inspector, tables, graph,
// findings, PNG export); nothing in them executes.
import { expect, test } from './helpers/test.ts';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dropFile, gotoApp, showLastTurn, waitLoaded } from './helpers/app.ts';

const sha = (t: string): string => crypto.createHash('sha256').update(t, 'utf8').digest('hex');
const IMG = '<img src=x onerror="window.__pwned=1">';
const SCRIPT = '<script>window.__pwned=2</script>';
const EVIL_ID = '<img src=y onerror=window.__pwned=3>';

function hostileTranscript(): string {
  const lines: string[] = [JSON.stringify({ type: 'session', session_id: '<b onmouseover=alert(1)>s</b>', title: '<img src=z onerror=window.__pwned=4>' })];
  for (let turn = 1; turn <= 6; turn++) {
    const spans = [
      { span_id: 'pin', text: 'the task statement', score: 0.9, text_sha256: sha('the task statement'), pinned: true, tokens: 4 },
      // a stale score on the hostile text, so it is named in findings and the verdict
      { span_id: 'hostile', text: IMG, score: 0.5, text_sha256: turn > 3 ? sha('older text') : sha(IMG), tokens: 9 },
      { span_id: EVIL_ID, text: SCRIPT, score: 0.4, text_sha256: sha(SCRIPT), derived_from: ['gone', 'hostile'], tokens: 9 },
    ];
    for (let i = 0; i < 8; i++)
      spans.push({ span_id: `m${i}`, text: `filler ${i}`, score: 0.1 * i, text_sha256: sha(`filler ${i}`), pinned: false, tokens: 3 });
    lines.push(JSON.stringify({ type: 'snapshot', session_id: '<b onmouseover=alert(1)>s</b>', turn, spans }));
  }
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ch-xss-')), 'hostile.jsonl');
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

test('a span whose text is <img src=x onerror=…> executes nothing', async ({ page }) => {
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await gotoApp(page);
  await dropFile(page, hostileTranscript());
  const status = await waitLoaded(page);
  expect(status.turns).toBe(6);
  await showLastTurn(page, 6);
  // the hostile span in the verdict's recompute list, then in the inspector
  await page.getByRole('button', { name: 'Inspect span hostile' }).first().click();
  const text = page.getByTestId('span-inspector').getByTestId('span-text');
  await expect(text).toHaveText(IMG);
  await expect(page.getByTestId('span-inspector').getByTestId('hash-check')).toHaveAttribute('data-binding', 'stale');
  // the span with a hostile id and a <script> text
  await page
    .getByRole('button', { name: `Inspect span ${EVIL_ID}` })
    .first()
    .click();
  await expect(page.getByTestId('span-inspector').getByTestId('span-text')).toHaveText(SCRIPT);
  // the lineage graph (drawn once scrolled into view) shows the hostile id as a label
  await page.getByRole('region', { name: 'Derivation graph of the selected turn' }).scrollIntoViewIfNeeded();
  await expect(page.locator('.span-node-id', { hasText: EVIL_ID })).toHaveCount(1);
  // PNG export clones the DOM: still nothing runs
  const download = page.waitForEvent('download');
  await page.getByTestId('chart-orphans').getByRole('button', { name: /Save/ }).click();
  expect((await download).suggestedFilename()).toMatch(/\.png$/);

  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  expect(await page.locator('img[src="x"], img[src="y"], img[src="z"], b[onmouseover]').count()).toBe(0);
  expect(await page.evaluate(() => document.querySelectorAll('script:not([src])').length)).toBe(0);
  expect(dialogs).toEqual([]);
});

test('the span table sorts by any column (mouse and keyboard) and previews each text as text', async ({ page }) => {
  await gotoApp(page);
  await dropFile(page, hostileTranscript());
  await waitLoaded(page);
  await showLastTurn(page, 6);
  const table = page.getByRole('table', { name: 'Live spans at turn 6' });
  await table.scrollIntoViewIfNeeded();
  const rowIds = (): Promise<string[]> => table.locator('.span-row').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.spanId ?? ''));
  const header = (name: string) => table.getByRole('columnheader', { name });
  // the previews: the first characters of each text, the hostile ones as text
  const hostile = table.locator('.span-row[data-span-id="hostile"]').getByTestId('span-preview');
  await expect(hostile).toHaveText(IMG);
  await expect(table.locator(`.span-row[data-span-id="${EVIL_ID}"]`).getByTestId('span-preview')).toHaveText(SCRIPT);
  await expect(table.locator('.span-row[data-span-id="m3"]').getByTestId('span-preview')).toHaveText('filler 3');
  expect(await page.locator('img[src="x"]').count()).toBe(0);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

  // problems first by default: the stale span on top, no column sorted
  expect((await rowIds())[0]).toBe('hostile');
  await expect(header('tokens')).toHaveAttribute('aria-sort', 'none');
  // a click sorts by tokens, largest first; a second click flips it
  await header('tokens').getByRole('button').click();
  await expect(header('tokens')).toHaveAttribute('aria-sort', 'descending');
  await expect(page.getByRole('checkbox', { name: 'problems first' })).not.toBeChecked();
  expect((await rowIds()).slice(-8).every((id) => /^m\d$/.test(id))).toBe(true);
  expect((await rowIds()).slice(0, 2).sort()).toEqual([EVIL_ID, 'hostile'].sort());
  await header('tokens').getByRole('button').click();
  await expect(header('tokens')).toHaveAttribute('aria-sort', 'ascending');
  expect((await rowIds()).slice(-2).sort()).toEqual([EVIL_ID, 'hostile'].sort());
  // from the keyboard: the score header, Enter, then Space flips it
  await header('score').getByRole('button').focus();
  await page.keyboard.press('Enter');
  await expect(header('score')).toHaveAttribute('aria-sort', 'descending');
  await expect(header('tokens')).toHaveAttribute('aria-sort', 'none');
  expect((await rowIds())[0]).toBe('pin');
  await page.keyboard.press('Space');
  await expect(header('score')).toHaveAttribute('aria-sort', 'ascending');
  expect((await rowIds())[0]).toBe('m0');
  // a row still opens the inspector
  await table.locator('.span-row[data-span-id="hostile"]').click();
  await expect(page.getByTestId('span-inspector').getByTestId('span-text')).toHaveText(IMG);
});
