// CPU time of this process's main thread, in ms (Linux: /proc, 10 ms ticks; null elsewhere),
// of the whole process, and the machine's load average. On a machine shared with other jobs,
// wall times swing with the load while the CPU time a thread spends is steadier: the
// benchmark reports both.
import fs from 'node:fs';
import os from 'node:os';

/** The process's CPU time so far, every thread's (V8's compiler and GC, libuv's reads, worker threads), in ms. */
export function processCpuMs(): number {
  const { userCPUTime, systemCPUTime } = process.resourceUsage();
  return (userCPUTime + systemCPUTime) / 1000;
}

/** The 1, 5 and 15 minute load averages, two decimals each, joined by `separator`. */
export function loadAverage(separator = ' '): string {
  return os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(separator);
}

export function mainThreadCpuMs(): number | null {
  try {
    const stat = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux)
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}
