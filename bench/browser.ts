// Browser figures, measured with Playwright in headless Chromium against the built app
// served by the real relay:
//   1. load: a ~240 MB transcript dropped on the dashboard, from the drop to every chart
//      drawn with the whole file (seconds, MB/s, peak JS heap of page and Worker), against
//      the floor: the same File read (stream, split on newline bytes, TextDecoder) and
//      JSON.parsed line by line in a bare Worker, in the same run.
//   2. live: while the relay streams 200 snapshots/s of 200 spans to the followed session,
//      the main thread's long tasks over 50 ms (goal: none) and frame times, counted over a
//      10 s window after a warm-up (BENCH_LIVE_WARMUP s, default 3: the first charts, the
//      lazy chunks and the JIT are a page opening, not a page following a stream). Each long
//      animation frame's scripts are attributed (what invoked them, where from), and
//      BENCH_PROFILE=1 also records a CPU profile of the window and prints the functions
//      with the most self time (build with `npx vite build --minify false` for readable
//      names; the profile is saved in bench/out/live.cpuprofile for DevTools), and one of the
//      analysis Worker (bench/out/live-worker.cpuprofile). BENCH_TRACE=1 records a Chromium
//      trace of the window and prints each thread's CPU (main thread, Worker, compositor,
//      raster threads; bench/out/live.trace.json for chrome://tracing or Perfetto), and
//      BENCH_ACTIONS=1 counts the actions dispatched to Recharts' chart stores by type.
//   3. overview (bench/overview.ts): 500 idle sessions and 20 live ones streaming, the home
//      page's sessions overview updating: the same long-task and frame figures.
// Run alone: node --import tsx bench/browser.ts   (or npm run bench -- browser;
// BENCH_ONLY=live or overview for one part, BENCH_NO_BUILD=1 to keep dist/ as built,
// BENCH_LIVE_WIRE=whole to stream every text again instead of the clients' compact wire)
import { chromium, type Browser, type CDPSession, type Page } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nodeSha256 } from '../src/node/platform.ts';
import { compactTranscript } from '../src/core/compactTranscript.ts';
import { simulateSession } from '../src/sim/scenario.ts';
import { dropFile } from '../e2e/helpers/app.ts';
import { writeSimulated } from './transcripts.ts';
import { ROOT, startRelay, type RelayHandle } from '../e2e/helpers/relay.ts';
import { openIngest } from './ingestSocket.ts';
import {
  COUNT_CHART_ACTIONS,
  MEASURE_MAIN_THREAD,
  mainThreadMetrics,
  selfTimes,
  threadTimes,
  workerSession,
  type Loaf,
  type ProfileNode,
} from './mainThread.ts';

const OUT = path.join(ROOT, 'bench', 'out');
const LOAD_TURNS = Number(process.env.BENCH_TURNS ?? 2000);
/** floor-and-app rounds of the load bench (benchLoad) */
const LOAD_ROUNDS = 5;
const LIVE_RATE = 200;
const LIVE_SECONDS = Number(process.env.BENCH_LIVE_SECONDS ?? 10);
const LIVE_WARMUP = Number(process.env.BENCH_LIVE_WARMUP ?? 3);

export async function benchBrowser(): Promise<void> {
  const chromePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!fs.existsSync(chromePath)) {
    console.log(`browser bench skipped: no Chromium at ${chromePath} (set CHROMIUM_PATH, or apt-get install chromium)`);
    return;
  }
  fs.mkdirSync(OUT, { recursive: true });
  if (process.env.BENCH_NO_BUILD === undefined) {
    const b = spawnSync('npx', ['vite', 'build'], { cwd: ROOT, encoding: 'utf8' });
    if (b.status !== 0) throw new Error(`vite build failed:\n${b.stderr}`);
  }
  const file = writeTranscript();
  const relay = await startRelay();
  const browser = await chromium.launch({ executablePath: chromePath, args: ['--enable-precise-memory-info'] });
  try {
    console.log('\nbrowser (headless Chromium, built app served by the relay)');
    const only = process.env.BENCH_ONLY;
    if (only === undefined || only === 'load') await benchLoad(browser, relay, file);
    if (only === undefined || only === 'live') await benchLive(browser, relay);
    if (only === undefined || only === 'overview') await (await import('./overview.ts')).benchOverview(browser);
  } finally {
    await browser.close();
    await relay.stop();
  }
}

// ---------------------------------------------------------------- 1. load

export function writeTranscript(): string {
  return writeSimulated(path.join(OUT, `browser-${LOAD_TURNS}x200.jsonl`), {
    seed: 240,
    sessionId: 'bench-load',
    turns: LOAD_TURNS,
    spans: 200,
    textChars: 440,
    faults: [],
  });
}

export interface LoadRun {
  seconds: number;
  worker: string;
  /** the parsing Workers the load used (docs/dashboard.md "Parsing Workers"), from the load-status element */
  parseWorkers: string;
  /** drop → the first chart that drew data, ms (NaN when none was seen) */
  firstChartMs: number;
  /** drop → the analysis Worker's end (its `done`), ms */
  doneMs: number;
  pageHeapMB: number;
  workerHeapMB: number;
}

/** A bare Worker: read the File, split lines on bytes, decode, JSON.parse. Nothing else. */
const FLOOR_WORKER = `
onmessage = async (ev) => {
  const file = ev.data;
  const t0 = performance.now();
  const dec = new TextDecoder('utf-8', { fatal: true });
  const reader = file.stream().getReader();
  let carry = null, n = 0;
  const line = (b, s, e) => { if (e > s) { JSON.parse(dec.decode(b.subarray(s, e))); n++; } };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    let s = 0;
    for (;;) {
      const nl = value.indexOf(10, s);
      if (nl < 0) break;
      if (carry) { const j = new Uint8Array(carry.length + nl - s); j.set(carry); j.set(value.subarray(s, nl), carry.length); carry = null; line(j, 0, j.length); }
      else line(value, s, nl);
      s = nl + 1;
    }
    if (s < value.length) { const rest = value.subarray(s); if (carry) { const j = new Uint8Array(carry.length + rest.length); j.set(carry); j.set(rest, carry.length); carry = j; } else carry = rest.slice(); }
  }
  if (carry) line(carry, 0, carry.length);
  postMessage({ ms: performance.now() - t0, n });
};`;

export async function floorRun(page: Page, file: string): Promise<number> {
  await page.evaluate(() => {
    if (document.getElementById('bench-file') !== null) return;
    const input = document.createElement('input');
    input.type = 'file';
    input.id = 'bench-file';
    input.style.display = 'none';
    document.body.appendChild(input);
  });
  await page.locator('#bench-file').setInputFiles(file);
  const r = await page.evaluate(async (src) => {
    const w = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
    const f = (document.getElementById('bench-file') as HTMLInputElement).files![0]!;
    const res = await new Promise<{ ms: number; n: number }>((resolve) => {
      w.onmessage = (e) => resolve(e.data as { ms: number; n: number });
      w.postMessage(f);
    });
    w.terminate();
    return res;
  }, FLOOR_WORKER);
  return r.ms / 1000;
}

/** Samples the page's and the analysis Worker's JS heap (CDP) until stopped; returns the peaks. */
async function heapSampler(page: Page): Promise<() => Promise<{ page: number; worker: number }>> {
  const cdp = await page.context().newCDPSession(page);
  let peakPage = 0;
  let peakWorker = 0;
  let stop = false;
  let worker: { send: (m: string) => Promise<{ usedSize: number }> } | null = null;
  const loop = (async () => {
    while (!stop && !page.isClosed()) {
      const p = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
      peakPage = Math.max(peakPage, p.usedSize);
      worker ??= await attachWorker(cdp);
      if (worker !== null) peakWorker = Math.max(peakWorker, (await worker.send('Runtime.getHeapUsage')).usedSize);
      await new Promise((r) => setTimeout(r, 100));
    }
  })().catch((e: unknown) => {
    if (!page.isClosed()) throw e;
  });
  return async () => {
    stop = true;
    await loop;
    await cdp.detach().catch(() => undefined);
    return { page: peakPage / 1e6, worker: peakWorker / 1e6 };
  };
}

async function attachWorker(cdp: CDPSession): Promise<{ send: (m: string) => Promise<{ usedSize: number }> } | null> {
  const { targetInfos } = (await cdp.send('Target.getTargets')) as { targetInfos: { type: string; targetId: string; url: string }[] };
  const t = targetInfos.find((x) => x.type === 'worker' && /worker/.test(x.url));
  if (t === undefined) return null;
  const { sessionId } = (await cdp.send('Target.attachToTarget', { targetId: t.targetId, flatten: false })) as { sessionId: string };
  let id = 0;
  const pending = new Map<number, (v: { usedSize: number }) => void>();
  cdp.on('Target.receivedMessageFromTarget', (e: { sessionId: string; message: string }) => {
    if (e.sessionId !== sessionId) return;
    const m = JSON.parse(e.message) as { id?: number; result?: { usedSize: number } };
    if (m.id !== undefined && pending.has(m.id)) {
      pending.get(m.id)!(m.result ?? { usedSize: 0 });
      pending.delete(m.id);
    }
  });
  return {
    send: (method) =>
      new Promise((resolve) => {
        const mid = ++id;
        pending.set(mid, resolve);
        void cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: mid, method }) });
      }),
  };
}

/**
 * One load by drop. `sampleHeap`: poll the page's and the analysis Worker's heap through CDP
 * meanwhile (for the peak heap figure). Not in the timed runs: the floor's runs have no
 * DevTools session, and this one attaches to the Worker and interrupts it every 100 ms.
 */
export async function appRun(page: Page, relay: RelayHandle, file: string, sampleHeap: boolean, opened: Opened = 'settled'): Promise<LoadRun> {
  await page.goto(`${relay.url}/${process.env.BENCH_QUERY ?? ''}`);
  if (opened === 'settled') await settle(page);
  const stopHeap = sampleHeap ? await heapSampler(page) : async () => ({ page: Number.NaN, worker: Number.NaN });
  // start the clock in the page, then drop; the page itself notices when every chart shows the whole file
  await page.evaluate(() => {
    (window as unknown as { __t0: number }).__t0 = performance.now();
  });
  await dropFile(page, file);
  const seconds = (await page.evaluate(waitAllChartsScript(LOAD_TURNS))) as number;
  const heap = await stopHeap();
  // the Worker's own account of its time (kept on the load-status element for tests and this bench)
  const marks = (await page.evaluate(`(() => {
    const m = (n) => performance.getEntriesByName(n).pop()?.startTime ?? NaN;
    const t0 = window.__dropAt ?? window.__t0;
    return [m('context-health:open') - t0, m('context-health:done') - t0];
  })()`)) as [number, number];
  const timing = (await page.getByTestId('load-status').getAttribute('data-timing')) ?? '';
  const firstChart = (await page.evaluate('window.__firstChartAt')) as number | undefined;
  const worker = `drop → open ${marks[0].toFixed(0)} ms, → first chart ${firstChart?.toFixed(0) ?? '?'} ms, → done ${marks[1].toFixed(0)} ms, → charts ${(seconds * 1000).toFixed(0)} ms; ${timing}`;
  const parseWorkers = /(\d+) parsing Workers/.exec(timing)?.[1] ?? '?';
  return { seconds, worker, parseWorkers, firstChartMs: firstChart ?? Number.NaN, doneMs: marks[1], pageHeapMB: heap.page, workerHeapMB: heap.worker };
}

/**
 * When the file is dropped: on a page that has finished opening (`settled`, the figure the
 * goal is judged by: the floor's clock, too, starts in a Worker of a page that is open), or
 * as soon as the page's load event has fired (`just-loaded`: its lazy chunks, its analysis
 * Worker's start and the relay's first answers then share the load's cores; printed beside).
 */
export type Opened = 'settled' | 'just-loaded';

/**
 * Until the page has finished opening: no request for 500 ms (bounded at 5 s: a poll may keep
 * the network busy), then the main thread idle, two idle callbacks in a row with ≥ 40 ms to
 * spare (bounded at 5 s), and a further 300 ms for the Workers it started (their scripts
 * compile off the main thread, where idle callbacks do not see them).
 */
export async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle', { timeout: 5000 }).catch(() => undefined);
  await page.evaluate(`new Promise((resolve) => {
    const t0 = performance.now();
    let calm = 0;
    const tick = (d) => {
      calm = d.timeRemaining() >= 40 ? calm + 1 : 0;
      if (calm >= 2 || performance.now() - t0 > 5000) setTimeout(resolve, 300);
      else requestIdleCallback(tick, { timeout: 200 });
    };
    requestIdleCallback(tick, { timeout: 200 });
  })`);
}

// Page-side scripts are strings: tsx would wrap inner functions in a helper the page lacks.
export function waitAllChartsScript(turns: number): string {
  return `new Promise((resolve) => {
    const t0 = window.__dropAt ?? window.__t0;
    const check = () => {
      const charts = document.querySelector('[data-testid="charts"]');
      const ready = ['chart-spread', 'chart-canary', 'chart-drift', 'chart-orphans'].every((id) => {
        const el = document.querySelector('[data-testid="' + id + '"]');
        return el !== null && el.getAttribute('data-state') !== 'loading' && Number(el.getAttribute('data-points')) > 0;
      });
      // when a chart first drew data (the progressive first paint), for the load bench
      if (window.__firstChartAt === undefined && document.querySelector('[data-testid^="chart-"][data-points]:not([data-points="0"])') !== null) window.__firstChartAt = performance.now() - t0;
      const done = document.querySelector('[data-testid="load-status"]')?.getAttribute('data-state') === 'done';
      if (done && ready && charts?.getAttribute('data-view-turns') === '${turns}') requestAnimationFrame(() => resolve((performance.now() - t0) / 1000));
      else requestAnimationFrame(check);
    };
    check();
  })`;
}

async function benchLoad(browser: Browser, relay: RelayHandle, file: string): Promise<void> {
  const mb = fs.statSync(file).size / 1e6;
  const load = os.loadavg();
  const floors: number[] = [];
  const runs: LoadRun[] = [];
  const early: LoadRun[] = [];
  // five rounds, each a floor run and then the app's two: a round's ratio pairs runs made
  // seconds apart, so a drift of the machine's speed (the floor alone took 0.28-0.51 s in one
  // morning) falls on both sides of it; the median of those ratios is the figure quoted
  for (let i = 0; i < LOAD_ROUNDS; i++) {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(`${relay.url}/`);
    floors.push(await floorRun(page, file));
    await page.close();
    for (const opened of ['settled', 'just-loaded'] as const) {
      const app = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      (opened === 'settled' ? runs : early).push(await appRun(app, relay, file, false, opened));
      await app.close();
    }
  }
  // the heap figures from a run of their own (its time is not one of the runs above)
  const heapPage = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const heapRun = await appRun(heapPage, relay, file, true);
  await heapPage.close();
  const floor = median(floors);
  const app = median(runs.map((r) => r.seconds));
  const paired = (rs: LoadRun[]): number[] => rs.map((r, i) => r.seconds / floors[i]!);
  console.log(
    `  load by drop, ${mb.toFixed(0)} MB, ${LOAD_TURNS} turns × 200 spans (median of ${runs.length}; runs ${runs.map((r) => r.seconds.toFixed(2)).join(' / ')} s)`,
  );
  console.log(`    bare Worker read + JSON.parse (floor)  ${floor.toFixed(2)} s   ${(mb / floor).toFixed(0)} MB/s`);
  console.log(
    `    dashboard, drop → all charts drawn     ${app.toFixed(2)} s   ${(mb / app).toFixed(0)} MB/s   ×${(app / floor).toFixed(2)} the floor's median (dropped on a page that has finished opening)`,
  );
  const pairs = paired(runs);
  console.log(`    … round by round, app / floor: ${pairs.map((x) => x.toFixed(2)).join(' / ')}; median ×${median(pairs).toFixed(2)} (goal ≤ ×1.3)`);
  const appEarly = median(early.map((r) => r.seconds));
  console.log(
    `    … dropped as the page's load event fires ${appEarly.toFixed(2)} s   ×${median(paired(early)).toFixed(2)} the floor, round by round (runs ${early.map((r) => r.seconds.toFixed(2)).join(' / ')} s; the page's own start shares the cores)`,
  );
  const firstMs = (rs: LoadRun[]): string => median(rs.map((r) => r.firstChartMs)).toFixed(0);
  console.log(`    first chart with data, median: ${firstMs(runs)} ms (settled), ${firstMs(early)} ms (as the load event fires)`);
  // the pool's size is the page's choice (app/parseSetting.ts: the cores, or ?parse=N through BENCH_QUERY)
  console.log(
    `    parsing Workers ${[...new Set(runs.map((r) => r.parseWorkers))].join('/')} (0: the analysis Worker parses alone); ${os.availableParallelism()} cores, load average ${load.map((x) => x.toFixed(2)).join(' ')} before`,
  );
  console.log(`    in the analysis Worker (last run): ${runs[runs.length - 1]!.worker}`);
  console.log(
    `    peak JS heap (a load of its own, sampled through CDP, not timed): page ${heapRun.pageHeapMB.toFixed(0)} MB, analysis Worker ${heapRun.workerHeapMB.toFixed(0)} MB (typed-array stores are outside the JS heap)`,
  );
}

// ---------------------------------------------------------------- 2. live

async function benchLive(browser: Browser, relay: RelayHandle): Promise<void> {
  const warm = LIVE_RATE * LIVE_WARMUP;
  const total = LIVE_RATE * (LIVE_WARMUP + LIVE_SECONDS);
  const load = os.loadavg();
  const sessionId = `bench-live-${Date.now()}`;
  const whole: string[] = [];
  for (const m of simulateSession({ seed: 200, sessionId, turns: total, spans: 200, textChars: 400, header: true }, nodeSha256)) whole.push(JSON.stringify(m));
  // sent the way the clients send by default (contract §7 compact wire: unchanged texts left
  // out); BENCH_LIVE_WIRE=whole sends every text again, as version 1 did
  const wire = process.env.BENCH_LIVE_WIRE === 'whole' ? 'whole' : 'compact';
  const lines = wire === 'whole' ? whole : compactTranscript(whole, nodeSha256).lines;
  const bytes = lines.slice(1).reduce((n, l) => n + Buffer.byteLength(l), 0) / (lines.length - 1);
  const { ws, answers } = await openIngest(relay.url);
  // header and a first snapshot, so the session exists for the dashboard to follow
  ws.send(lines[0]!);
  ws.send(lines[1]!);
  while (answers.acked < 2) await new Promise((r) => setTimeout(r, 10));

  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const countActions = process.env.BENCH_ACTIONS !== undefined;
  if (countActions) await page.addInitScript(COUNT_CHART_ACTIONS);
  await page.goto(`${relay.url}/${process.env.BENCH_QUERY ?? ''}#live=${encodeURIComponent(sessionId)}`);
  await page.locator('[data-testid="connection-status"][data-state="live"]').waitFor({ timeout: 30_000 });
  const metrics = await page.context().newCDPSession(page);
  await metrics.send('Performance.enable');
  const cdp = process.env.BENCH_PROFILE !== undefined ? metrics : null;
  // the analysis Worker's own profile too: on 2 cores its CPU is what the main thread waits for
  const workerCdp = cdp !== null ? await workerSession(metrics) : null;
  const tracing = process.env.BENCH_TRACE !== undefined;
  let before: Record<string, number> = {};

  // 200 snapshots a second, in slices every ~5 ms; the window opens after the warm-up
  const t0 = performance.now();
  let sent = 2;
  let measuring = false;
  let tWindow = t0;
  while (sent < lines.length) {
    const due = Math.min(lines.length, 2 + Math.floor(((performance.now() - t0) / 1000) * LIVE_RATE));
    while (sent < due) ws.send(lines[sent++]!);
    if (!measuring && sent >= warm) {
      measuring = true;
      tWindow = performance.now();
      await page.evaluate(MEASURE_MAIN_THREAD);
      if (countActions) await page.evaluate('window.__actions = {}');
      before = await mainThreadMetrics(metrics);
      if (cdp !== null) {
        await cdp.send('Profiler.enable');
        await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
        await cdp.send('Profiler.start');
      }
      if (workerCdp !== null) {
        await workerCdp.send('Profiler.enable');
        await workerCdp.send('Profiler.setSamplingInterval', { interval: 500 });
        await workerCdp.send('Profiler.start');
      }
      if (tracing) await browser.startTracing(page, { categories: ['toplevel', '__metadata'] });
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  const windowSeconds = (performance.now() - tWindow) / 1000;
  const after = await mainThreadMetrics(metrics);
  const d = (k: string): number => ((after[k] ?? 0) - (before[k] ?? 0)) * 1000;
  const m = await page.evaluate(() => {
    const w = window as unknown as { __long: number[]; __frames: number[]; __loaf: Loaf[]; __stop: boolean };
    w.__stop = true;
    return { long: w.__long, frames: w.__frames, loaf: w.__loaf };
  });
  const actions = countActions ? ((await page.evaluate('window.__actions')) as Record<string, { n: number; ms: number }>) : null;
  const profile =
    cdp !== null ? ((await cdp.send('Profiler.stop')) as { profile: { nodes: ProfileNode[]; samples?: number[]; timeDeltas?: number[] } }).profile : null;
  const workerProfile =
    workerCdp !== null
      ? (await workerCdp.send<{ profile: { nodes: ProfileNode[]; samples?: number[]; timeDeltas?: number[] } }>('Profiler.stop')).profile
      : null;
  const trace = tracing ? (JSON.parse((await browser.stopTracing()).toString('utf8')) as Parameters<typeof threadTimes>[0]) : null;
  const sendSeconds = (performance.now() - t0) / 1000;
  while (answers.acked + answers.rejected < lines.length && performance.now() - t0 < 120_000) await new Promise((r) => setTimeout(r, 20));
  const ackSeconds = (performance.now() - t0) / 1000;
  // the page may fall behind; say how far it got rather than throw away the window's figures
  const shown = await page
    .locator(`[data-testid="session-turns"][data-turns="${total}"]`)
    .waitFor({ timeout: 60_000 })
    .then(() => null)
    .catch(async () => page.getByTestId('session-turns').getAttribute('data-turns'));
  const shownSeconds = (performance.now() - t0) / 1000;
  if (process.env.BENCH_SHOT !== undefined) await page.screenshot({ path: path.join(OUT, 'live.png') });
  ws.close();
  await page.close();
  const frames = m.frames.slice(1).sort((a, b) => a - b);
  const q = (p: number): number => frames[Math.min(frames.length - 1, Math.floor(p * frames.length))] ?? 0;
  console.log(
    `  live: ${total} snapshots of 200 spans at ${LIVE_RATE}/s, ${wire} wire ${(bytes / 1000).toFixed(1)} KB a snapshot (sent in ${sendSeconds.toFixed(1)} s, acked in ${ackSeconds.toFixed(1)} s${answers.rejected ? `, ${answers.rejected} rejected` : ''}), dashboard following; ${os.availableParallelism()} cores, load average ${load[0]!.toFixed(2)} ${load[1]!.toFixed(2)} ${load[2]!.toFixed(2)} before`,
  );
  console.log(
    shown === null
      ? `    all ${total} turns on screen ${shownSeconds.toFixed(1)} s after the first was sent`
      : `    NOT all turns on screen: ${shown ?? 'none'} of ${total} ${shownSeconds.toFixed(1)} s after the first was sent`,
  );
  console.log(`    window: ${windowSeconds.toFixed(1)} s after a ${LIVE_WARMUP} s warm-up`);
  console.log(
    `    main-thread long tasks > 50 ms: ${m.long.length}${m.long.length ? ` (max ${Math.max(...m.long).toFixed(0)} ms, total ${m.long.reduce((a, b) => a + b, 0).toFixed(0)} ms)` : ''} (goal: none)`,
  );
  console.log(
    `    frame times: p50 ${q(0.5).toFixed(1)} ms, p95 ${q(0.95).toFixed(1)} ms, p99 ${q(0.99).toFixed(1)} ms, max ${(frames[frames.length - 1] ?? 0).toFixed(1)} ms over ${frames.length} frames (goal: p99 < 33 ms); ${frames.filter((f) => f > 20).length} frames missed a vsync (> 20 ms), p99 < 33 ms allows ${frames.length - 1 - Math.floor(0.99 * frames.length)}`,
  );
  // tasks' wall time against the main thread's CPU time: the gap is time the thread waited for a core
  console.log(
    `    main thread in the window: tasks ${d('TaskDuration').toFixed(0)} ms (script ${d('ScriptDuration').toFixed(0)}, style ${d('RecalcStyleDuration').toFixed(0)}, layout ${d('LayoutDuration').toFixed(0)}), thread CPU ${d('ThreadTime').toFixed(0)} ms; renderer process CPU ${d('ProcessTime').toFixed(0)} ms`,
  );
  // what the long frames ran, summed by invoker and source
  const by = new Map<string, { n: number; ms: number }>();
  let renderMs = 0;
  for (const f of m.loaf) {
    renderMs += f.render;
    for (const x of f.scripts) {
      const k = `${x.type} ${x.invoker} ${x.fn ? `${x.fn} ` : ''}(${x.src})`;
      const e = by.get(k) ?? { n: 0, ms: 0 };
      e.n++;
      e.ms += x.duration;
      by.set(k, e);
    }
  }
  if (m.loaf.length > 0) {
    console.log(
      `    long animation frames: ${m.loaf.length}, ${m.loaf.reduce((a, f) => a + f.duration, 0).toFixed(0)} ms, of which style/layout/paint ${renderMs.toFixed(0)} ms; scripts:`,
    );
    for (const [k, v] of [...by.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 8)) console.log(`      ${v.ms.toFixed(0).padStart(6)} ms  ×${v.n}  ${k}`);
  }
  if (actions !== null) {
    console.log('    Recharts store actions in the window (chart, action: count, ms in dispatch):');
    for (const [k, v] of Object.entries(actions)
      .sort((a, b) => b[1].n - a[1].n)
      .slice(0, 30))
      console.log(`      ${String(v.n).padStart(5)}  ${v.ms.toFixed(0).padStart(5)} ms  ${k}`);
  }
  if (profile !== null) {
    fs.writeFileSync(path.join(OUT, 'live.cpuprofile'), JSON.stringify(profile));
    console.log('    CPU profile of the window, self time (bench/out/live.cpuprofile):');
    for (const x of selfTimes(profile, 25)) console.log(`      ${x.ms.toFixed(0).padStart(6)} ms  ${x.name}`);
  }
  if (workerProfile !== null) {
    fs.writeFileSync(path.join(OUT, 'live-worker.cpuprofile'), JSON.stringify(workerProfile));
    console.log('    the analysis Worker over the window, self time (bench/out/live-worker.cpuprofile):');
    for (const x of selfTimes(workerProfile, 25)) console.log(`      ${x.ms.toFixed(0).padStart(6)} ms  ${x.name}`);
  }
  if (trace !== null) {
    fs.writeFileSync(path.join(OUT, 'live.trace.json'), JSON.stringify(trace));
    console.log('    CPU by thread over the window (Chromium trace, top-level tasks; bench/out/live.trace.json):');
    for (const t of threadTimes(trace).slice(0, 12))
      console.log(
        `      ${t.cpuMs.toFixed(0).padStart(6)} ms CPU  ${t.wallMs.toFixed(0).padStart(6)} ms wall  ${String(t.tasks).padStart(6)} tasks  ${t.thread}`,
      );
  }
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  await benchBrowser();
}
