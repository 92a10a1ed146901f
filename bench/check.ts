// `check` throughput against two floors measured in the same run (issue: engine):
//   floor 1: JSON.parse of every line, lines already in memory
//   floor 2: JSON.parse + sha256 of every span text
// and `check --json` end to end from the file, in a fresh process, with its peak RSS for
// a 500-turn and a 2,000-turn transcript (memory must stay flat as the file grows).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { nodeSha256 } from '../src/node/platform.ts';
import { mainThreadCpuMs } from './cpu.ts';
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
  maxRssMiB: number;
}

/** The median run by wall time, and the least wall and main-thread CPU time of any. */
function runCheck(file: string): CheckRun & { bestMs: number; bestCpuMs: number | null } {
  const runs: CheckRun[] = [];
  for (let i = 0; i < 3; i++) {
    const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/checkChild.ts'), file], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    });
    const last = r.stderr.trim().split('\n').pop() ?? '';
    runs.push(JSON.parse(last) as CheckRun);
  }
  runs.sort((a, b) => a.ms - b.ms);
  const cpus = runs.map((r) => r.cpuMs).filter((c): c is number => c !== null);
  return { ...runs[1]!, bestMs: runs[0]!.ms, bestCpuMs: cpus.length === runs.length ? Math.min(...cpus) : null };
}

export async function benchCheck(): Promise<void> {
  console.log('\n== check: engine throughput (2,000 turns × 200 spans, ~400-char texts) ==');
  const small = benchTranscript(500, 200, 400);
  const big = benchTranscript(2000, 200, 400);
  const f = floors(big);
  const c = runCheck(big);
  const cSmall = runCheck(small);
  const checkRate = f.snapshots / (c.ms / 1000);
  console.log(`transcript: ${f.snapshots} snapshots, ${f.mb.toFixed(0)} MB (${path.relative(ROOT, big)})`);
  console.log(`floor 1, JSON.parse of every line (in memory):   ${f.parse.toFixed(0).padStart(6)} snapshots/s`);
  console.log(`floor 2, JSON.parse + sha256 of every span text: ${f.parseHash.toFixed(0).padStart(6)} snapshots/s`);
  console.log(
    `check --json, end to end from the file:          ${checkRate.toFixed(0).padStart(6)} snapshots/s, ${(f.mb / (c.ms / 1000)).toFixed(0)} MB/s (median of 3)`,
  );
  console.log(`ratio check / floor 1: ${(checkRate / f.parse).toFixed(2)} (goal ≥ 0.50); check / floor 2: ${(checkRate / f.parseHash).toFixed(2)}`);
  // The floors are the best of 3; the same for check, and CPU time, which a shared machine's load moves less
  const bestRatio = f.snapshots / (c.bestMs / 1000) / f.parse;
  const cpuRatio =
    f.parseCpuMs !== null && c.bestCpuMs !== null
      ? `; main-thread CPU: floor 1 ${f.parseCpuMs} ms, check ${c.bestCpuMs} ms, ratio ${(f.parseCpuMs / c.bestCpuMs).toFixed(2)}`
      : '';
  console.log(`best of 3: check ${c.bestMs.toFixed(0)} ms, ratio to floor 1 ${bestRatio.toFixed(2)}${cpuRatio}`);
  console.log(
    `peak RSS: 500 turns ${cSmall.maxRssMiB.toFixed(0)} MiB, 2,000 turns ${c.maxRssMiB.toFixed(0)} MiB (ratio ${(c.maxRssMiB / cSmall.maxRssMiB).toFixed(2)} for 4× the file)`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await benchCheck();
