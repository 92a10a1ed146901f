// A refetch storm on the dashboard (issue 39): a compaction drops n files, after which the
// agent reads every one of them again (the audit's "refetch": each a confirmed loss, contract
// §8.4). The engine and the relay were made linear for it (test/hostile/refetchStormRelay.test.ts);
// this measures the browser's path: the file dropped → the analysis Worker (the engine, the
// compaction record updated at each refetch) → the compactions view drawn with the refetched
// rows, for the relay's storm as a wire file (one refetch a turn) and a Claude Code transcript
// (the adapter's own audit; the n files read again in one call).
// At n, 2n and 4n it prints, in headless Chromium against the built app served by the relay:
//   - worker: the drop → the load's end (load-status `done`), the Worker's analysis;
//   - view: the load's end → the compaction panel drawn with its rows (the agent layout opens
//     the panel of the compaction with the latest confirmed loss by itself);
//   - open: a click on the strip's mark → the panel drawn again (closed first, then chosen);
//   - rows: the item rows in the DOM (the panel lists 200 a kind and counts the rest);
// and the growth exponent k of each (t ∝ n^k; linear is 1), from n to 4n. Times are wall
// time on a shared machine: quote the exponents and the load average printed with them.
// Run alone: node --import tsx bench/refetchBrowser.ts   (or npm run bench -- refetch-browser;
// BENCH_REFETCH_N=2500 the smallest n, BENCH_NO_BUILD=1 to keep dist/ as built)
import { chromium, type Browser } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dropFile } from '../e2e/helpers/app.ts';
import { ROOT, startRelay, type RelayHandle } from '../e2e/helpers/relay.ts';
import { ccAssistant, ccCompactBoundary, ccUser } from '../test/hostile/attacks/transcripts.ts';
import { refetchStormLines } from '../test/hostile/attacks/scaling.ts';

const OUT = path.join(ROOT, 'bench', 'out');
const N = Number(process.env.BENCH_REFETCH_N ?? 2500);
/** rounds at each size; the median is printed */
const ROUNDS = 3;

/** The storm's shapes, each written once per n into bench/out. */
export interface StormShape {
  name: string;
  write: (n: number) => string;
}

/** written once: a file of these lines at `name` in bench/out */
function cached(name: string, lines: () => string[]): string {
  const file = path.join(OUT, name);
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(OUT, { recursive: true });
  fs.writeFileSync(`${file}.tmp`, lines().join('\n') + '\n');
  fs.renameSync(`${file}.tmp`, file);
  return file;
}

const read = (i: number, id: string): Record<string, unknown> => ({ type: 'tool_use', id, name: 'Read', input: { file_path: `/repo/src/f${i}.ts` } });

/**
 * Claude Code: one call reads n files, the summary names none of them (every one lost), a
 * call, then the n files read again, in one call (`perTurn` false) or one a turn.
 */
function claudeCodeStorm(n: number, perTurn: boolean): string[] {
  const lines = [
    ccUser('u0', null, 'read every file'),
    ccAssistant(
      'a0',
      'u0',
      Array.from({ length: n }, (_, i) => read(i, `t${i}`)),
    ),
  ];
  lines.push(ccCompactBoundary('c1', 'a0'), ccUser('s1', 'c1', 'summary: nothing of the files', { isCompactSummary: true }));
  // the compaction takes effect at its first call; the reads come after it, each a refetch
  lines.push(ccAssistant('go', 's1', [{ type: 'text', text: 'Continuing.' }]));
  let parent = 'go';
  if (perTurn) {
    for (let i = 0; i < n; i++) {
      lines.push(ccAssistant(`r${i}`, parent, [read(i, `again${i}`)]));
      parent = `r${i}`;
    }
  } else {
    lines.push(
      ccAssistant(
        'again',
        parent,
        Array.from({ length: n }, (_, i) => read(i, `again${i}`)),
      ),
    );
    parent = 'again';
  }
  // a last call after the reads: without it check --json counted the last read as no refetch
  lines.push(ccAssistant('end', parent, [{ type: 'text', text: 'Done.' }]));
  return lines;
}

export const STORM_SHAPES: readonly StormShape[] = [
  // the relay's storm (test/hostile/refetchStormRelay.test.ts): n + 2 snapshots of one span each
  { name: 'wire, one refetch a turn', write: (n) => cached(`refetch-browser-wire-${n}.jsonl`, () => refetchStormLines(n, true)) },
  { name: 'Claude Code, all n read again in one call', write: (n) => cached(`refetch-browser-cc-call-${n}.jsonl`, () => claudeCodeStorm(n, false)) },
  // every call stays in the context, so turn k holds k spans: n²/2 spans in all, whatever the
  // refetches cost (check --json costs the same); only with BENCH_REFETCH_SHAPES=all
  {
    name: 'Claude Code, one read a turn (the context grows a span a turn)',
    write: (n) => cached(`refetch-browser-cc-turn-${n}.jsonl`, () => claudeCodeStorm(n, true)),
  },
];

interface Run {
  workerMs: number;
  viewMs: number;
  openMs: number;
  rows: number;
  turns: number;
}

/** One drop of `file` on a fresh page: the Worker's time, the view's, a re-open's, and the rows drawn. */
async function runOnce(browser: Browser, relay: RelayHandle, file: string, n: number): Promise<Run> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  try {
    // tsx keeps function names with a `__name` helper the page does not have: the functions handed to evaluate() need it
    await page.addInitScript('globalThis.__name = (f) => f;');
    await page.goto(`${relay.url}/`);
    await page.locator('.topbar').waitFor();
    // the page's own clock: when load-status says done, and when the view has the final records
    // (the strip's mark counts all n confirmed losses, and the panel has its rows)
    await page.evaluate((n) => {
      const w = window as unknown as { __doneAt?: number; __viewAt?: number };
      const seen = (): void => {
        const now = performance.now();
        if (w.__doneAt === undefined && document.querySelector('[data-testid="load-status"][data-state="done"]') !== null) w.__doneAt = now;
        if (
          w.__doneAt !== undefined &&
          w.__viewAt === undefined &&
          document.querySelector(`[data-testid="compaction"][data-confirmed="${n}"]`) !== null &&
          document.querySelector('[data-testid="compaction-panel"] [data-testid="compaction-item"]') !== null
        )
          w.__viewAt = now;
        if (w.__viewAt !== undefined) observer.disconnect();
      };
      const observer = new MutationObserver(seen);
      observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-state', 'data-confirmed'] });
    }, n);
    await dropFile(page, file);
    await page.waitForFunction(() => (window as unknown as { __viewAt?: number }).__viewAt !== undefined, undefined, { timeout: 600_000, polling: 100 });
    const t = await page.evaluate(() => {
      const w = window as unknown as { __dropAt: number; __doneAt: number; __viewAt: number };
      return { workerMs: w.__doneAt - w.__dropAt, viewMs: w.__viewAt - w.__doneAt };
    });
    const turns = Number(await page.getByTestId('load-status').getAttribute('data-turns'));
    // a re-open: the panel the layout opened is replaced by the one chosen on the strip
    await page.locator('[data-testid="compactions-strip"] [data-testid="compaction"]').first().waitFor({ timeout: 60_000 });
    const openMs = await page.evaluate(async () => {
      const mark = document.querySelector<SVGGElement>('[data-testid="compactions-strip"] [data-testid="compaction"]')!;
      const frame = (): Promise<void> => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      const t0 = performance.now();
      mark.dispatchEvent(new MouseEvent('click', { bubbles: true }));
      for (let guard = 0; guard < 10_000; guard++) {
        if (document.querySelector('[data-testid="compaction-panel"][data-chosen="true"] [data-testid="compaction-item"]') !== null) break;
        await frame();
      }
      await frame();
      return performance.now() - t0;
    });
    const rows = await page.locator('[data-testid="compaction-panel"] [data-testid="compaction-item"]').count();
    return { ...t, openMs, rows, turns };
  } finally {
    await page.close();
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const exponent = (a: number, b: number, ratio: number): string => (a > 0 && b > 0 ? (Math.log(b / a) / Math.log(ratio)).toFixed(2) : '—');

export async function benchRefetchBrowser(): Promise<void> {
  const chromePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!fs.existsSync(chromePath)) {
    console.log(`refetch-browser bench skipped: no Chromium at ${chromePath} (set CHROMIUM_PATH)`);
    return;
  }
  if (process.env.BENCH_NO_BUILD === undefined) {
    const b = spawnSync('npx', ['vite', 'build'], { cwd: ROOT, encoding: 'utf8' });
    if (b.status !== 0) throw new Error(`vite build failed:\n${b.stderr}`);
  }
  const sizes = [N, 2 * N, 4 * N];
  const shapes = process.env.BENCH_REFETCH_SHAPES === 'all' ? STORM_SHAPES : STORM_SHAPES.slice(0, 2);
  const relay = await startRelay();
  const browser = await chromium.launch({ executablePath: chromePath });
  try {
    console.log('\nrefetch-browser: a refetch storm dropped on the dashboard (a compaction loses n files, the agent reads every one again)');
    console.log(
      `  median of ${ROUNDS} drops; worker: drop → load done; view: done → the strip and panel with every refetch; open: a click on the mark → the panel`,
    );
    for (const shape of shapes) {
      console.log(`  ${shape.name}:`);
      const rows: Run[] = [];
      for (const n of sizes) {
        const file = shape.write(n);
        const runs: Run[] = [];
        for (let r = 0; r < ROUNDS; r++) runs.push(await runOnce(browser, relay, file, n));
        const run: Run = {
          workerMs: median(runs.map((x) => x.workerMs)),
          viewMs: median(runs.map((x) => x.viewMs)),
          openMs: median(runs.map((x) => x.openMs)),
          rows: runs[0]!.rows,
          turns: runs[0]!.turns,
        };
        rows.push(run);
        console.log(
          `    n=${String(n).padStart(6)} (${(fs.statSync(file).size / 1e6).toFixed(1)} MB, ${run.turns} turns): worker ${run.workerMs.toFixed(0)} ms, view ${run.viewMs.toFixed(0)} ms, open ${run.openMs.toFixed(0)} ms, ${run.rows} rows drawn; load average ${os.loadavg()[0]!.toFixed(2)}`,
        );
      }
      const a = rows[0]!;
      const c = rows[2]!;
      console.log(
        `    growth exponent n → 4n (linear is 1, flat is 0): worker ${exponent(a.workerMs, c.workerMs, 4)}, view ${exponent(a.viewMs, c.viewMs, 4)}, open ${exponent(a.openMs, c.openMs, 4)}, rows ${exponent(a.rows, c.rows, 4)}`,
      );
    }
  } finally {
    await browser.close();
    await relay.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchRefetchBrowser();
