// Issue 11: the sessions overview (the home page when a relay is there) with 500 idle
// sessions and 20 live ones streaming; goal: no main-thread task over 50 ms while it
// updates. A fresh relay gets the 500 (a header and a few snapshots each, one POST to
// /api/ingest), then 20 sessions stream over one /api/ingest WebSocket at LIVE_EACH
// snapshots/s each while headless Chromium shows the overview; over a window opened after a
// warm-up it counts the longtask entries over 50 ms and the frame times (the same measuring
// script as the live part of bench/browser.ts), and the overview frames the page received.
// BENCH_PROFILE=1 also saves a CPU profile of the window (bench/out/overview.cpuprofile).
// Run: BENCH_ONLY=overview npm run bench -- browser
import type { Browser } from '@playwright/test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nodeSha256 } from '../src/node/platform.ts';
import { simulateSession } from '../src/sim/scenario.ts';
import { ROOT, startRelay } from '../e2e/helpers/relay.ts';
import { MEASURE_MAIN_THREAD, mainThreadMetrics, selfTimes, type Loaf, type ProfileNode } from './mainThread.ts';
import { openIngest } from './ingestSocket.ts';

const IDLE = Number(process.env.BENCH_OVERVIEW_IDLE ?? 500);
const LIVE = Number(process.env.BENCH_OVERVIEW_LIVE ?? 20);
const LIVE_EACH = Number(process.env.BENCH_OVERVIEW_RATE ?? 5);
const SECONDS = Number(process.env.BENCH_LIVE_SECONDS ?? 10);
const WARMUP = Number(process.env.BENCH_LIVE_WARMUP ?? 3);
const SPANS = 40;

export async function benchOverview(browser: Browser): Promise<void> {
  const relay = await startRelay();
  try {
    const load = os.loadavg();
    const tag = `ov${Date.now()}`;
    // 500 idle sessions: a header and three snapshots each, in one ingest body
    const idle: string[] = [];
    for (let i = 0; i < IDLE; i++) {
      const sessionId = `${tag}-idle-${String(i).padStart(3, '0')}`;
      for (const m of simulateSession({ seed: 1000 + i, sessionId, turns: 3, spans: SPANS, textChars: 200, header: true }, nodeSha256))
        idle.push(JSON.stringify(m));
    }
    const res = await fetch(`${relay.url}/api/ingest`, { method: 'POST', body: idle.join('\n') });
    if (res.status !== 200) throw new Error(`ingest of the idle sessions answered ${res.status}: ${await res.text()}`);

    // the live ones' lines, made up front so the sender spends its time sending
    const turns = Math.ceil(LIVE_EACH * (WARMUP + SECONDS + 2));
    const live: string[][] = [];
    for (let i = 0; i < LIVE; i++) {
      const sessionId = `${tag}-live-${String(i).padStart(2, '0')}`;
      live.push(
        [...simulateSession({ seed: 2000 + i, sessionId, turns, spans: SPANS, textChars: 200, header: true }, nodeSha256)].map((m) => JSON.stringify(m)),
      );
    }
    const { ws, answers } = await openIngest(relay.url);

    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    let frames = 0;
    let frameBytes = 0;
    page.on('websocket', (s) => {
      if (!s.url().includes('/api/overview/subscribe')) return;
      s.on('framereceived', (f) => {
        frames++;
        frameBytes += typeof f.payload === 'string' ? Buffer.byteLength(f.payload) : f.payload.length;
      });
    });
    await page.goto(`${relay.url}/`);
    await page.getByTestId('overview').waitFor({ timeout: 30_000 });
    const metrics = await page.context().newCDPSession(page);
    await metrics.send('Performance.enable');
    const profiling = process.env.BENCH_PROFILE !== undefined;

    // every live session a header first, then LIVE_EACH snapshots a second each, spread evenly
    for (const l of live) ws.send(l[0]!);
    const t0 = performance.now();
    let sent = 0; // snapshots per session sent so far
    let measuring = false;
    let tWindow = t0;
    let before: Record<string, number> = {};
    let framesBefore = 0;
    let bytesBefore = 0;
    let turnsAtOpen: number[] = [];
    while (sent < turns) {
      const due = Math.min(turns, Math.floor(((performance.now() - t0) / 1000) * LIVE_EACH) + 1);
      while (sent < due) {
        sent++;
        for (const l of live) ws.send(l[sent]!);
      }
      const elapsed = (performance.now() - t0) / 1000;
      if (!measuring && elapsed >= WARMUP) {
        measuring = true;
        tWindow = performance.now();
        await page.evaluate(MEASURE_MAIN_THREAD);
        before = await mainThreadMetrics(metrics);
        framesBefore = frames;
        bytesBefore = frameBytes;
        turnsAtOpen = await liveTurns(page, tag);
        if (profiling) {
          await metrics.send('Profiler.enable');
          await metrics.send('Profiler.setSamplingInterval', { interval: 500 });
          await metrics.send('Profiler.start');
        }
      }
      if (measuring && elapsed >= WARMUP + SECONDS) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const windowSeconds = (performance.now() - tWindow) / 1000;
    const after = await mainThreadMetrics(metrics);
    const d = (k: string): number => ((after[k] ?? 0) - (before[k] ?? 0)) * 1000;
    const m = await page.evaluate(() => {
      const w = window as unknown as { __long: number[]; __frames: number[]; __loaf: Loaf[]; __stop: boolean };
      w.__stop = true;
      return { long: w.__long, frames: w.__frames, loaf: w.__loaf };
    });
    const profile = profiling
      ? ((await metrics.send('Profiler.stop')) as { profile: { nodes: ProfileNode[]; samples?: number[]; timeDeltas?: number[] } }).profile
      : null;
    const windowFrames = frames - framesBefore;
    const windowBytes = frameBytes - bytesBefore;
    const turnsAtClose = await liveTurns(page, tag);
    const rowsInDom = await page.getByTestId('overview-row').count();
    const listed = await page.getByTestId('overview').locator('.overview-head .muted').textContent();
    ws.close();
    await page.close();

    const times = m.frames.slice(1).sort((a, b) => a - b);
    const q = (p: number): number => times[Math.min(times.length - 1, Math.floor(p * times.length))] ?? 0;
    console.log(
      `  overview: ${IDLE} idle sessions + ${LIVE} live at ${LIVE_EACH} snapshots/s each (${SPANS} spans), home page's sessions overview; ${os.availableParallelism()} cores, load average ${load[0]!.toFixed(2)} ${load[1]!.toFixed(2)} ${load[2]!.toFixed(2)} before`,
    );
    console.log(
      `    listed: ${listed ?? '?'}; rows in the DOM ${rowsInDom}; snapshots acked ${answers.acked}${answers.rejected ? `, ${answers.rejected} rejected` : ''}; page errors ${errors.length}${errors.length ? ` (${errors[0]})` : ''}`,
    );
    console.log(
      `    window: ${windowSeconds.toFixed(1)} s after a ${WARMUP} s warm-up; overview frames received ${windowFrames} (${(windowBytes / 1000).toFixed(0)} KB); live rows' turns in view ${range(turnsAtOpen)} at the start, ${range(turnsAtClose)} at the end`,
    );
    console.log(
      `    main-thread long tasks > 50 ms: ${m.long.length}${m.long.length ? ` (max ${Math.max(...m.long).toFixed(0)} ms, total ${m.long.reduce((a, b) => a + b, 0).toFixed(0)} ms)` : ''} (goal: none)`,
    );
    console.log(
      `    frame times: p50 ${q(0.5).toFixed(1)} ms, p95 ${q(0.95).toFixed(1)} ms, p99 ${q(0.99).toFixed(1)} ms, max ${(times[times.length - 1] ?? 0).toFixed(1)} ms over ${times.length} frames`,
    );
    console.log(
      `    main thread in the window: tasks ${d('TaskDuration').toFixed(0)} ms (script ${d('ScriptDuration').toFixed(0)}, style ${d('RecalcStyleDuration').toFixed(0)}, layout ${d('LayoutDuration').toFixed(0)}), thread CPU ${d('ThreadTime').toFixed(0)} ms`,
    );
    if (m.loaf.length > 0) {
      const by = new Map<string, { n: number; ms: number }>();
      for (const f of m.loaf)
        for (const x of f.scripts) {
          const k = `${x.type} ${x.invoker} ${x.fn ? `${x.fn} ` : ''}(${x.src})`;
          const e = by.get(k) ?? { n: 0, ms: 0 };
          e.n++;
          e.ms += x.duration;
          by.set(k, e);
        }
      console.log(`    long animation frames: ${m.loaf.length}, ${m.loaf.reduce((a, f) => a + f.duration, 0).toFixed(0)} ms; scripts:`);
      for (const [k, v] of [...by.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 6))
        console.log(`      ${v.ms.toFixed(0).padStart(6)} ms  ×${v.n}  ${k}`);
    }
    if (profile !== null) {
      fs.writeFileSync(path.join(ROOT, 'bench', 'out', 'overview.cpuprofile'), JSON.stringify(profile));
      console.log('    CPU profile of the window, self time (bench/out/overview.cpuprofile):');
      for (const x of selfTimes(profile, 20)) console.log(`      ${x.ms.toFixed(0).padStart(6)} ms  ${x.name}`);
    }
  } finally {
    await relay.stop();
  }
}

/** The turns shown in the live sessions' rows that are in view (the table is worst first, so not every live row need be). */
async function liveTurns(page: import('@playwright/test').Page, tag: string): Promise<number[]> {
  return page.evaluate(
    (prefix) =>
      Array.from(document.querySelectorAll<HTMLElement>(`[data-testid="overview-row"][data-session^="${prefix}"] [data-testid="overview-turns"]`)).map((el) =>
        Number((el.textContent ?? '').replace(/,/g, '')),
      ),
    `${tag}-live-`,
  );
}

function range(xs: number[]): string {
  return xs.length === 0 ? 'none in view' : `${Math.min(...xs)}–${Math.max(...xs)} (${xs.length} rows)`;
}
