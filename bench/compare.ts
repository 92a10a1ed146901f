// Comparing two sessions in the dashboard (docs/dashboard.md, Compare): two 2,000-turn ×
// 200-span transcripts, A dropped on the page and B picked with "Compare with… a file", each
// analysed by its own Worker. From the drop to both sessions' charts drawn and the
// comparison shown, against loading A alone in the same run. Goal: at most 2.2× one load
// (the two Workers read in parallel on two cores; the comparison itself is milliseconds).
// Run alone: node --import tsx bench/compare.ts   (or npm run bench -- compare)
import { chromium, type Browser, type Page } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { allFaults } from '../src/sim/scenario.ts';
import { dropFile } from '../e2e/helpers/app.ts';
import { ROOT, startRelay, type RelayHandle } from '../e2e/helpers/relay.ts';
import { median, waitAllChartsScript } from './browser.ts';
import { writeSimulated } from './transcripts.ts';

const OUT = path.join(ROOT, 'bench', 'out');
const TURNS = Number(process.env.BENCH_TURNS ?? 2000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

function transcript(name: string, seed: number, faults: boolean): string {
  return writeSimulated(path.join(OUT, `compare-${name}-${TURNS}x200.jsonl`), {
    seed,
    sessionId: `bench-${name}`,
    turns: TURNS,
    spans: 200,
    textChars: 440,
    faults: faults ? allFaults(TURNS) : [],
  });
}

/** Resolves (seconds since the drop) when B is loaded, drawn dashed, and compared. */
function waitComparedScript(turns: number): string {
  return `new Promise((resolve) => {
    const t0 = window.__dropAt ?? window.__t0;
    const check = () => {
      const status = document.querySelector('[data-testid="compare-status"]');
      const panel = document.querySelector('[data-testid="compare-panel"]');
      const dashed = document.querySelector('[data-testid="chart-spread"] path.series-line[stroke="#ad1457"]');
      const ok = status?.getAttribute('data-state') === 'done' && status?.getAttribute('data-turns') === '${turns}' && panel?.getAttribute('data-ready') === 'true' && (dashed?.getAttribute('d')?.length ?? 0) > 50;
      if (ok) requestAnimationFrame(() => resolve((performance.now() - t0) / 1000));
      else requestAnimationFrame(check);
    };
    check();
  })`;
}

async function loadOne(page: Page, relay: RelayHandle, a: string): Promise<number> {
  await page.goto(`${relay.url}/`);
  await dropFile(page, a);
  return (await page.evaluate(waitAllChartsScript(TURNS))) as number;
}

async function loadCompared(page: Page, relay: RelayHandle, a: string, b: string): Promise<number> {
  await page.goto(`${relay.url}/`);
  await dropFile(page, a);
  // "Compare with…" appears with the first source; B starts while A is still being read
  await page.getByTestId('compare-file-input').setInputFiles(b);
  const both = (await page.evaluate(waitAllChartsScript(TURNS))) as number;
  const compared = (await page.evaluate(waitComparedScript(TURNS))) as number;
  return Math.max(both, compared);
}

export async function benchCompare(): Promise<void> {
  const chromePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!fs.existsSync(chromePath)) {
    console.log(`compare bench skipped: no Chromium at ${chromePath}`);
    return;
  }
  fs.mkdirSync(OUT, { recursive: true });
  if (process.env.BENCH_NO_BUILD === undefined) {
    const r = spawnSync('npx', ['vite', 'build'], { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`vite build failed:\n${r.stderr}`);
  }
  const a = transcript('a', 240, false);
  const b = transcript('b', 241, true);
  const relay = await startRelay();
  const browser: Browser = await chromium.launch({ executablePath: chromePath });
  try {
    const one: number[] = [];
    const two: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const p1 = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      one.push(await loadOne(p1, relay, a));
      await p1.close();
      const p2 = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      two.push(await loadCompared(p2, relay, a, b));
      await p2.close();
    }
    const mb = (fs.statSync(a).size + fs.statSync(b).size) / 2 / 1e6;
    const m1 = median(one);
    const m2 = median(two);
    console.log(`\ncompare (headless Chromium): two ${TURNS}-turn × 200-span files of ~${mb.toFixed(0)} MB (median of ${RUNS})`);
    console.log(`    one file, drop → all charts drawn            ${m1.toFixed(2)} s   (runs ${one.map((x) => x.toFixed(2)).join(' / ')})`);
    console.log(`    A dropped + B picked → both drawn, compared  ${m2.toFixed(2)} s   (runs ${two.map((x) => x.toFixed(2)).join(' / ')})`);
    console.log(`    ×${(m2 / m1).toFixed(2)} one load (goal ≤ ×2.2)`);
  } finally {
    await browser.close();
    await relay.stop();
  }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  await benchCompare();
}
