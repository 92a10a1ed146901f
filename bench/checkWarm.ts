// `check` warm: checkTranscript run several times in one fresh process (`--threads` as given),
// each run's wall time and the process's CPU time (every thread) on stderr as one JSON line.
// The last runs show the pace of the scanner and the engine once V8 has compiled them, against
// which a cold run's (bench/checkChild.ts) extra is its warm-up
// (docs/perf-log/2026-12-02-warm-up-and-settled-drop.md).
import { checkTranscript } from '../src/cli/check.ts';
import { processCpuMs } from './cpu.ts';

const [file, threads = '1', runs = '5'] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: checkWarm.ts <file> [threads] [runs]');
const ms: number[] = [];
const cpuMs: number[] = [];
for (let i = 0; i < Number(runs); i++) {
  const cpu0 = processCpuMs();
  const t0 = performance.now();
  const r = await checkTranscript(file, { userThresholds: {}, threads: Number(threads) });
  JSON.stringify(r.report); // as check --json does
  ms.push(performance.now() - t0);
  cpuMs.push(processCpuMs() - cpu0);
}
process.stderr.write(JSON.stringify({ ms, cpuMs }) + '\n');
