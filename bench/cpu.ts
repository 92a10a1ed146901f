// CPU time of this process's main thread, in ms (Linux: /proc, 10 ms ticks; null elsewhere).
// On a machine shared with other jobs, wall times swing with the load while the CPU time
// a thread spends is steadier: the benchmark reports both.
import fs from 'node:fs';

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
