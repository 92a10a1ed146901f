// contract §8.4 compaction audit: `check` of a large Claude Code transcript with the audit
// against `check --no-audit` (the same reader and engine, compactions without items), each
// in a fresh process, median of 5 interleaved runs. Goal: with the audit ≤ 1.15× without.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { loadAverage } from './cpu.ts';
import path from 'node:path';
import { claudeCodeTranscript } from './claudeCodeTranscript.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const RUNS = 5;

type Run = { ms: number; cpuMs: number | null };

function runCheck(file: string, extra: string[]): Run {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/checkChild.ts'), file, ...extra], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  return JSON.parse(r.stderr.trim().split('\n').pop() ?? '{}') as Run;
}

const medianOf = (runs: Run[]): Run => [...runs].sort((a, b) => a.ms - b.ms)[runs.length >> 1]!;

export function benchAudit(): void {
  const load = loadAverage(' / ');
  console.log(`\n== check with the compaction audit vs check --no-audit == (${os.availableParallelism()} cores, load average ${load} before)`);
  const file = claudeCodeTranscript(2000, 1500, true);
  const without: Run[] = [];
  const withAudit: Run[] = [];
  for (let i = 0; i < RUNS; i++) {
    without.push(runCheck(file, ['--no-audit']));
    withAudit.push(runCheck(file, []));
  }
  const a = medianOf(without);
  const b = medianOf(withAudit);
  console.log(`Claude Code transcript: 2,000 API calls, 10 compactions, ${(fs.statSync(file).size / 1e6).toFixed(0)} MB (${path.relative(ROOT, file)})`);
  console.log(`  check --no-audit: ${a.ms.toFixed(0)} ms; check: ${b.ms.toFixed(0)} ms (median of ${RUNS}, interleaved)`);
  console.log(`  time ratio with / without the audit: ${(b.ms / a.ms).toFixed(3)} (goal ≤ 1.15)`);
}

if (import.meta.url === `file://${process.argv[1]}`) benchAudit();
