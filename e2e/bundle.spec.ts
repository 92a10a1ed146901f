// The welcome screen's first load leaves out the session view's heavy code (Recharts,
// React Flow, html-to-image): it is fetched once the page is idle, or when a session opens.
import type { Page } from '@playwright/test';
import { gotoApp } from './helpers/app.ts';
import { chunksHolding } from './helpers/bundle.ts';
import { expect, test } from './helpers/test.ts';

// app/prefetch.ts marks this just before the idle prefetch starts
const PREFETCH_MARK = 'context-health:prefetch';

/** The script files the page requested before and after the idle prefetch began (Resource Timing). */
async function scriptsAroundPrefetch(page: Page): Promise<{ before: string[]; after: string[] }> {
  return page.evaluate((mark) => {
    const at = performance.getEntriesByName(mark)[0]!.startTime;
    const js = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter((r) => new URL(r.name).pathname.endsWith('.js'));
    const file = (r: PerformanceResourceTiming): string => new URL(r.name).pathname.split('/').pop()!;
    return { before: js.filter((r) => r.startTime < at).map(file), after: js.filter((r) => r.startTime >= at).map(file) };
  }, PREFETCH_MARK);
}

test('the welcome screen loads no Recharts, React Flow or PNG exporter chunk; the idle prefetch fetches them', async ({ page }) => {
  const heavy = chunksHolding(['recharts', '@xyflow/react', 'html-to-image']);
  expect(heavy.length, 'dist/ holds chunks with the session view code').toBeGreaterThan(0);
  const entry = chunksHolding(['react-dom']);
  await gotoApp(page);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await page.waitForFunction((mark) => performance.getEntriesByName(mark).length > 0, PREFETCH_MARK);
  const { before } = await scriptsAroundPrefetch(page);
  // the first load did fetch the app (so the list below is not empty by accident) …
  expect(before.filter((f) => entry.includes(f))).not.toEqual([]);
  // … and none of the session view's heavy chunks
  expect(before.filter((f) => heavy.includes(f))).toEqual([]);
  // once idle, every one of them is fetched, so opening a session does not wait for them
  await expect
    .poll(async () => {
      const { after } = await scriptsAroundPrefetch(page);
      return heavy.filter((f) => !after.includes(f));
    })
    .toEqual([]);
});

test("a file dragged over the page fetches the session view's chunks before it lands", async ({ page }) => {
  const heavy = chunksHolding(['recharts', '@xyflow/react', 'html-to-image']);
  // the page never idle for the prefetch: only the drag can fetch them
  await page.addInitScript(() => {
    (window as unknown as { requestIdleCallback: () => number }).requestIdleCallback = () => 0;
  });
  await gotoApp(page);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  expect(heavy.length, 'dist/ holds chunks with the session view code').toBeGreaterThan(0);
  const fetched = (): Promise<string[]> =>
    page.evaluate(() => (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((r) => new URL(r.name).pathname.split('/').pop()!));
  expect((await fetched()).filter((f) => heavy.includes(f))).toEqual([]);
  // a drag that carries a file, not yet dropped
  await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.items.add(new File(['{}\n'], 'run.jsonl'));
    document.body.dispatchEvent(new DragEvent('dragenter', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await expect
    .poll(async () => {
      const now = await fetched();
      return heavy.filter((f) => !now.includes(f));
    })
    .toEqual([]);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
});
