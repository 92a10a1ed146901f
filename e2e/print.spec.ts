// Print (issue 9, docs/dashboard.md "Print"): the dashboard printed is a one-page summary:
// the verdict banner, the signal counts, the four charts and the incidents, no controls.
// Chromium's own print path (page.pdf) is measured: pages counted in the PDF it writes.
import type { Page } from '@playwright/test';
import fs from 'node:fs';
import { fixture, gotoApp, signalCounts, waitLoaded } from './helpers/app.ts';
import { checkJson, countsBySignal } from './helpers/relay.ts';
import { expect, test } from './helpers/test.ts';

const CHARTS = ['chart-spread', 'chart-canary', 'chart-drift', 'chart-orphans'];

/** Page objects of a PDF (`/Type /Page`, not `/Type /Pages`): Chromium writes its PDF uncompressed at that level. */
function pdfPages(pdf: Buffer): number {
  return pdf.toString('latin1').match(/\/Type\s*\/Page(?![a-z])/g)?.length ?? 0;
}

async function openAndDraw(page: Page, hash: string): Promise<void> {
  await gotoApp(page, hash);
  await waitLoaded(page);
  for (const id of CHARTS) await expect(page.getByTestId(id)).toHaveAttribute('data-state', /ready|empty/);
  await expect(page.getByTestId('findings-list')).toBeVisible();
}

test('printed, the dashboard is one page: banner, signal counts, the four charts, the incidents; no controls', async ({ page }) => {
  const file = fixture('all-faults.jsonl');
  await openAndDraw(page, '#sample=all-faults.jsonl&turn=40');
  const oracle = checkJson(file).sessions[0]!;
  await expect.poll(() => signalCounts(page)).toEqual(countsBySignal(oracle.findings));
  await page.emulateMedia({ media: 'print' });

  // what the summary holds
  await expect(page.getByTestId('print-header')).toBeVisible();
  await expect(page.getByTestId('print-header')).toContainText('all-faults.jsonl');
  await expect(page.getByTestId('print-header')).toContainText('turn 40');
  await expect(page.getByTestId('verdict')).toBeVisible();
  await expect(page.getByTestId('verdict')).toHaveAttribute('data-turn', '40');
  await expect(page.getByTestId('signal-count').first()).toBeVisible();
  for (const id of CHARTS) await expect(page.getByTestId(id)).toBeVisible();
  const incidents = page.getByTestId('print-incidents');
  await expect(incidents).toBeVisible();
  await expect(incidents).toContainText(`${oracle.findings.length} findings in`);
  // the cursor's incident first (turn 40: unbound_score, turns 30–41), then by severity and length
  const first = incidents.locator('tbody tr').first();
  await expect(first).toHaveAttribute('data-cursor', 'true');
  await expect(first).toHaveAttribute('data-signal', 'unbound_score');
  await expect(first).toHaveAttribute('data-from', '30');

  // what it leaves out: every control, the overview, the findings list, the turn panel
  for (const sel of ['.topbar', '.loadbar', '.overview', '.findings', '.panel.turn', '.lineage', '.keys-hint']) {
    await expect(page.locator(sel).first(), sel).toBeHidden();
  }
  await expect(page.getByRole('button', { name: /Save .* as PNG/ }).first()).toBeHidden();
  expect(await page.locator('select:visible, input:visible').count()).toBe(0);
  // the buttons left are content, printed as text: signal counts, span ids, a turn in a sentence
  const buttons = await page.locator('button:visible').evaluateAll((els) => els.map((e) => e.className));
  expect(buttons.length).toBeGreaterThan(0);
  for (const c of buttons) expect(c).toMatch(/\b(signal-count|chip|link)\b/);
  // Chromium's print (page.pdf uses print media): one page on A4 and on Letter
  for (const format of ['A4', 'Letter'] as const) {
    const pdf = await page.pdf({ format, printBackground: true });
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdfPages(pdf), format).toBe(1);
    if (format === 'A4') {
      fs.mkdirSync('test-results/screens', { recursive: true });
      fs.writeFileSync('test-results/screens/print-all-faults.pdf', pdf);
    }
  }
  // on screen, the print-only parts stay out of the way
  await page.emulateMedia({ media: 'screen' });
  await expect(page.getByTestId('print-header')).toBeHidden();
  await expect(incidents).toBeHidden();
  await expect(page.getByTestId('findings-list')).toBeVisible();
});

test('the page count is measured, not assumed: a summary made taller than a page prints on several', async ({ page }) => {
  await openAndDraw(page, '#sample=all-faults.jsonl');
  await page.emulateMedia({ media: 'print' });
  expect(pdfPages(await page.pdf({ format: 'A4' }))).toBe(1);
  // a print-only block two pages tall after the incidents
  await page.evaluate(() => {
    const block = document.createElement('div');
    block.className = 'print-only';
    block.style.height = '2400px';
    document.querySelector('.workspace')!.appendChild(block);
  });
  expect(pdfPages(await page.pdf({ format: 'A4' }))).toBeGreaterThanOrEqual(3);
});

test('with a comparison open and filters set, the printed summary is still one page and lists the filtered incidents', async ({ page }) => {
  await openAndDraw(page, '#sample=all-faults.jsonl&turn=40&sev=fault&compare=sample:collapse.jsonl');
  await expect(page.getByTestId('compare-status')).toHaveAttribute('data-state', 'done');
  await page.emulateMedia({ media: 'print' });
  const incidents = page.getByTestId('print-incidents');
  await expect(incidents).toContainText('(the findings filters applied)');
  const severities = await incidents.locator('tbody td:nth-child(3)').allTextContents();
  expect(severities.length).toBeGreaterThan(0);
  expect(new Set(severities)).toEqual(new Set(['fault']));
  for (const format of ['A4', 'Letter'] as const) expect(pdfPages(await page.pdf({ format })), format).toBe(1);
});

/**
 * The smallest text on the printed page, in pt: each element's own text at its computed size,
 * an SVG's scaled by the chart's scale on paper (its printed width over its viewBox width).
 */
async function smallestPrintedPt(page: Page): Promise<{ pt: number; what: string }> {
  return page.evaluate(() => {
    let min = { pt: Infinity, what: '' };
    for (const el of Array.from(document.querySelectorAll('.workspace *, .print-header'))) {
      if (el.getClientRects().length === 0 || el.closest('[aria-hidden="true"]')) continue;
      const own = Array.from(el.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && (n.textContent ?? '').trim() !== '');
      if (!own) continue;
      const size = parseFloat(getComputedStyle(el).fontSize);
      const svg = (el as SVGElement).ownerSVGElement ?? null;
      const drawnWidth = svg === null ? 0 : svg.viewBox.baseVal?.width || Number(svg.getAttribute('width'));
      const scale = svg === null || !(drawnWidth > 0) ? 1 : svg.getBoundingClientRect().width / drawnWidth;
      const pt = size * scale * 0.75;
      if (pt < min.pt) min = { pt, what: `${el.tagName} "${(el.textContent ?? '').trim().slice(0, 30)}" ${size}px × ${scale.toFixed(3)}` };
    }
    return min;
  });
}

// Ctrl+P lays the page out for paper without giving the page a frame to redraw its charts: a
// chart drawn 2560 px wide is scaled down whole. Here the charts' resize observers are held
// still once printing starts, as in the print dialog, and the text on paper is measured.
for (const [width, height] of [
  [390, 844],
  [1024, 768],
  [1440, 900],
  [2560, 1440],
] as const) {
  test(`Ctrl+P from a window ${width} px wide: text on paper at 7 pt or more, one page, the cursor's incident first`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    await page.addInitScript(() => {
      const Native = window.ResizeObserver;
      const w = window as unknown as { __printing?: boolean };
      window.ResizeObserver = class extends Native {
        constructor(callback: ResizeObserverCallback) {
          super((entries, observer) => {
            if (w.__printing !== true) callback(entries, observer);
          });
        }
      };
      window.addEventListener('beforeprint', () => (w.__printing = true));
    });
    await openAndDraw(page, '#sample=all-faults.jsonl&turn=112');
    const drawnWidth = Number(await page.locator('[data-testid="chart-spread"] svg.recharts-surface').getAttribute('width'));
    await page.evaluate(() => window.dispatchEvent(new Event('beforeprint')));
    // paper's width (A4 less 9 mm margins), as the print dialog lays the page out
    await page.setViewportSize({ width: 726, height: 1027 });
    await page.emulateMedia({ media: 'print' });
    await page.waitForTimeout(1700);
    // the charts were not drawn again: they print as drawn on screen, scaled
    expect(Number(await page.locator('[data-testid="chart-spread"] svg.recharts-surface').getAttribute('width'))).toBe(drawnWidth);
    const smallest = await smallestPrintedPt(page);
    expect(smallest.pt, smallest.what).toBeGreaterThanOrEqual(7 - 0.01);
    const first = page.getByTestId('print-incidents').locator('tbody tr').first();
    await expect(first).toHaveAttribute('data-cursor', 'true');
    await expect(first).toHaveAttribute('data-signal', /poisoned_span|monotonic_drift|relevance_inflation/);
    // (before page.pdf: it ends with afterprint, and the page leaves its print layout)
    fs.mkdirSync('test-results/screens', { recursive: true });
    await page.screenshot({ path: `test-results/screens/ctrl-p-${width}.png`, fullPage: true });
    for (const format of ['A4', 'Letter'] as const) expect(pdfPages(await page.pdf({ format, printBackground: true })), `${format} at ${width}`).toBe(1);
  });
}
