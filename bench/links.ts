// Links (docs/dashboard.md "Links"): what naming a dropped file by its sha256 costs. The
// Worker takes the digest after the load has ended, so the first charts never wait for it;
// this measures how long after the load the link can name the file (the URL gains
// `sha256=`), as a ratio of the load itself, on the ~234 MB transcript of the browser bench.
// Run alone: node --import tsx bench/links.ts   (or npm run bench -- links)
import { chromium } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { dropFile } from '../e2e/helpers/app.ts';
import { ROOT, startRelay } from '../e2e/helpers/relay.ts';
import { writeSimulated } from './transcripts.ts';

const TURNS = Number(process.env.BENCH_TURNS ?? 2000);

export async function benchLinks(): Promise<void> {
  const chromePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!fs.existsSync(chromePath)) {
    console.log(`links bench skipped: no Chromium at ${chromePath}`);
    return;
  }
  if (process.env.BENCH_NO_BUILD === undefined) {
    const b = spawnSync('npx', ['vite', 'build'], { cwd: ROOT, encoding: 'utf8' });
    if (b.status !== 0) throw new Error(`vite build failed:\n${b.stderr}`);
  }
  // the browser bench's transcript (cached in bench/out by its parameters)
  const file = writeSimulated(path.join(ROOT, 'bench', 'out', `browser-${TURNS}x200.jsonl`), {
    seed: 240,
    sessionId: 'bench-load',
    turns: TURNS,
    spans: 200,
    textChars: 440,
    faults: [],
  });
  const mb = fs.statSync(file).size / 1e6;
  const relay = await startRelay();
  const browser = await chromium.launch({ executablePath: chromePath });
  try {
    console.log(`\nlinks: a ${mb.toFixed(0)} MB file dropped, until the link names it by sha256`);
    const rows: { load: number; digest: number }[] = [];
    for (let run = 0; run < 2; run++) {
      const page = await browser.newPage();
      await page.goto(`${relay.url}/`);
      const t0 = performance.now();
      await dropFile(page, file);
      await page.getByTestId('load-status').waitFor({ timeout: 300_000 });
      const t1 = performance.now();
      await page.waitForFunction(() => location.hash.includes('sha256='), undefined, { timeout: 300_000, polling: 50 });
      const t2 = performance.now();
      rows.push({ load: (t1 - t0) / 1000, digest: (t2 - t1) / 1000 });
      console.log(
        `  run ${run + 1}: load ${((t1 - t0) / 1000).toFixed(2)} s, then the sha256 in ${((t2 - t1) / 1000).toFixed(2)} s: ×${((t2 - t1) / (t1 - t0)).toFixed(2)} of the load`,
      );
      await page.close();
    }
    const median = rows.map((r) => r.digest / r.load).sort((a, b) => a - b)[Math.floor(rows.length / 2)]!;
    console.log(`  the link names the file ×${median.toFixed(2)} of the load time after the load (upper of 2 runs)`);
  } finally {
    await browser.close();
    await relay.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchLinks();
