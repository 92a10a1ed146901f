// What the browser benches measure on the page's main thread (bench/browser.ts's live part,
// bench/overview.ts): long tasks, long animation frames and frame times, CDP counters, and
// self times from a CPU profile. A module of its own: bench/browser.ts runs itself with a
// top-level await, so a part it imports cannot import it back.
import type { CDPSession } from '@playwright/test';

export const MEASURE_MAIN_THREAD = `(() => {
  window.__long = [];
  window.__loaf = [];
  window.__frames = [];
  window.__stop = false;
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__long.push(e.duration); }).observe({ type: 'longtask' });
  // a long animation frame's scripts say what ran: the invoker (an event, a callback) and the source
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        window.__loaf.push({
          duration: e.duration,
          render: e.renderStart ? e.startTime + e.duration - e.renderStart : 0,
          scripts: (e.scripts || []).map((x) => ({ invoker: x.invoker, type: x.invokerType, duration: x.duration, fn: x.sourceFunctionName, src: (x.sourceURL || '').split('/').pop() + ':' + x.sourceCharPosition, layout: x.forcedStyleAndLayoutDuration })),
        });
      }
    }).observe({ type: 'long-animation-frame' });
  } catch {}
  let last = performance.now();
  const frame = (now) => { window.__frames.push(now - last); last = now; if (!window.__stop) requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
})()`;

/** The page's CDP performance counters (seconds), e.g. TaskDuration (wall) and ThreadTime (main-thread CPU). */
export async function mainThreadMetrics(cdp: CDPSession): Promise<Record<string, number>> {
  const { metrics } = (await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] };
  return Object.fromEntries(metrics.map((m) => [m.name, m.value]));
}

export interface Loaf {
  duration: number;
  render: number;
  scripts: { invoker: string; type: string; duration: number; fn: string; src: string; layout: number }[];
}

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}

/** Self time by function from a CDP CPU profile (sampled), the top `n`. */
export function selfTimes(profile: { nodes: ProfileNode[]; samples?: number[]; timeDeltas?: number[] }, n: number): { name: string; ms: number }[] {
  const byId = new Map(profile.nodes.map((x) => [x.id, x]));
  const ms = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const node = byId.get(samples[i]!);
    if (node === undefined) continue;
    const f = node.callFrame;
    const name = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop() ?? ''}:${f.lineNumber + 1}`;
    ms.set(name, (ms.get(name) ?? 0) + (deltas[i + 1] ?? deltas[i] ?? 0) / 1000);
  }
  return [...ms.entries()]
    .map(([name, t]) => ({ name, ms: t }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, n);
}
