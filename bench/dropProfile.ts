// Where the page's main thread goes while a dropped file is analysed (docs/perf-log/
// 2026-12-02-main-thread.md): one drop of the browser bench's 234 MB transcript into the
// built dashboard (run `npx vite build` first), with a CDP CPU profile of the page running.
// It prints when the analysis opened, finished and first drew a chart, the main thread's
// busy time in 200 ms steps since the drop, the long animation frames (when, how long, what
// ran), and the self time in a window by the dashboard's own source files and functions
// (the bundle's source maps), so a change to what the page draws can be judged by what it
// costs the core the analysis Worker needs.
//
//   node --import tsx bench/dropProfile.ts [--window FROM,TO] [--after-done] [--viewport 1440x900]
//
// --window: ms since the drop (default the whole load); --after-done: the window counts from
// the analysis' end instead. One run: the load varies with whatever else the machine runs,
// so compare two builds in alternated runs, never one run with another.
import { chromium } from '@playwright/test';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SourceMapConsumer } from 'source-map-js';
import { dropFile } from '../e2e/helpers/app.ts';
import { ROOT, startRelay } from '../e2e/helpers/relay.ts';
import { settle, waitAllChartsScript } from './browser.ts';
import type { ProfileNode } from './mainThread.ts';

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

interface Frame {
  start: number;
  duration: number;
  render: number;
  scripts: string[];
}

const { values } = parseArgs({ options: { window: { type: 'string' }, 'after-done': { type: 'boolean' }, viewport: { type: 'string', default: '1440x900' } } });
const [width, height] = values.viewport.split('x').map(Number) as [number, number];
const file = path.join(ROOT, 'bench', 'out', 'browser-2000x200.jsonl');
if (!fs.existsSync(file)) throw new Error(`no ${file}: run BENCH_ONLY=load npm run bench -- browser once to write it`);
if (!fs.existsSync(path.join(ROOT, 'dist', 'index.html'))) throw new Error('no dist/: run npx vite build first');

const relay = await startRelay();
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium' });
try {
  const page = await browser.newPage({ viewport: { width, height } });
  await page.goto(`${relay.url}/`);
  // dropped on a page that has finished opening, as the browser bench's timed loads are
  await settle(page);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await page.evaluate(`(() => {
    window.__frames = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries())
        window.__frames.push({ at: e.startTime, duration: e.duration, render: e.renderStart ? e.startTime + e.duration - e.renderStart : 0,
          scripts: (e.scripts || []).map((x) => x.invoker + ' ' + Math.round(x.duration) + ' ms') });
    }).observe({ type: 'long-animation-frame' });
  })()`);
  await cdp.send('Profiler.start');
  const pageNowAtStart = (await page.evaluate('performance.now()')) as number;
  await dropFile(page, file);
  const seconds = (await page.evaluate(waitAllChartsScript(2000))) as number;
  const { profile } = (await cdp.send('Profiler.stop')) as { profile: Profile };
  const [dropAt, doneAt, firstChart] = (await page.evaluate(`(() => {
    const t0 = window.__dropAt;
    return [t0, (performance.getEntriesByName('context-health:done').pop()?.startTime ?? NaN) - t0, window.__firstChartAt ?? NaN];
  })()`)) as [number, number, number];
  const frames = ((await page.evaluate('window.__frames')) as (Omit<Frame, 'start'> & { at: number })[]).map((f) => ({ ...f, start: f.at - dropAt }));

  console.log(`drop → all charts ${(seconds * 1000).toFixed(0)} ms; analysis done at ${doneAt.toFixed(0)} ms; first chart at ${firstChart.toFixed(0)} ms`);
  // each sample's time since the drop
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const at: number[] = [];
  let t = profile.startTime;
  for (const d of profile.timeDeltas) {
    t += d;
    at.push(pageNowAtStart + (t - profile.startTime) / 1000 - dropAt);
  }
  const busy = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    if (byId.get(profile.samples[i]!)?.callFrame.functionName === '(idle)') continue;
    const step = Math.floor(at[i]! / 200) * 200;
    busy.set(step, (busy.get(step) ?? 0) + profile.timeDeltas[i]! / 1000);
  }
  console.log('main thread busy, ms per 200 ms since the drop:');
  console.log(
    '  ' +
      [...busy]
        .filter(([s]) => s >= -200 && s <= seconds * 1000)
        .sort((a, b) => a[0] - b[0])
        .map(([s, ms]) => `${s}: ${ms.toFixed(0)}`)
        .join(' · '),
  );
  console.log('long animation frames (start since the drop, duration, of it rendering; what ran):');
  for (const f of frames)
    console.log(
      `  ${f.start.toFixed(0).padStart(6)} ms  ${f.duration.toFixed(0).padStart(4)} ms  render ${f.render.toFixed(0).padStart(3)}  ${f.scripts.join(' | ')}`,
    );

  let [from, to] = values.window === undefined ? [-Infinity, Infinity] : (values.window.split(',').map(Number) as [number, number]);
  if (values['after-done'] === true) [from, to] = [doneAt + (Number.isFinite(from) ? from : 0), doneAt + (Number.isFinite(to) ? to : Infinity)];
  const maps = new Map<string, SourceMapConsumer | null>();
  const mapOf = (bundle: string): SourceMapConsumer | null => {
    if (!maps.has(bundle)) {
      const f = path.join(ROOT, 'dist', 'assets', `${bundle}.map`);
      maps.set(
        bundle,
        fs.existsSync(f) ? new SourceMapConsumer(JSON.parse(fs.readFileSync(f, 'utf8')) as ConstructorParameters<typeof SourceMapConsumer>[0]) : null,
      );
    }
    return maps.get(bundle)!;
  };
  const bySource = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let sampled = 0;
  let idle = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    if (at[i]! < from || at[i]! > to) continue;
    const cf = byId.get(profile.samples[i]!)!.callFrame;
    const ms = profile.timeDeltas[i]! / 1000;
    sampled += ms;
    if (cf.functionName === '(idle)') {
      idle += ms;
      continue;
    }
    const bundle = cf.url.split('/').pop() ?? '';
    const map = bundle.endsWith('.js') ? mapOf(bundle) : null;
    let source = '(the browser)';
    let fn = cf.functionName || '(anonymous)';
    if (map !== null) {
      const o = map.originalPositionFor({ line: cf.lineNumber + 1, column: cf.columnNumber });
      const src = (o.source ?? '?').replace(/^(\.\.\/)+/, '');
      // a library by its package, the dashboard by its file
      source = src.includes('node_modules/') ? src.replace(/.*node_modules\/((@[^/]+\/)?[^/]+).*/, '$1') : src;
      fn = `${src.replace(/.*node_modules\//, '')}:${o.line ?? '?'} ${o.name ?? fn}`;
    }
    bySource.set(source, (bySource.get(source) ?? 0) + ms);
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
  }
  const top = (m: Map<string, number>, n: number): string =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, ms]) => `  ${ms.toFixed(1).padStart(7)} ms  ${k}`)
      .join('\n');
  const window = Number.isFinite(from) || Number.isFinite(to) ? `${from.toFixed(0)}–${to.toFixed(0)} ms since the drop` : 'the whole load';
  console.log(`self time in ${window} (${sampled.toFixed(0)} ms sampled, ${idle.toFixed(0)} of it idle), by source:\n${top(bySource, 20)}`);
  console.log(`by function:\n${top(byFunction, 25)}`);
} finally {
  await browser.close();
  await relay.stop();
}
