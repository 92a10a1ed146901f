// How many Workers parse a dropped file's lines (docs/dashboard.md "Parsing Workers"). The
// page's address may say: `?parse=1` parses on the analysis Worker alone (one thread, the
// path before there were parsing Workers), `?parse=N` uses N parsing Workers whatever the
// file's size (`&share=all`: every batch they have room for, however late they answer). By default a file of 8 MiB or more gets a small pool sized to the machine.
import type { ParseChoice } from '../src/worker/client.ts';

/**
 * Below this a file loads in well under a second on one thread, less than starting the
 * Workers costs the first time (as `check`'s THREAD_MIN_BYTES).
 */
const POOL_MIN_BYTES = 8 << 20;

/** Most parsing Workers by default: past four, the analysis Worker's engine is the bottleneck. */
const MAX_DEFAULT_WORKERS = 4;

export function parseChoice(search: string = typeof location === 'undefined' ? '' : location.search, cores: number = hardwareConcurrency()): ParseChoice {
  const params = new URLSearchParams(search);
  const asked = params.get('parse');
  const n = asked === null ? NaN : Number(asked);
  // `&share=all`: the Workers get every batch they have room for, late or not (src/ingest/threadShare.ts)
  if (Number.isInteger(n) && n >= 1) return { workers: n === 1 ? 0 : n, minBytes: 0, ...(params.get('share') === 'all' ? { fixedShare: true } : {}) };
  // at least two where the machine has two cores; one where it says it has one
  return { workers: cores >= 2 ? Math.max(2, Math.min(MAX_DEFAULT_WORKERS, cores - 1)) : 1, minBytes: POOL_MIN_BYTES };
}

function hardwareConcurrency(): number {
  const n = typeof navigator === 'undefined' ? 1 : navigator.hardwareConcurrency;
  return Number.isFinite(n) && n >= 1 ? n : 1;
}
