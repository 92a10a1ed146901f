// Runs `context-health check --json <file>` in a fresh process (stdout → /dev/null by the
// parent) and reports its own wall time, its main thread's CPU time, the whole process's CPU
// time (every thread: V8's compiler and GC, libuv's reads, parsing threads) and peak RSS on
// stderr as one JSON line. Arguments after the file are passed on (bench/reference.ts: --scorer).
import { main } from '../src/cli/main.ts';
import { mainThreadCpuMs, processCpuMs } from './cpu.ts';

const file = process.argv[2];
if (file === undefined) throw new Error('usage: checkChild.ts <file>');
const cpu0 = mainThreadCpuMs();
const process0 = processCpuMs();
const t0 = performance.now();
const code = await main(['check', '--json', '--fail-on', 'never', file, ...process.argv.slice(3)]);
const ms = performance.now() - t0;
const cpu1 = mainThreadCpuMs();
const processMs = processCpuMs() - process0;
const cpuMs = cpu0 === null || cpu1 === null ? null : cpu1 - cpu0;
process.stderr.write(JSON.stringify({ ms, cpuMs, processCpuMs: processMs, code, maxRssMiB: process.resourceUsage().maxRSS / 1024 }) + '\n');
