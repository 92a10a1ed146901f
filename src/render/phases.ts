// Where `context-health report`'s time goes (bench/report.ts prints it): with
// CONTEXT_HEALTH_PHASES=<file> set, each thread of the run (the CLI's and the drawing
// thread) appends one JSON line per phase it ends: {"thread":"cli"|"draw","phase":…,"at":
// wall-clock ms since the epoch, sub-millisecond}. Unset, as for every user, it costs one
// property read. Synchronous appends: a line is on disk before the thread goes on, even
// when the drawing thread is terminated right after.
import fs from 'node:fs';
import { isMainThread } from 'node:worker_threads';

const FILE = process.env.CONTEXT_HEALTH_PHASES;
const THREAD = isMainThread ? 'cli' : 'draw';

/** Notes that `phase` just ended on this thread (nothing unless CONTEXT_HEALTH_PHASES is set). */
export function phase(name: string): void {
  if (FILE === undefined || FILE === '') return;
  fs.appendFileSync(FILE, `${JSON.stringify({ thread: THREAD, phase: name, at: performance.timeOrigin + performance.now() })}\n`);
}
