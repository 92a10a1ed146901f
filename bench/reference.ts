// contract §7 reference scorer: `check --scorer reference` against plain `check`
// (`--scorer harness`: the same reader, no scoring), each in a fresh process, median of 5 interleaved runs,
// on a large generated Claude Code transcript and on the 2,000-turn × 200-span native
// bench transcript. Goal: reference ≥ 0.7× plain's throughput on both.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { loadAverage } from './cpu.ts';
import path from 'node:path';
import { claudeCodeTranscript } from './claudeCodeTranscript.ts';
import { benchTranscript } from './transcripts.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const RUNS = 5;

type Run = { ms: number; cpuMs: number | null };

function runCheck(file: string, scorer: string): Run {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/checkChild.ts'), file, '--scorer', scorer], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  return JSON.parse(r.stderr.trim().split('\n').pop() ?? '{}') as Run;
}

const medianOf = (runs: Run[]): Run => [...runs].sort((a, b) => a.ms - b.ms)[runs.length >> 1]!;

function compare(label: string, file: string): void {
  const mb = fs.statSync(file).size / 1e6;
  // interleaved (plain, reference, plain, …), so a change in the machine's load while the
  // bench runs falls on both sides alike
  const plainRuns: Run[] = [];
  const referenceRuns: Run[] = [];
  for (let i = 0; i < RUNS; i++) {
    plainRuns.push(runCheck(file, 'harness'));
    referenceRuns.push(runCheck(file, 'reference'));
  }
  const plain = medianOf(plainRuns);
  const reference = medianOf(referenceRuns);
  console.log(`${label}, ${mb.toFixed(0)} MB (${path.relative(ROOT, file)})`);
  console.log(
    `  plain check (--scorer harness): ${plain.ms.toFixed(0)} ms; --scorer reference: ${reference.ms.toFixed(0)} ms (median of ${RUNS}, interleaved)`,
  );
  const cpu = plain.cpuMs !== null && reference.cpuMs !== null ? `; main-thread CPU ratio ${(plain.cpuMs / reference.cpuMs).toFixed(2)}` : '';
  console.log(`  throughput ratio reference / plain: ${(plain.ms / reference.ms).toFixed(2)} (goal ≥ 0.70)${cpu}`);
}

export async function benchReference(): Promise<void> {
  const load = loadAverage(' / ');
  console.log(`\n== check --scorer reference vs plain check == (${os.availableParallelism()} cores, load average ${load} before)`);
  compare('Claude Code transcript: 2,000 API calls', claudeCodeTranscript(2000, 1500));
  compare('native transcript: 2,000 turns × 200 spans', benchTranscript(2000, 200, 400));
}

if (import.meta.url === `file://${process.argv[1]}`) await benchReference();
