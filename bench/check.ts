// `check` throughput against two floors measured in the same run (issue: engine):
//   floor 1: JSON.parse of every line, lines already in memory
//   floor 2: JSON.parse + sha256 of every span text
// and `check --json` end to end from the file, in a fresh process, with its peak RSS for
// a 500-turn and a 2,000-turn transcript (memory must stay flat as the file grows).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { nodeSha256 } from '../src/node/platform.ts';
import { benchTranscript } from './transcripts.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

function countSnapshots(lines: string[]): number {
  return lines.filter((l) => l.includes('"type":"snapshot"')).length;
}

function floors(file: string): { parse: number; parseHash: number; snapshots: number; mb: number } {
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0);
  const snapshots = countSnapshots(lines);
  const mb = fs.statSync(file).size / 1e6;
  const best = (f: () => void): number => {
    let min = Infinity;
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      f();
      min = Math.min(min, performance.now() - t0);
    }
    return min;
  };
  let sink = 0;
  const parseMs = best(() => {
    for (const l of lines) sink += (JSON.parse(l) as { turn?: number }).turn ?? 0;
  });
  const parseHashMs = best(() => {
    for (const l of lines) {
      const m = JSON.parse(l) as { spans?: { text: string }[] };
      for (const s of m.spans ?? []) sink += nodeSha256(s.text).length;
    }
  });
  if (sink === -1) console.log(sink);
  return { parse: snapshots / (parseMs / 1000), parseHash: snapshots / (parseHashMs / 1000), snapshots, mb };
}

function runCheck(file: string): { ms: number; maxRssMiB: number } {
  const runs: { ms: number; maxRssMiB: number }[] = [];
  for (let i = 0; i < 3; i++) {
    const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/checkChild.ts'), file], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    });
    const last = r.stderr.trim().split('\n').pop() ?? '';
    runs.push(JSON.parse(last) as { ms: number; maxRssMiB: number });
  }
  runs.sort((a, b) => a.ms - b.ms);
  return runs[1]!;
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
  console.log(`check --json, end to end from the file:          ${checkRate.toFixed(0).padStart(6)} snapshots/s, ${(f.mb / (c.ms / 1000)).toFixed(0)} MB/s (median of 3)`);
  console.log(`ratio check / floor 1: ${(checkRate / f.parse).toFixed(2)} (goal ≥ 0.50); check / floor 2: ${(checkRate / f.parseHash).toFixed(2)}`);
  console.log(`peak RSS: 500 turns ${cSmall.maxRssMiB.toFixed(0)} MiB, 2,000 turns ${c.maxRssMiB.toFixed(0)} MiB (ratio ${(c.maxRssMiB / cSmall.maxRssMiB).toFixed(2)} for 4× the file)`);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchCheck();
