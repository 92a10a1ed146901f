// Two builds of the dashboard, A and B, timed on the browser bench's drop in alternated runs
// (docs/performance.md: a ratio holds only pair by pair on this noisy machine): each round
// times the floor (a bare Worker's read and JSON.parse) and one drop on each build, on a page
// that has finished opening, in turn A B, then B A. Prints every run (drop → all charts, →
// the analysis' end, → the first chart with data), the medians, and B / A pair by pair.
//
//   npx vite build --outDir /tmp/a   (the commit before)   npx vite build --outDir /tmp/b
//   node --import tsx bench/dropAb.ts /tmp/a /tmp/b [--rounds 5]
import { chromium, type Page } from '@playwright/test';
import os from 'node:os';
import { loadAverage } from './cpu.ts';
import { parseArgs } from 'node:util';
import { startRelay } from '../e2e/helpers/relay.ts';
import { appRun, floorRun, median, writeTranscript, type LoadRun } from './browser.ts';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { rounds: { type: 'string', default: '5' } } });
const [distA, distB] = positionals;
if (distA === undefined || distB === undefined) throw new Error('usage: bench/dropAb.ts DIST_A DIST_B [--rounds N]');
const rounds = Number(values.rounds);
const file = writeTranscript();
const relays = { A: await startRelay({ dist: distA }), B: await startRelay({ dist: distB }) };
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium' });
const runs: Record<'A' | 'B', LoadRun[]> = { A: [], B: [] };
const floors: number[] = [];
const fresh = (): Promise<Page> => browser.newPage({ viewport: { width: 1440, height: 900 } });
console.log(`drop A/B: ${rounds} rounds, ${os.availableParallelism()} cores, load average ${loadAverage()} before`);
try {
  for (let i = 0; i < rounds; i++) {
    const floorPage = await fresh();
    await floorPage.goto(`${relays.A.url}/`);
    floors.push(await floorRun(floorPage, file));
    await floorPage.close();
    for (const which of i % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const)) {
      const page = await fresh();
      const r = await appRun(page, relays[which], file, false, 'settled');
      await page.close();
      runs[which].push(r);
      console.log(
        `  round ${i + 1} ${which}: ${r.seconds.toFixed(2)} s, done ${r.doneMs.toFixed(0)} ms, first chart ${r.firstChartMs.toFixed(0)} ms (floor ${floors[i]!.toFixed(2)} s)`,
      );
    }
  }
} finally {
  await browser.close();
  await relays.A.stop();
  await relays.B.stop();
}
const floor = median(floors);
for (const which of ['A', 'B'] as const) {
  const rs = runs[which];
  const s = median(rs.map((r) => r.seconds));
  console.log(
    `${which}: drop → all charts ${s.toFixed(2)} s (×${(s / floor).toFixed(2)} the floor's median ${floor.toFixed(2)} s), done ${median(rs.map((r) => r.doneMs)).toFixed(0)} ms, first chart ${median(rs.map((r) => r.firstChartMs)).toFixed(0)} ms`,
  );
}
const pairs = runs.A.map((a, i) => runs.B[i]!.seconds / a.seconds);
console.log(`B / A pair by pair: ${pairs.map((x) => x.toFixed(2)).join(' ')}; median ${median(pairs).toFixed(2)}`);
console.log(`load average after: ${loadAverage()}`);
process.exit(0);
