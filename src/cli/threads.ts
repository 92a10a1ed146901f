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
