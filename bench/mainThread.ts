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

/**
 * A CDP client for the page's analysis Worker (a dedicated worker target), reached through
 * the page's session (Target.sendMessageToTarget), so its CPU can be profiled like the
 * main thread's. Null when the page has no such Worker.
 */
export async function workerSession(cdp: CDPSession): Promise<{ send: <T>(method: string, params?: object) => Promise<T> } | null> {
  const { targetInfos } = (await cdp.send('Target.getTargets')) as { targetInfos: { type: string; targetId: string; url: string }[] };
  const t = targetInfos.find((x) => x.type === 'worker' && /worker/.test(x.url));
  if (t === undefined) return null;
  const { sessionId } = (await cdp.send('Target.attachToTarget', { targetId: t.targetId, flatten: false })) as { sessionId: string };
  let id = 0;
  const pending = new Map<number, (v: unknown) => void>();
  cdp.on('Target.receivedMessageFromTarget', (e: { sessionId: string; message: string }) => {
    if (e.sessionId !== sessionId) return;
    const m = JSON.parse(e.message) as { id?: number; result?: unknown };
    if (m.id !== undefined && pending.has(m.id)) {
      pending.get(m.id)!(m.result);
      pending.delete(m.id);
    }
  });
  return {
    send: <T>(method: string, params?: object) =>
      new Promise<T>((resolve) => {
        const mid = ++id;
        pending.set(mid, resolve as (v: unknown) => void);
        void cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: mid, method, params: params ?? {} }) });
      }),
  };
}

interface TraceEvent {
  ph: string;
  name: string;
  cat?: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}

/**
 * CPU time by thread from a Chromium trace (categories `toplevel`, `__metadata`): the sum
 * of each thread's top-level tasks' thread time (`tdur`, wall `dur` where there is none),
 * largest first, with the thread's name (CrRendererMain, DedicatedWorker thread,
 * Compositor, CompositorTileWorker…) and process. What the renderer process spent its CPU on.
 */
export function threadTimes(trace: { traceEvents: TraceEvent[] } | TraceEvent[]): { thread: string; cpuMs: number; wallMs: number; tasks: number }[] {
  const events = Array.isArray(trace) ? trace : trace.traceEvents;
  const names = new Map<string, string>();
  const procs = new Map<number, string>();
  for (const e of events) {
    if (e.ph !== 'M') continue;
    if (e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args?.name ?? '?');
    if (e.name === 'process_name') procs.set(e.pid, e.args?.name ?? '?');
  }
  // top-level tasks nest only by accident (a nested run loop): count a thread's outermost ones
  const by = new Map<string, { cpu: number; wall: number; n: number; end: number }>();
  const sorted = events.filter((e) => e.ph === 'X' && e.cat === 'toplevel' && e.dur !== undefined).sort((a, b) => a.ts - b.ts);
  for (const e of sorted) {
    const key = `${e.pid}:${e.tid}`;
    const t = by.get(key) ?? { cpu: 0, wall: 0, n: 0, end: 0 };
    if (e.ts < t.end) continue;
    t.end = e.ts + e.dur!;
    t.cpu += (e.tdur ?? e.dur!) / 1000;
    t.wall += e.dur! / 1000;
    t.n++;
    by.set(key, t);
  }
  return [...by.entries()]
    .map(([key, t]) => ({
      thread: `${procs.get(Number(key.split(':')[0])) ?? 'process'} / ${names.get(key) ?? key}`,
      cpuMs: t.cpu,
      wallMs: t.wall,
      tasks: t.n,
    }))
    .sort((a, b) => b.cpuMs - a.cpuMs);
}

/**
 * An init script that counts the actions dispatched to Recharts' chart stores (Redux
 * Toolkit looks for the Redux DevTools' compose hook when a store is created; this one
 * wraps each store's dispatch instead) by chart and type, with the time dispatch took
 * (reducer and any unbatched notification): which store updates a page makes, and how
 * often. Counting starts when `window.__actions` is set to {}.
 */
export const COUNT_CHART_ACTIONS = `(() => {
  window.__REDUX_DEVTOOLS_EXTENSION_COMPOSE__ = (opts) => (...enhancers) => (createStore) => (reducer, preloaded) => {
    const make = enhancers.reduceRight((next, e) => e(next), createStore);
    const store = make(reducer, preloaded);
    const dispatch = store.dispatch;
    const chart = (opts && opts.name) || 'chart';
    store.dispatch = (action) => {
      const t0 = performance.now();
      const out = dispatch(action);
      const counts = window.__actions;
      if (counts && action && typeof action.type === 'string') {
        const k = chart + ' ' + action.type;
        const e = counts[k] || (counts[k] = { n: 0, ms: 0 });
        e.n++;
        e.ms += performance.now() - t0;
      }
      return out;
    };
    return store;
  };
})()`;
