// `--threads N` of check, diff and report (docs/engine.md "Both cores"): threads in all, one
// reading and analysing in order, N − 1 parsing. One parser for the three commands.
import os from 'node:os';

/** A whole number from 1 to 256, or why not. */
export function parseThreads(text: string): number | { error: string } {
  const n = /^\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > 256) return { error: `--threads must be a whole number from 1 to 256, got ${JSON.stringify(text)}` };
  return n;
}

/**
 * `report`'s default: the cores less the one its drawing thread needs while the file is read
 * (it draws and rasterises the charts as soon as the incident's turns are final). With every
 * core given to parsing, the drawing thread and a parsing thread take turns on one core.
 */
export function reportThreads(): number {
  return Math.max(1, os.availableParallelism() - 1);
}

/**
 * What one parsing thread costs at most: its isolate (about 9 MiB: 256 threads took 2.2 GB
 * on a 12 MiB file, issue 39) and the batches of lines it holds in flight.
 */
export const THREAD_BUDGET_BYTES = 64 * 1024 * 1024;

/**
 * docs/security.md "Threads": --threads beyond the cores only makes threads wait for each
 * other, and each costs memory; the count is capped by the cores and by a quarter of the
 * free memory at THREAD_BUDGET_BYTES a thread, and `note` says so when it is.
 */
export function capThreads(requested: number, note: (line: string) => void, cores = os.availableParallelism(), freeBytes = os.freemem()): number {
  const byMemory = Math.max(1, Math.floor(freeBytes / 4 / THREAD_BUDGET_BYTES));
  const capped = Math.max(1, Math.min(requested, cores, byMemory));
  if (capped < requested) {
    const why = capped === cores ? `${cores} core${cores === 1 ? '' : 's'}` : `free memory for ${byMemory} (${THREAD_BUDGET_BYTES / 1024 / 1024} MiB a thread)`;
    note(`context-health: --threads ${requested} capped to ${capped} (${why})`);
  }
  return capped;
}
