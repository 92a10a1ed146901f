// Stamped exports (docs/reports.md): every export is a PNG at twice the figure's size, not
// blank, whose iTXt chunk `context-health` names the session, turns and thresholds; the
// clipboard copy holds such an image; "Report this incident" downloads a zip holding the
// Markdown and every image it references.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decode } from 'fast-png';
import { unzipSync, strFromU8 } from 'fflate';
import type { Download, Locator, Page } from '@playwright/test';
import { readITxt } from '../src/report/png.ts';
import { parseStamp, type Stamp } from '../src/report/stamp.ts';
import { fixture, gotoApp, pickFile, waitLoaded } from './helpers/app.ts';
import { expect, test } from './helpers/test.ts';

/** all-faults with a header that sets spread_floor: a non-default threshold the stamp must name */
function sampleWithThreshold(): string {
  const lines = fs.readFileSync(fixture('all-faults.jsonl'), 'utf8').split('\n');
  const header = JSON.parse(lines[0]!) as Record<string, unknown>;
  header.config = { spread_floor: 0.1 };
  lines[0] = JSON.stringify(header);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ch-exports-')), 'all-faults-floor.jsonl');
  fs.writeFileSync(file, lines.join('\n'));
  return file;
}

async function bytesOf(download: Download): Promise<Buffer> {
  return fs.readFileSync((await download.path())!);
}

function checkPng(bytes: Uint8Array, box: { width: number; height: number }): Stamp {
  const img = decode(bytes);
  // twice the figure's CSS size (html-to-image rounds to whole pixels), plus the caption strip below
  expect(Math.abs(img.width - 2 * box.width)).toBeLessThanOrEqual(2);
  expect(img.height).toBeGreaterThan(2 * box.height + 40);
  const colours = new Set<number>();
  for (let i = 0; i < img.data.length; i += img.channels * 5) colours.add((img.data[i]! << 16) | (img.data[i + 1]! << 8) | img.data[i + 2]!);
  expect(colours.size).toBeGreaterThan(10);
  return parseStamp(readITxt(bytes)!);
}

async function loaded(page: Page): Promise<string> {
  const file = sampleWithThreshold();
  await gotoApp(page);
  await pickFile(page, file);
  const status = await waitLoaded(page);
  expect(status.state).toBe('done');
  await expect(page.getByTestId('chart-spread')).toHaveAttribute('data-state', 'ready');
  return path.basename(file);
}

async function box(el: Locator): Promise<{ width: number; height: number }> {
  const b = (await el.boundingBox())!;
  return { width: b.width, height: b.height };
}

function expectStamp(stamp: Stamp, fileName: string, figure: string, selected: number | null): void {
  expect(stamp.figure).toBe(figure);
  expect(stamp.session_id).toBe('all-faults');
  expect(stamp.title).toBe('Every fault, one after another');
  expect(stamp.turns).toEqual({ from: 1, to: 150 });
  expect(stamp.selected_turn).toBe(selected);
  expect(stamp.thresholds).toEqual({ spread_floor: 0.1 });
  expect(stamp.signals).toContain('stale_score');
  expect(stamp.source.kind).toBe('file');
  if (stamp.source.kind === 'file') {
    expect(stamp.source.name).toBe(fileName);
    expect(stamp.source.sha256).toMatch(/^[0-9a-f]{64}$/);
  }
  expect(Date.parse(stamp.exported_at!)).toBeGreaterThan(Date.parse('2020-01-01'));
}

test('each chart, the lineage graph and the verdict + charts figure export stamped PNGs at 2×', async ({ page }) => {
  test.setTimeout(180_000);
  const fileName = await loaded(page);
  // a turn with an orphan, so the lineage graph has something to draw
  // (orphaned_parent fires on turns 90–101: a click on the overview strip at turn 95 selects it)
  const strip = page.locator('.overview-strip');
  const w = (await strip.boundingBox())!.width;
  await strip.click({ position: { x: (w * (95 - 1 + 0.5)) / 150, y: 4 } });
  await expect(page.getByTestId('verdict')).toHaveAttribute('data-turn', /^(9\d|10[01])$/);
  const selected = Number(await page.getByTestId('verdict').getAttribute('data-turn'));

  for (const id of ['spread', 'canary', 'drift', 'orphans']) {
    const fig = page.getByTestId(`chart-${id}`);
    await expect(fig).toHaveAttribute('data-state', 'ready');
    const size = await box(fig);
    const download = page.waitForEvent('download');
    await fig.getByRole('button', { name: /^Save .* as PNG$/ }).click();
    const d = await download;
    expect(d.suggestedFilename()).toMatch(/\.png$/);
    expectStamp(checkPng(await bytesOf(d), size), fileName, id, selected);
  }

  // SVG of a chart: the figure with its caption strip, text escaped
  const svgDownload = page.waitForEvent('download');
  await page
    .getByTestId('chart-spread')
    .getByRole('button', { name: /as SVG$/ })
    .click();
  const svg = (await bytesOf(await svgDownload)).toString('utf8');
  expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  expect(svg).toContain('Session all-faults');
  expect(svg).toContain('spread_floor=0.1');

  const lineage = page.getByRole('region', { name: 'Derivation graph of the selected turn' });
  await lineage.scrollIntoViewIfNeeded();
  await expect(lineage.locator('.lineage-canvas')).toHaveAttribute('data-fitted', 'true');
  const lineageSize = await box(lineage);
  const ld = page.waitForEvent('download');
  await lineage.getByRole('button', { name: /^Export .* as PNG$/ }).click();
  expectStamp(checkPng(await bytesOf(await ld), lineageSize), fileName, 'lineage', selected);

  const banner = page.getByTestId('verdict');
  const charts = page.getByTestId('charts');
  const both = { width: Math.max((await box(banner)).width, (await box(charts)).width), height: (await box(banner)).height + (await box(charts)).height };
  const vd = page.waitForEvent('download');
  await banner.getByRole('button', { name: /^Export .* as PNG$/ }).click();
  expectStamp(checkPng(await bytesOf(await vd), both), fileName, 'verdict', selected);
});

test('Copy image puts a stamped PNG on the clipboard', async ({ page, context }) => {
  test.setTimeout(120_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const fileName = await loaded(page);
  const fig = page.getByTestId('chart-drift');
  const size = await box(fig);
  await fig.getByRole('button', { name: /^Copy .* as an image$/ }).click();
  await expect(fig.getByRole('status')).toHaveText('Copied');
  const bytes = await page.evaluate(async () => {
    const items = await navigator.clipboard.read();
    const item = items.find((i) => i.types.includes('image/png'));
    if (item === undefined) return null;
    return Array.from(new Uint8Array(await (await item.getType('image/png')).arrayBuffer()));
  });
  expect(bytes).not.toBeNull();
  // the clipboard re-encodes the image: the pixels are kept, the stamp is in the caption strip
  const img = decode(Uint8Array.from(bytes!));
  expect(Math.abs(img.width - 2 * size.width)).toBeLessThanOrEqual(2);
  expect(img.height).toBeGreaterThan(2 * size.height);
  void fileName;
});

test('Report this incident downloads a zip with the Markdown and every image it references', async ({ page, context }) => {
  test.setTimeout(180_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await loaded(page);
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: /^Report incident 1: / }).click();
  const zip = unzipSync(new Uint8Array(await bytesOf(await download)));
  const md = strFromU8(zip['report.md']!);
  expect(md).toMatch(/^# Incident 1: `\w+`/);
  const range = /This report covers turns (\d+)–(\d+)/.exec(md)!;
  const images = [...md.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => m[1]!);
  expect(images.length).toBeGreaterThanOrEqual(4);
  for (const name of images) {
    const png = zip[name];
    expect(png, name).toBeDefined();
    const stamp = parseStamp(readITxt(png!)!);
    expect(stamp.turns).toEqual({ from: Number(range[1]), to: Number(range[2]) });
    expect(stamp.thresholds).toEqual({ spread_floor: 0.1 });
    expect(decode(png!).width).toBeGreaterThan(400);
  }
  // the charts stay zoomed to the incident, and the Markdown can be copied for a tracker
  const dialog = page.getByTestId('report-dialog');
  await expect(dialog).toHaveAttribute('data-state', 'ready');
  await dialog.getByRole('button', { name: 'Copy Markdown' }).click();
  await expect(dialog.getByRole('status')).toHaveText('Markdown copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(md);
});
