// `context-health report` against `check` on the same 2,000-turn transcript, both end to end
// from the file in a fresh process through the bin, as a user runs them (issue "Incident
// reports": goal report ≤ 1.5 × check, issue 22: ≤ 1.3). report reads the file exactly as check does and
// keeps the session's columns, then draws and rasterises the charts on its drawing thread
// (for --incident 1 while the file is still read, once the incident's turns are final; timed
// also with CONTEXT_HEALTH_EARLY_CHARTS=0, drawn only at the end, in the same rounds).
//
// What is measured: warm runs, the renderer bundles already built (what every run after the
// first in a checkout costs). The first run after `npm ci` (or after a change to a renderer
// source) also builds the bundles with esbuild: that run is timed once, apart, and not in the
// ratio. The phase breakdown comes from the run itself (CONTEXT_HEALTH_PHASES, src/node/phases.ts).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchTranscript } from './transcripts.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin/context-health.mjs');
const CACHE = path.join(ROOT, 'node_modules/.cache/context-health');

interface Phase {
  thread: string;
  phase: string;
  /** ms since the process was spawned */
  at: number;
  /** CPU time the thread had used by then (ms; null off Linux) */
  cpu: number | null;
}

function timed(args: string[], phasesFile?: string, extraEnv: Record<string, string> = {}): { ms: number; phases: Phase[] } {
  if (phasesFile !== undefined) fs.rmSync(phasesFile, { force: true });
  const env = { ...process.env, ...extraEnv, ...(phasesFile === undefined ? {} : { CONTEXT_HEALTH_PHASES: phasesFile }) };
  const start = performance.timeOrigin + performance.now();
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (r.status !== 0 && r.status !== 1) throw new Error(`context-health ${args[0]} failed (${r.status}): ${r.stderr}`);
  const phases =
    phasesFile === undefined || !fs.existsSync(phasesFile)
      ? []
      : fs
          .readFileSync(phasesFile, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Phase)
          .map((p) => ({ ...p, at: p.at - start }));
  return { ms, phases };
}

/** each phase's end and length on its thread, for the reader to see where the time goes */
function breakdown(phases: Phase[], total: number): string {
  const last = new Map<string, number>();
  const lines = [...phases]
    .sort((a, b) => a.at - b.at)
    .map((p) => {
      const cpu = p.cpu === null ? '' : `${(p.cpu - (last.get(p.thread) ?? 0)).toFixed(0).padStart(5)} ms CPU`;
      if (p.cpu !== null) last.set(p.thread, p.cpu);
      return `  ${p.at.toFixed(0).padStart(6)} ms  ${p.thread.padEnd(4)} ${p.phase.padEnd(52)} ${cpu}`;
    });
  lines.push(`  ${total.toFixed(0).padStart(6)} ms       process exited`);
  return lines.join('\n');
}

export async function benchReport(): Promise<void> {
  console.log('\n== report: context-health report vs check on the same file (2,000 turns × 200 spans) ==');
  const big = benchTranscript(2000, 200, 400);
  // report overlaps its drawing thread with check's reading: the ratio depends on a second core being free
  const loadBefore = os.loadavg()[0]!;
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-bench-report-'));
  try {
    const phasesFile = path.join(out, 'phases.jsonl');
    // the first run after `npm ci`: no bundle yet (removed here, so it is measured whatever ran before)
    fs.rmSync(CACHE, { recursive: true, force: true });
    const cold = timed(['report', big, '--incident', '1', '--out', path.join(out, 'cold')], phasesFile);
    // alternated, so a change in the machine's load falls on both alike; best of 3 each
    const check: number[] = [];
    const report: { ms: number; phases: Phase[] }[] = [];
    const html: number[] = [];
    // the same report with its charts drawn only once the file is read (as before they were
    // drawn early, docs/reports.md "Speed"): what drawing them while the file is read gains
    const atEnd: number[] = [];
    for (let i = 0; i < 3; i++) {
      check.push(timed(['check', big, '--json']).ms);
      report.push(timed(['report', big, '--incident', '1', '--out', path.join(out, 'md')], phasesFile));
      html.push(timed(['report', big, '--incident', '1', '--format', 'html', '--out', path.join(out, 'html')]).ms);
      atEnd.push(timed(['report', big, '--incident', '1', '--out', path.join(out, 'end')], undefined, { CONTEXT_HEALTH_EARLY_CHARTS: '0' }).ms);
    }
    const best = (xs: number[]): number => Math.min(...xs);
    const bestReport = report.reduce((a, b) => (b.ms < a.ms ? b : a));
    const bestCheck = best(check);
    console.log(
      `${os.availableParallelism()} cores, load average ${loadBefore.toFixed(2)} before, ${os.loadavg()[0]!.toFixed(2)} after (report needs a second free core)`,
    );
    console.log(`check --json:                 ${bestCheck.toFixed(0).padStart(6)} ms (best of 3)`);
    console.log(
      `report --incident 1 (md+PNG): ${bestReport.ms.toFixed(0).padStart(6)} ms, ratio to check ${(bestReport.ms / bestCheck).toFixed(2)} (goal ≤ 1.3; warm: bundles built)`,
    );
    console.log(`report --format html:         ${best(html).toFixed(0).padStart(6)} ms, ratio to check ${(best(html) / bestCheck).toFixed(2)}`);
    console.log(
      `report --incident 1, charts drawn only at the end (CONTEXT_HEALTH_EARLY_CHARTS=0): ${best(atEnd).toFixed(0)} ms, ratio to check ${(best(atEnd) / bestCheck).toFixed(2)}`,
    );
    const built = cold.phases.find((p) => p.phase.startsWith('renderer loaded'));
    console.log(
      `first run after npm ci (builds the bundles): ${cold.ms.toFixed(0)} ms, ratio ${(cold.ms / bestCheck).toFixed(2)}` +
        (built === undefined ? '' : ` (bundles ready at ${built.at.toFixed(0)} ms); not in the ratio above`),
    );
    console.log(
      `where the best report run's time went: when each phase ended (ms since spawn) and the CPU time its thread spent in it\n` +
        `(cli = the CLI's thread, draw = the drawing thread; resvg rasterises on libuv's threads, not counted; CPU time holds on a busy machine, wall time does not):`,
    );
    console.log(breakdown(bestReport.phases, bestReport.ms));
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchReport();
