// `context-health report` against `check` on the same 2,000-turn transcript, both end to end
// from the file in a fresh process through the bin, as a user runs them (issue "Incident
// reports": goal report ≤ 1.5 × check). report reads the file exactly as check does and
// keeps the session's columns, then draws and rasterises the charts.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchTranscript } from './transcripts.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin/context-health.mjs');

function timed(args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (r.status !== 0 && r.status !== 1) throw new Error(`context-health ${args[0]} failed (${r.status}): ${r.stderr}`);
  return ms;
}

export async function benchReport(): Promise<void> {
  console.log('\n== report: context-health report vs check on the same file (2,000 turns × 200 spans) ==');
  const big = benchTranscript(2000, 200, 400);
  // report overlaps its drawing thread with check's reading: the ratio depends on a second core being free
  const loadBefore = os.loadavg()[0]!;
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-bench-report-'));
  // alternated, so a change in the machine's load falls on both alike; best of 3 each
  const check: number[] = [];
  const report: number[] = [];
  const html: number[] = [];
  for (let i = 0; i < 3; i++) {
    check.push(timed(['check', big, '--json']));
    report.push(timed(['report', big, '--incident', '1', '--out', path.join(out, 'md')]));
    html.push(timed(['report', big, '--incident', '1', '--format', 'html', '--out', path.join(out, 'html')]));
  }
  const best = (xs: number[]): number => Math.min(...xs);
  console.log(`${os.availableParallelism()} cores, load average ${loadBefore.toFixed(2)} before, ${os.loadavg()[0]!.toFixed(2)} after`);
  console.log(`check --json:                 ${best(check).toFixed(0).padStart(6)} ms (best of 3)`);
  console.log(
    `report --incident 1 (md+PNG): ${best(report).toFixed(0).padStart(6)} ms, ratio to check ${(best(report) / best(check)).toFixed(2)} (goal ≤ 1.5)`,
  );
  console.log(`report --format html:         ${best(html).toFixed(0).padStart(6)} ms, ratio to check ${(best(html) / best(check)).toFixed(2)}`);
  fs.rmSync(out, { recursive: true, force: true });
}

if (import.meta.url === `file://${process.argv[1]}`) await benchReport();
