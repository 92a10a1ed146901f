// Page helpers: open sources the ways a person does, and read the app's own signals
// (contract §6 hooks, load-status, connection-status). Every wait is for something the app
// shows, never a fixed sleep.
import { expect, type Page } from '@playwright/test';
import fs from 'node:fs';

/** Page errors and console errors fail the test through the fixture of ./test.ts. */
export async function gotoApp(page: Page, hash = ''): Promise<void> {
  await page.goto(`/${hash}`);
  await expect(page.locator('.topbar')).toBeVisible();
}

/** The file picker (the button's hidden input). */
export async function pickFile(page: Page, file: string): Promise<void> {
  await page.getByTestId('file-input').setInputFiles(file);
}

/**
 * A real drag-and-drop of a file from disk: the File object comes from a file input (so a
 * 240 MB file is not copied through the test runner), then dragenter/dragover/drop are
 * dispatched with a DataTransfer holding it, as the browser does for a desktop drop.
 */
export async function dropFile(page: Page, file: string, target = 'body'): Promise<void> {
  await page.evaluate(() => {
    if (document.getElementById('e2e-drop-source') !== null) return;
    const input = document.createElement('input');
    input.type = 'file';
    input.id = 'e2e-drop-source';
    input.style.display = 'none';
    document.body.appendChild(input);
  });
  await page.locator('#e2e-drop-source').setInputFiles(file);
  await page.evaluate((sel) => {
    const input = document.getElementById('e2e-drop-source') as HTMLInputElement;
    const dt = new DataTransfer();
    dt.items.add(input.files![0]!);
    const el = document.querySelector(sel) ?? document.body;
    // when the drop happened, for the bench's clock
    (window as unknown as { __dropAt: number }).__dropAt = performance.now();
    for (const type of ['dragenter', 'dragover', 'drop']) {
      el.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    }
  }, target);
}

/**
 * End, until the last turn is the one shown: a saved run opens on its first fault once its
 * summary arrives, which can be just after the load status shows, and that undoes an End
 * pressed before it (a CI run under load saw the first turn instead of the last).
 */
export async function showLastTurn(page: Page, turn: number): Promise<void> {
  await expect(async () => {
    await page.keyboard.press('End');
    await expect(page.getByTestId('verdict')).toHaveAttribute('data-turn', String(turn), { timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
}

export interface LoadStatus {
  state: string;
  turns: number;
  errors: number;
  text: string;
}

export async function waitLoaded(page: Page, timeout = 60_000): Promise<LoadStatus> {
  const el = page.getByTestId('load-status');
  await expect(el).toBeVisible({ timeout });
  return {
    state: (await el.getAttribute('data-state')) ?? '',
    turns: Number(await el.getAttribute('data-turns')),
    errors: Number(await el.getAttribute('data-errors')),
    text: (await el.textContent()) ?? '',
  };
}

export async function signalCounts(page: Page): Promise<Record<string, number>> {
  return page
    .getByTestId('signal-count')
    .evaluateAll((els) => Object.fromEntries(els.map((e) => [e.getAttribute('data-signal')!, Number(e.getAttribute('data-count'))])));
}

export async function waitSessionTurns(page: Page, turns: number, timeout = 60_000): Promise<void> {
  await expect(page.getByTestId('session-turns')).toHaveAttribute('data-turns', String(turns), { timeout });
}

/** Every finding of the virtualised list, by scrolling it from top to bottom. */
export async function collectFindings(page: Page): Promise<{ signal: string; turn: number; severity: string }[]> {
  const list = page.getByTestId('findings-list');
  await list.evaluate((el) => (el.scrollTop = 0));
  const seen = new Map<string, { signal: string; turn: number; severity: string }>();
  for (let guard = 0; guard < 10_000; guard++) {
    const rows = await list
      .locator('[data-signal]')
      .evaluateAll((els) =>
        els.map((e) => ({ signal: e.getAttribute('data-signal')!, turn: Number(e.getAttribute('data-turn')), severity: e.getAttribute('data-severity')! })),
      );
    for (const r of rows) seen.set(`${r.signal}@${r.turn}`, r);
    const done = await list.evaluate((el) => {
      if (el.scrollTop + el.clientHeight >= el.scrollHeight - 1) return true;
      el.scrollTop += Math.max(40, el.clientHeight - 60);
      return false;
    });
    if (done) break;
    // the virtualiser renders on scroll: wait for the rows to follow
    await page.waitForFunction(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true)))));
  }
  return [...seen.values()];
}

export function fixture(name: string): string {
  const p = new URL(`../../public/samples/${name}`, import.meta.url).pathname;
  if (!fs.existsSync(p)) throw new Error(`missing sample ${p}`);
  return p;
}
