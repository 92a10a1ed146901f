// The screens a researcher reads (issue 24), at 390, 1024, 1440 and 2560 px wide: nothing cut
// off or off the page on home with four relay sessions, a followed session, a paused fault
// turn, compare, settings and print; one headline per turn that never says "pruning may
// proceed" beside a fault; compare by rate and coverage; the banner figure exported with the
// lineage graph scrolled away; an HTML report without a path of this machine; print to PDF on
// one page with the cursor's incident. Screenshots in test-results/screens/widths/.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decode } from 'fast-png';
import type { Page } from '@playwright/test';
import { clippedElements } from './helpers/clipping.ts';
import { fixture, gotoApp, waitLoaded } from './helpers/app.ts';
import { replay, ROOT, startRelay, type RelayHandle } from './helpers/relay.ts';
import { expect, test } from './helpers/test.ts';

// Each test stands alone (a relay of its own, or session ids tagged with the time), so this
// file, the suite's longest, spreads over both workers instead of running last on one.
test.describe.configure({ mode: 'parallel' });

const WIDTHS = [390, 1024, 1440, 2560] as const;
const HEIGHT: Record<(typeof WIDTHS)[number], number> = { 390: 844, 1024: 768, 1440: 900, 2560: 1440 };
const dir = 'test-results/screens/widths';

async function expectNothingClipped(page: Page, where: string): Promise<void> {
  const clipped = await clippedElements(page);
  expect(clipped, `${where}: elements cut off or off the page`).toEqual([]);
}

async function shot(page: Page, name: string, fullPage = false): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: `${dir}/${name}.png`, fullPage });
}

async function drawn(page: Page): Promise<void> {
  await waitLoaded(page);
  for (const id of ['chart-spread', 'chart-canary', 'chart-drift', 'chart-orphans'])
    await expect(page.getByTestId(id)).toHaveAttribute('data-state', /ready|empty/);
}

for (const width of WIDTHS) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: HEIGHT[width] } });

    test('home with four relay sessions, and one of them followed', async ({ page }) => {
      test.slow();
      const relay: RelayHandle = await startRelay();
      try {
        const tag = `screens${width}-${Date.now()}`;
        const files = ['all-faults.jsonl', 'collapse.jsonl', 'stale-scores.jsonl', 'healthy.jsonl'];
        // one long id: a harness's ids are not ours to choose
        const ids = files.map((f, i) => (i === 0 ? `${tag}-a-session-id-as-long-as-a-harness-makes-them-${f}` : `${tag}-${f}`));
        for (const [i, f] of files.entries()) expect(await replay(fixture(f), relay.url, { session: ids[i] }).done).toBe(0);
        await page.goto(`${relay.url}/`);
        await expect(page.getByTestId('overview-row')).toHaveCount(4);
        await expect(page.getByTestId('live-session')).toHaveCount(4);
        await shot(page, `${width}-home`, true);
        await expectNothingClipped(page, 'home');
        // the welcome card starts inside the window
        const card = (await page.locator('.welcome-card').boundingBox())!;
        expect(card.x).toBeGreaterThanOrEqual(0);

        await page.getByTestId('overview-row').first().click();
        await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'live');
        await expect(page.getByTestId('verdict')).toHaveAttribute('data-turn', /\d+/);
        await drawn(page).catch(() => undefined);
        await expect(page.getByTestId('chart-spread')).toHaveAttribute('data-state', /ready|empty/);
        await shot(page, `${width}-followed`);
        await expectNothingClipped(page, 'a followed session');
        await page.close();
      } finally {
        await relay.stop();
      }
    });

    test('a paused fault turn: one headline, drop and the faults, never "pruning may proceed"', async ({ page }) => {
      await gotoApp(page, '#sample=all-faults.jsonl&turn=112');
      await drawn(page);
      const verdict = page.getByTestId('verdict');
      await expect(verdict).toHaveAttribute('data-turn', '112');
      const headline = page.getByTestId('headline');
      await expect(headline).toHaveAttribute('data-kind', 'drop');
      await expect(headline).toContainText('DROP');
      await expect(headline).toContainText('m194');
      await expect(verdict.locator('.verdict-findings li[data-signal="monotonic_drift"]')).toContainText('fault');
      await expect(verdict.locator('.verdict-findings li[data-signal="poisoned_span"]')).toContainText('fault');
      expect(await page.locator('body').innerText()).not.toMatch(/pruning may proceed/i);
      await shot(page, `${width}-fault-turn`);
      await expectNothingClipped(page, 'a paused fault turn');
      // the findings list and the turn panel are in view beside the charts, or just under the banner
      const findings = (await page.getByTestId('findings-list').boundingBox())!;
      expect(findings.y).toBeLessThan(width <= 900 ? 1400 : HEIGHT[width]);
      if (width === 1440) {
        // at 1440 × 900 the findings list shows ten rows or more
        const rows = await page.getByTestId('findings-list').evaluate((el) => {
          const box = el.getBoundingClientRect();
          return Array.from(el.querySelectorAll('.finding-row, .incident-row')).filter((r) => {
            const b = r.getBoundingClientRect();
            return b.top >= box.top - 1 && b.bottom <= box.bottom + 1;
          }).length;
        });
        expect(rows).toBeGreaterThanOrEqual(10);
      }
      // the chart toolbars are one line: their buttons share a top
      const tops = await page
        .getByTestId('chart-spread')
        .locator('.export-buttons button')
        .evaluateAll((bs) => bs.map((b) => Math.round(b.getBoundingClientRect().top)));
      expect(new Set(tops).size).toBe(1);
    });

    test('compare two sessions of different lengths: rates and the compared range', async ({ page }) => {
      await gotoApp(page, '#sample=all-faults.jsonl&compare=sample:healthy.jsonl');
      await drawn(page);
      await expect(page.getByTestId('compare-panel')).toHaveAttribute('data-ready', 'true');
      await expect(page.getByTestId('compare-coverage')).toContainText("Compared: turns 1–60; A's 61–150 have no B.");
      await expect(page.getByTestId('compare-coverage')).toContainText('per 100');
      const row = page.locator('[data-testid="compare-signal"][data-signal="stale_score"]');
      await expect(row).toHaveAttribute('data-rate-a', '8.00');
      await expect(row).toContainText('(8.0%)');
      await expect(row.getByTestId('compare-points')).toHaveText('−8.0');
      await shot(page, `${width}-compare`);
      await expectNothingClipped(page, 'compare');
      // by position: B's markers are drawn too
      await gotoApp(page, '#sample=all-faults.jsonl&compare=sample:collapse.jsonl&align=relative');
      await drawn(page);
      await expect(page.getByTestId('compare-panel')).toHaveAttribute('data-ready', 'true');
      await expect(page.getByTestId('compare-coverage')).toContainText('by position');
      await expect(page.getByTestId('chart-spread').getByTestId('partner-fault-marks')).toHaveAttribute('d', /M/);
    });

    test('settings', async ({ page }) => {
      await gotoApp(page, '#sample=all-faults.jsonl');
      await drawn(page);
      await page.getByRole('button', { name: /Thresholds/ }).click();
      await expect(page.getByRole('dialog', { name: 'Thresholds' })).toBeVisible();
      await shot(page, `${width}-settings`);
      await expectNothingClipped(page, 'settings');
    });

    test('print', async ({ page }) => {
      await gotoApp(page, '#sample=all-faults.jsonl&turn=112');
      await drawn(page);
      await page.emulateMedia({ media: 'print' });
      // print media narrows the charts' column: they are drawn again at the width they print at,
      // two by two (under 400 px) or, drawn too wide for that at 7 pt, on a row of their own of at
      // most 682 px (app/features/print/printScale.ts; at 1440 the chart is near that edge)
      await expect.poll(() => page.locator('[data-testid="chart-spread"] svg.recharts-surface').getAttribute('width').then(Number)).toBeLessThanOrEqual(682);
      await page.waitForTimeout(1700);
      const first = page.getByTestId('print-incidents').locator('tbody tr').first();
      await expect(first).toHaveAttribute('data-cursor', 'true');
      await shot(page, `${width}-print`, true);
      await expectNothingClipped(page, 'print');
      if (width === 1440) {
        const pdf = await page.pdf({ format: 'A4', printBackground: true });
        fs.writeFileSync(`${dir}/print-1440.pdf`, pdf);
        expect(pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g)?.length).toBe(1);
        // the cursor's incident (turn 112: poisoned_span or monotonic_drift, both faults) heads the table
        await expect(first).toHaveAttribute('data-signal', /poisoned_span|monotonic_drift|relevance_inflation/);
        await expect(first).toBeVisible();
        // text on paper is 7 pt or more: the smallest printed font, after the charts' scaling
        const smallest = await page.evaluate(() => {
          // half of A4 less 9 mm margins each side, less a chart frame's padding and border: the width a chart is printed at
          const column = ((192 * 96) / 25.4 - 6) / 2 - 18;
          let min = { size: Infinity, what: '' };
          for (const el of Array.from(document.querySelectorAll('.workspace *, .print-header'))) {
            if (el.getClientRects().length === 0 || el.closest('[aria-hidden="true"]')) continue;
            const own = Array.from(el.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && (n.textContent ?? '').trim() !== '');
            if (!own) continue;
            const size = parseFloat(getComputedStyle(el).fontSize);
            const svg = (el as SVGElement).ownerSVGElement ?? null;
            // an SVG's text is scaled with the chart: drawn at its width attribute, printed at the column's
            const scale = svg === null ? 1 : column / Number(svg.getAttribute('width'));
            if (size * scale < min.size) min = { size: size * scale, what: `${el.tagName} ${(el.textContent ?? '').trim().slice(0, 30)}` };
          }
          return min;
        });
        // 7 pt = 9.33 px at 96 px per inch
        expect(smallest.size, smallest.what).toBeGreaterThanOrEqual(7 * (96 / 72) - 0.01);
      }
    });
  });
}

test.describe('states and exports', () => {
  test('the relay going away: the table stays greyed with "unreachable since", a followed session says "as of turn N, disconnected"', async ({
    page,
    allowPageErrors,
  }) => {
    test.slow();
    allowPageErrors(/ERR_CONNECTION_REFUSED/, /WebSocket connection to .* failed/);
    const relay = await startRelay();
    const id = `screens-gone-${Date.now()}`;
    expect(await replay(fixture('healthy.jsonl'), relay.url, { session: id }).done).toBe(0);
    await page.goto(`${relay.url}/`);
    await expect(page.getByTestId('overview-row')).toHaveCount(1);
    const other = await page.context().newPage();
    await other.goto(`${relay.url}/#live=${id}`);
    await expect(other.getByTestId('connection-status')).toHaveAttribute('data-state', 'live');
    await expect(other.getByTestId('verdict')).toHaveAttribute('data-turn', '60');
    await relay.stop();
    await expect(page.getByTestId('overview-unreachable')).toContainText(/unreachable since \d\d:\d\d:\d\d, retrying/);
    await expect(page.getByTestId('overview-row')).toHaveCount(1);
    await expect(page.getByTestId('overview')).toHaveAttribute('data-unreachable', 'true');
    await shot(page, 'relay-unreachable');
    await expect(other.getByTestId('verdict-disconnected')).toContainText('As of turn 60, disconnected');
    expect(await other.locator('body').innerText()).not.toMatch(/pruning may proceed/i);
    // Retrying cycles reconnecting → connecting → reconnecting; a retry in flight lasts
    // milliseconds, too short to poll for, so watch every mutation until one whole retry has
    // gone by (the backoff grows to 8 s; 30 s bounds the watch)
    const watched = await other.evaluate(
      () =>
        new Promise<{ states: string[]; prunedOk: boolean }>((resolve) => {
          const states: string[] = [];
          let prunedOk = false;
          const done = (): void => {
            mo.disconnect();
            clearTimeout(bound);
            resolve({ states, prunedOk });
          };
          const look = (): void => {
            const st = document.querySelector('[data-testid="connection-status"]')?.getAttribute('data-state');
            if (st && st !== states[states.length - 1]) states.push(st);
            if (/pruning may proceed/i.test(document.body.innerText)) prunedOk = true;
            // a retry seen from its start to its end
            if (states.indexOf('connecting') >= 0 && states.lastIndexOf('reconnecting') > states.indexOf('connecting')) done();
          };
          const mo = new MutationObserver(look);
          const bound = setTimeout(done, 30_000);
          mo.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
        }),
    );
    expect(watched.states).toContain('connecting');
    expect(watched.prunedOk).toBe(false);
    await other.screenshot({ path: `${dir}/followed-disconnected.png` });
    await other.close();
    await page.close();
  });

  test('a file with dropped lines says so in the headline, and the turn axis marks where they fell', async ({ page }) => {
    await gotoApp(page, '#sample=with-bad-lines.jsonl');
    await drawn(page);
    await expect(page.getByTestId('verdict-dropped-lines')).toContainText('could not be read');
    await expect(page.getByTestId('input-error-marks')).toHaveAttribute('data-count', /[1-9]/);
  });

  test('the exported banner figure has the lineage graph drawn though it was scrolled away', async ({ page }) => {
    test.slow();
    await gotoApp(page, '#sample=all-faults.jsonl&turn=95');
    await drawn(page);
    await page.evaluate(() => window.scrollTo(0, 0));
    const lineage = page.getByRole('region', { name: 'Derivation graph of the selected turn' });
    // not near the window: the graph is not drawn yet
    expect(await lineage.locator('.lineage-canvas').getAttribute('data-fitted')).toBeNull();
    const banner = page.getByTestId('verdict');
    const download = page.waitForEvent('download');
    await banner.getByRole('button', { name: /^Export .* as PNG$/ }).click();
    const bytes = fs.readFileSync((await (await download).path())!);
    await page.evaluate(() => window.scrollTo(0, 0));
    const boxes = await page.evaluate(() => {
      const r = (sel: string) => document.querySelector(sel)!.getBoundingClientRect();
      const b = r('[data-testid="verdict"]');
      const c = r('[data-testid="charts"]');
      const l = r('.lineage-canvas');
      return { bannerH: b.height, lineage: { x: l.left - c.left, y: b.height + (l.top - c.top), w: l.width, h: l.height } };
    });
    const img = decode(bytes);
    const s = 2;
    let dark = 0;
    for (let y = Math.round(boxes.lineage.y * s); y < Math.round((boxes.lineage.y + boxes.lineage.h) * s); y += 2) {
      for (let x = Math.round(boxes.lineage.x * s); x < Math.round((boxes.lineage.x + boxes.lineage.w) * s); x += 2) {
        const i = (y * img.width + x) * img.channels;
        if (img.data[i]! < 150 && img.data[i + 1]! < 150 && img.data[i + 2]! < 150) dark++;
      }
    }
    expect(dark, 'dark pixels (nodes, edges, labels) in the lineage box of the export').toBeGreaterThan(200);
    // controls stay out of the figure: their text is not in the page's exported part
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(`${dir}/export-banner.png`, bytes);
  });

  test('an HTML report holds no path of the machine it was made on', () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-screens-report-'));
    const run = spawnSync(
      process.execPath,
      [
        path.join(ROOT, 'bin/context-health.mjs'),
        'report',
        path.join(ROOT, 'public/samples/all-faults.jsonl'),
        '--incident',
        '12',
        '--format',
        'html',
        '--out',
        out,
      ],
      { encoding: 'utf8' },
    );
    expect(run.status, run.stderr).toBe(1);
    const html = fs.readFileSync(path.join(out, 'report.html'), 'utf8');
    for (const local of [ROOT, out, os.tmpdir(), os.homedir(), 'file:', '../', 'docs/contract.md"'])
      expect(html.includes(local), `the report contains ${local}`).toBe(false);
    expect(html).toContain('https://github.com/context-health/context-health/blob/main/docs/contract.md#');
    // a fault incident's report never tells the harness to prune as usual
    expect(html).not.toContain('may prune as usual');
  });
});
