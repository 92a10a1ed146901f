// An analysis thread (docs/relay.md "Analysis"): the Engines of the sessions it owns, fed
// each stored line in the order the main thread posts them; one answer per line that is
// not a warm-up, in the same order, carrying only the digest (sessionEngine.ts).
import v8 from 'node:v8';
import vm from 'node:vm';
import { parentPort } from 'node:worker_threads';
import type { Engine } from '../../core/engine.ts';
import { CollectAfterDrop } from './collectAfterDrop.ts';
import { analyseLine, newSessionEngine, type LineOutcome } from './sessionEngine.ts';
import { lowerThreadPriority } from '../../node/threadPriority.ts';

export type AnalysisRequest =
  /** `w`: warm-up (a replacement thread re-reading what its predecessor had analysed): no answer */
  | { s: string; q: number; b: Uint8Array; w: boolean }
  /** the session was deleted, or idle and parked (analysisThreads.ts): its engine goes */
  | { s: string; drop: true }
  /** tests and benches: the thread's memory, after a full collection unless `collect` is false, answered as a ThreadMemory */
  | { heap: true; collect?: boolean };

/** One analysis thread's own memory, bytes (its isolate: the process's RSS is shared). */
export interface ThreadMemory {
  /** after a full collection (as it stood when none was asked for) */
  heap: number;
  /** before it: what the thread's own collections left */
  heapAsItStood: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  /** engines held */
  engines: number;
  /** full collections the thread ran after dropping engines (collectAfterDrop.ts) */
  collections: number;
}

export interface AnalysisAnswer {
  o: LineOutcome;
  /** ms the engine took */
  ms: number;
}

const port = parentPort;
if (port === null) throw new Error('analysisWorker.ts runs as a worker thread');

// below the main thread when the cores are short: the fan-out is not delayed behind an analysis
lowerThreadPriority();
const engines = new Map<string, Engine>();
const release = new CollectAfterDrop(() => fullCollection());
port.on('message', (batch: AnalysisRequest[]) => {
  const out: AnalysisAnswer[] = [];
  for (const r of batch) {
    if ('heap' in r) {
      port.postMessage(memoryNow(r.collect !== false));
      continue;
    }
    if ('drop' in r) {
      engines.delete(r.s);
      release.dropped(r.s);
      continue;
    }
    let engine = engines.get(r.s);
    if (engine === undefined) engines.set(r.s, (engine = newSessionEngine()));
    const t0 = performance.now();
    let o: LineOutcome;
    try {
      o = analyseLine(engine, r.q, r.b);
    } catch (e) {
      // an engine bug must not stall the session's acks: the main thread logs it
      o = { k: 'error', message: `the engine failed: ${(e as Error).message}` };
    }
    release.analysed(r.s, r.b.length);
    if (!r.w) out.push({ o, ms: performance.now() - t0 });
  }
  if (out.length > 0) port.postMessage(out);
});
let gc: (() => void) | null = null;
/** A full collection (V8's gc, exposed here only: the flag is set once, when first needed). */
function fullCollection(): void {
  if (gc === null) {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as () => void;
  }
  gc();
}

/** What the engines hold: the memory in use once garbage is collected (unless not `collect`); `heapAsItStood`: before that collection. */
function memoryNow(collect: boolean): ThreadMemory {
  const heapAsItStood = v8.getHeapStatistics().used_heap_size;
  if (collect) fullCollection();
  const h = v8.getHeapStatistics();
  const m = process.memoryUsage();
  return {
    heap: h.used_heap_size,
    heapAsItStood,
    heapTotal: h.total_heap_size,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
    engines: engines.size,
    collections: release.collections,
  };
}

// the engine's modules are loaded (through tsx, a few hundred ms): lines are analysed at full speed from now on
port.postMessage('ready');
