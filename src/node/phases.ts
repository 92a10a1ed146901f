// Shared by the CLI's thread (src/cli/report.ts) and the drawing thread (src/render): the
// render project lists this one file besides its own (tsconfig.render.json).
// Where `context-health report`'s time goes (bench/report.ts prints it): with
// CONTEXT_HEALTH_PHASES=<file> set, each thread of the run (the CLI's and the drawing
// thread) appends one JSON line per phase it ends: {"thread":"cli"|"draw","phase":…,"at":
// wall-clock ms since the epoch, sub-millisecond}. Unset, as for every user, it costs one
// property read. Each line also carries `cpu`, the CPU time this thread has used so far (ms,
// Linux only, 10 ms ticks, else null): on a loaded machine the wall clock mostly measures the
// other processes, CPU time still says what each phase costs. Synchronous appends: a line is on disk before the thread goes on, even
// when the drawing thread is terminated right after.
import fs from 'node:fs';
import { isMainThread } from 'node:worker_threads';

const FILE = process.env.CONTEXT_HEALTH_PHASES;
const THREAD = isMainThread ? 'cli' : 'draw';

/** this thread's user + system CPU time in ms, from /proc (fields 14 and 15 of stat, in clock ticks of 10 ms) */
function threadCpu(): number | null {
  try {
    const stat = fs.readFileSync('/proc/thread-self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** Notes that `phase` just ended on this thread (nothing unless CONTEXT_HEALTH_PHASES is set). */
export function phase(name: string): void {
  if (FILE === undefined || FILE === '') return;
  fs.appendFileSync(FILE, `${JSON.stringify({ thread: THREAD, phase: name, at: performance.timeOrigin + performance.now(), cpu: threadCpu() })}\n`);
}
