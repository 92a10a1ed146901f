// Peak memory of the CLI on generated hostile inputs (issue 39, "Bounded memory", "Bounded
// amplification"), each run in a child that reports its own peak RSS (peakRss.mjs). RSS
// includes what Node and the CLI take before reading a byte (~100 MB here), so the ratio
// printed is the growth over that baseline (the same command on a file of a few hundred
// bytes), divided by the input's size: `npm run bench -- traj-memory` and `-- report-huge`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hugeCompaction } from './hugeCompaction.ts';
import { writeTraj } from './sweAgentTraj.ts';
import { OUT } from './transcripts.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin/context-health.mjs');
const PEAK_RSS = path.join(import.meta.dirname, 'peakRss.mjs');

/** One CLI run to its end: wall time and peak RSS. */
function run(args: string[]): { ms: number; rss: number } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--import', PEAK_RSS, BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const ms = performance.now() - t0;
  const m = /peak-rss-bytes (\d+)/.exec(r.stderr);
  if (m === null || (r.status !== 0 && r.status !== 1)) throw new Error(`context-health ${args.join(' ')} failed (${r.status}): ${r.stderr.slice(0, 500)}`);
  return { ms, rss: Number(m[1]) };
}

const mib = (b: number): string => `${(b / 2 ** 20).toFixed(1)} MiB`;

function report(name: string, file: string, args: (f: string) => string[], baselineFile: string): number {
  const size = fs.statSync(file).size;
  const base = run(args(baselineFile));
  const big = run(args(file));
  const growth = big.rss - base.rss;
  console.log(
    `${name}: ${mib(size)} in, ${(big.ms / 1000).toFixed(1)} s, peak RSS ${mib(big.rss)} (baseline ${mib(base.rss)}); ` +
      `growth ${mib(growth)} = ${(growth / size).toFixed(2)}× the file, whole RSS ${(big.rss / size).toFixed(2)}×; load average ${os.loadavg()[0]!.toFixed(2)}`,
  );
  return growth;
}

/** A pretty-printed ~19 MiB SWE-agent trajectory (the steps' `history` form, and the `query` form): `check --json`. */
export function benchTrajMemory(): void {
  console.log('\n== traj-memory: check --json of a pretty-printed SWE-agent .traj (goal: growth ≤ 4× the file) ==');
  const small = writeTraj(path.join(OUT, 'swe-agent-2x100.traj'), { steps: 2, observationChars: 100 });
  const check = (f: string): string[] => ['check', f, '--json', '--fail-on', 'never'];
  report(
    'history form, 1,100 steps × 8,000 chars',
    writeTraj(path.join(OUT, 'swe-agent-1100x8000.traj'), { steps: 1100, observationChars: 8000 }),
    check,
    small,
  );
  report(
    'query form, 130 steps × 1,000 chars',
    writeTraj(path.join(OUT, 'swe-agent-130x1000-query.traj'), { steps: 130, observationChars: 1000, queries: true }),
    check,
    small,
  );
}

/** A compaction with a 50 MB summary and a 10 MB prompt: `report --compaction 1` (goal: under 10× the input). */
export function benchReportHuge(): void {
  console.log('\n== report-huge: report --compaction 1 of a 50 MB summary with a 10 MB prompt (goal: under 10× the input) ==');
  const summary = Number(process.env.CONTEXT_HEALTH_BENCH_SUMMARY ?? 50_000_000);
  const prompt = Number(process.env.CONTEXT_HEALTH_BENCH_PROMPT ?? 10_000_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-report-huge-'));
  try {
    const small = hugeCompaction(path.join(OUT, 'huge-compaction-100x100.jsonl'), 100, 100);
    const file = hugeCompaction(path.join(OUT, `huge-compaction-${summary}x${prompt}.jsonl`), summary, prompt);
    const size = fs.statSync(file).size;
    let k = 0;
    const args = (f: string, format = 'md'): string[] => ['report', f, '--compaction', '1', '--format', format, '--out', path.join(dir, `r${k++}`)];
    const md = report('report (md)', file, args, small);
    const html = report('report --format html', file, (f) => args(f, 'html'), small);
    // r1 and r3: the big file's report.md and report.html (r0 and r2: the baseline's)
    const written = (name: string): number => fs.statSync(path.join(dir, name)).size;
    console.log(
      `  written: report.md ${mib(written('r1/report.md'))}, report.html ${mib(written('r3/report.html'))} ` +
        `(the summary quoted up to 64 KiB, each item's text carried up to 4,096 characters: src/report/quoteCap.ts)`,
    );
    const check = report('check --json (the same file, for comparison)', file, (f) => ['check', f, '--json', '--fail-on', 'never'], small);
    const ratio = Math.max(md, html) / size;
    console.log(
      `ratio: report's growth ${ratio.toFixed(2)}× the input (goal under 10×: ${ratio < 10 ? 'met' : 'NOT met'}); ` +
        `of it, check's reading and audit ${(check / size).toFixed(2)}×, the report beyond check ${((Math.max(md, html) - check) / size).toFixed(2)}× (the drawing thread's baseline is in report's baseline)`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What the compaction audit's pattern index (src/core/textIndex.ts) holds for 3 MB of prompts
 * (docs/security.md quotes it): the bytes of its typed arrays, counted off the object, so the
 * figure does not depend on when the collector ran. Also what the audit now does with a prompt
 * past 64 Ki code units instead (one KMP pass, 4 bytes a code unit while it runs).
 */
export async function benchTextIndexMemory(): Promise<void> {
  const { PatternSet } = await import('../src/core/textIndex.ts');
  console.log("\n== text-index: bytes the audit's pattern index holds for 3 MB of prompts ==");
  const words = (n: number, seed: number): string => {
    let x = seed;
    const out: string[] = [];
    let len = 0;
    while (len < n) {
      x = (x * 1103515245 + 12345) >>> 0;
      const w = `w${(x % 50_000).toString(36)}`;
      out.push(w);
      len += w.length + 1;
    }
    return out.join(' ').slice(0, n);
  };
  const held = (set: object): number => Object.values(set).reduce((n: number, v: unknown) => n + (ArrayBuffer.isView(v) ? v.byteLength : 0), 0);
  const cases: [string, string[]][] = [
    ['one prompt of 3,000,000 characters', [words(3_000_000, 1)]],
    ['3,000 prompts of 1,000 characters', Array.from({ length: 3000 }, (_, i) => words(1000, i + 7))],
    ['30,000 prompts of 100 characters', Array.from({ length: 30_000 }, (_, i) => words(100, i + 7))],
  ];
  for (const [name, prompts] of cases) {
    const set = new PatternSet(prompts);
    const built = held(set);
    set.take('x');
    const units = prompts.reduce((n, p) => n + p.length, 0);
    console.log(
      `${name}: ${(built / 1e6).toFixed(1)} MB held (${(built / units).toFixed(1)} bytes a code unit), ${(held(set) / 1e6).toFixed(1)} MB once take() is used`,
    );
  }
}
