// Runs `context-health check --json <file>` in a fresh process (stdout → /dev/null by the
// parent) and reports its own wall time, its main thread's CPU time and peak RSS on stderr
// as one JSON line. Arguments after the file are passed on (bench/reference.ts: --scorer).
import { main } from '../src/cli/main.ts';
import { mainThreadCpuMs } from './cpu.ts';

const file = process.argv[2];
if (file === undefined) throw new Error('usage: checkChild.ts <file>');
const cpu0 = mainThreadCpuMs();
const t0 = performance.now();
const code = await main(['check', '--json', '--fail-on', 'never', file, ...process.argv.slice(3)]);
const ms = performance.now() - t0;
const cpu1 = mainThreadCpuMs();
const cpuMs = cpu0 === null || cpu1 === null ? null : cpu1 - cpu0;
process.stderr.write(JSON.stringify({ ms, cpuMs, code, maxRssMiB: process.resourceUsage().maxRSS / 1024 }) + '\n');
