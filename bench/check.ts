// `check` throughput against two floors measured in the same run (issue: engine):
//   floor 1: JSON.parse of every line, lines already in memory, on one core
//   floor 2: JSON.parse + sha256 of every span text
// and `check --json` end to end from the file, in a fresh process, with --threads 1 and 2
// (issue 25: the parsing threads), with its peak RSS for a 500-turn and a 2,000-turn
// transcript (memory must stay flat as the file grows, and within 20% of one thread's), and
// the seed's Python over the same file when the seed is found (bench/seedPython.py). The
// machine's load average is printed before and after: the figures are ratios from one run.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nodeSha256 } from '../src/node/platform.ts';
import { loadAverage, mainThreadCpuMs } from './cpu.ts';
import { benchTranscript } from './transcripts.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

function countSnapshots(lines: string[]): number {
  return lines.filter((l) => l.includes('"type":"snapshot"')).length;
}

function floors(file: string): { parse: number; parseHash: number; parseCpuMs: number | null; snapshots: number; mb: number } {
  const lines = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0);
  const snapshots = countSnapshots(lines);
  const mb = fs.statSync(file).size / 1e6;
  let cpuMs: number | null = null;
  const best = (f: () => void): number => {
    let min = Infinity;
    cpuMs = null;
    for (let i = 0; i < 3; i++) {
      const c0 = mainThreadCpuMs();
      const t0 = performance.now();
      f();
      min = Math.min(min, performance.now() - t0);
      const c1 = mainThreadCpuMs();
      if (c0 !== null && c1 !== null) cpuMs = Math.min(cpuMs ?? Infinity, c1 - c0);
    }
    return min;
  };
  let sink = 0;
  const parseMs = best(() => {
    for (const l of lines) sink += (JSON.parse(l) as { turn?: number }).turn ?? 0;
  });
  const parseCpuMs: number | null = cpuMs;
  const parseHashMs = best(() => {
    for (const l of lines) {
      const m = JSON.parse(l) as { spans?: { text: string }[] };
      for (const s of m.spans ?? []) sink += nodeSha256(s.text).length;
    }
  });
  if (sink === -1) console.log(sink);
  return { parse: snapshots / (parseMs / 1000), parseHash: snapshots / (parseHashMs / 1000), parseCpuMs, snapshots, mb };
}

interface CheckRun {
  ms: number;
  cpuMs: number | null;
  /** every thread of the process: V8's compiler and GC, libuv's reads, the parsing threads */
  processCpuMs: number;
  maxRssMiB: number;
}

interface CheckRuns {
  /** the median run by wall time */
  median: CheckRun;
  bestMs: number;
  bestCpuMs: number | null;
  maxRssMiB: number;
}

/** Each variant's args, run in turn (A B A B …) so that a drift of the machine's speed falls on all alike. */
function runChecks(file: string, variants: readonly string[][], rounds = 3): CheckRuns[] {
  const runs: CheckRun[][] = variants.map(() => []);
  for (let i = 0; i < rounds; i++) {
    variants.forEach((args, v) => {
      const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/checkChild.ts'), file, ...args], {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'pipe'],
        encoding: 'utf8',
      });
      const last = r.stderr.trim().split('\n').pop() ?? '';
      runs[v]!.push(JSON.parse(last) as CheckRun);
    });
  }
  return runs.map((rs) => {
    rs.sort((a, b) => a.ms - b.ms);
    const cpus = rs.map((r) => r.cpuMs).filter((c): c is number => c !== null);
    return {
      median: rs[Math.floor(rs.length / 2)]!,
      bestMs: rs[0]!.ms,
      bestCpuMs: cpus.length === rs.length ? Math.min(...cpus) : null,
      maxRssMiB: Math.max(...rs.map((r) => r.maxRssMiB)),
    };
  });
}

/** `check` warm (bench/checkWarm.ts): the best of the last three of five runs in one process, its wall and process CPU ms. */
function warmCheck(file: string, threads: number): { ms: number; processCpuMs: number } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/checkWarm.ts'), file, String(threads), '5'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  const { ms, cpuMs } = JSON.parse(r.stderr.trim().split('\n').pop() ?? '') as { ms: number[]; cpuMs: number[] };
  let best = ms.length - 3;
  for (let i = best + 1; i < ms.length; i++) if (ms[i]! < ms[best]!) best = i;
  return { ms: ms[best]!, processCpuMs: cpuMs[best]! };
}

const SEED = path.resolve(process.env.CONTEXT_HEALTH_ORACLE ?? path.join(ROOT, '..', 'shared', 'seeds', '000_reference.py'));

/** The seed's Python over the file: snapshots/s of its loop (median of 3), or null when the seed or python3 is not here. */
function seedPython(file: string): { rate: number; wholeRate: number } | null {
  if (!fs.existsSync(SEED)) return null;
  const runs: { rate: number; wholeRate: number }[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const r = spawnSync('python3', [path.join(ROOT, 'bench/seedPython.py'), SEED, file], { encoding: 'utf8' });
    const wholeMs = performance.now() - t0;
    if (r.status !== 0) return null;
    const { snapshots, seconds } = JSON.parse(r.stdout) as { snapshots: number; seconds: number };
    runs.push({ rate: snapshots / seconds, wholeRate: snapshots / (wholeMs / 1000) });
  }
  runs.sort((a, b) => a.rate - b.rate);
  return runs[1]!;
}

export async function benchCheck(): Promise<void> {
  console.log('\n== check: engine throughput (2,000 turns × 200 spans, ~400-char texts) ==');
  console.log(`load average before (1, 5, 15 min): ${loadAverage(', ')} on ${os.availableParallelism()} cores`);
  const small = benchTranscript(500, 200, 400);
  const big = benchTranscript(2000, 200, 400);
  const f = floors(big);
  const THREADS = [1, 2];
  const variants = THREADS.map((t) => ['--threads', String(t)]);
  const c = runChecks(big, variants);
  const cSmall = runChecks(small, variants, 1);
  const warm = warmCheck(big, 1);
  const py = seedPython(big);
  const rate = (r: CheckRuns): number => f.snapshots / (r.median.ms / 1000);
  console.log(`transcript: ${f.snapshots} snapshots, ${f.mb.toFixed(0)} MB (${path.relative(ROOT, big)})`);
  console.log(`floor 1, JSON.parse of every line (in memory, one core): ${f.parse.toFixed(0).padStart(6)} snapshots/s`);
  console.log(`floor 2, JSON.parse + sha256 of every span text:         ${f.parseHash.toFixed(0).padStart(6)} snapshots/s`);
  if (py !== null)
    console.log(
      `the seed's Python (prune + integrity + stats), its loop: ${py.rate.toFixed(0).padStart(6)} snapshots/s (${py.wholeRate.toFixed(0)} whole process)`,
    );
  else console.log(`the seed's Python: not measured (no ${SEED}, or no python3)`);
  THREADS.forEach((t, i) => {
    const r = c[i]!;
    const cpu = r.bestCpuMs === null ? '' : `, main thread CPU ${r.bestCpuMs} ms (best)`;
    console.log(
      `check --json --threads ${t}, end to end from the file: ${rate(r).toFixed(0).padStart(6)} snapshots/s, ${(f.mb / (r.median.ms / 1000)).toFixed(0)} MB/s (median of 3${cpu})`,
    );
  });
  const [one, two] = [c[0]!, c[1]!];
  console.log(
    `ratio check / floor 1: --threads 1 ${(rate(one) / f.parse).toFixed(2)}, --threads 2 ${(rate(two) / f.parse).toFixed(2)} (goal ≥ 1.0); check / floor 2: ${(rate(two) / f.parseHash).toFixed(2)}`,
  );
  if (py !== null)
    console.log(
      `ratio check / the seed's Python: --threads 1 ${(rate(one) / py.rate).toFixed(2)}, --threads 2 ${(rate(two) / py.rate).toFixed(2)} (goal ≥ 1.5)`,
    );
  console.log(
    `check warm, --threads 1 (best of the last 3 of 5 runs in one process): ${warm.ms.toFixed(0)} ms, ratio to floor 1 ${(f.snapshots / (warm.ms / 1000) / f.parse).toFixed(2)} (the cold run's extra is its warm-up)`,
  );
  // The CPU budget (docs/perf-log/2026-12-02-cpu-budget.md): a cold
  // process's CPU time, every thread's, cannot be done on the machine's cores in less than
  // its share per core, however the work is split; the floor's wall time is what it must beat.
  const floorMs = (f.snapshots / f.parse) * 1000;
  const cores = os.availableParallelism();
  console.log(
    `CPU budget, --threads 1: cold ${one.median.processCpuMs.toFixed(0)} ms of process CPU (every thread; main thread ${one.bestCpuMs ?? '?'} ms best), warm ${warm.processCpuMs.toFixed(0)} ms; ` +
      `${cores} cores cannot do the cold run's CPU in under ${(one.median.processCpuMs / cores).toFixed(0)} ms, the floor takes ${floorMs.toFixed(0)} ms ` +
      `(the floor needs ≤ ${(cores * floorMs).toFixed(0)} ms of CPU in all; --threads 2 used ${two.median.processCpuMs.toFixed(0)})`,
  );
  console.log(`scaling, --threads 2 / --threads 1: ${(rate(two) / rate(one)).toFixed(2)} (median), ${(one.bestMs / two.bestMs).toFixed(2)} (best of 3)`);
  const bestRatio = f.snapshots / (two.bestMs / 1000) / f.parse;
  console.log(
    `best of 3, --threads 2: ${two.bestMs.toFixed(0)} ms, ratio to floor 1 ${bestRatio.toFixed(2)}; floor 1's main-thread CPU ${f.parseCpuMs ?? '?'} ms`,
  );
  THREADS.forEach((t, i) => {
    console.log(
      `peak RSS --threads ${t}: 500 turns ${cSmall[i]!.maxRssMiB.toFixed(0)} MiB, 2,000 turns ${c[i]!.maxRssMiB.toFixed(0)} MiB (ratio ${(c[i]!.maxRssMiB / cSmall[i]!.maxRssMiB).toFixed(2)} for 4× the file)`,
    );
  });
  console.log(`peak RSS --threads 2 / --threads 1 on 2,000 turns: ${(two.maxRssMiB / one.maxRssMiB).toFixed(2)} (goal ≤ 1.20)`);
  console.log(`load average after: ${loadAverage(', ')}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchCheck();
