// The package's start-up (issue 22, "Starts fast"), with the compiled JavaScript that
// `npm pack` ships (scripts/build-package.ts, rebuilt here first, without the dashboard):
//   cold `check --json` of a small file against `node -e 0`, each a fresh process, alternated
//   in one run (goal ≤ 2.5×), and the same check through the clone's tsx path for comparison;
//   `report --incident 1` against `check --json` on the bench transcript (goal ≤ 1.3×).
// The compiled CLI runs as installed: the package's launcher in a folder with no sources
// beside it, whose build/ is this clone's (a symlink), so the bin takes its compiled path.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildPackage } from '../scripts/build-package.ts';
import { benchTranscript } from './transcripts.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const ROUNDS = 15;

/**
 * Loaded first by a timed run (--import): writes the process's CPU time (every thread, and
 * resvg's on libuv's threads) at exit. On a machine shared with other jobs the wall time of
 * `report`, which draws on a second core while `check`'s reading runs, swings with the load;
 * its CPU time does not, and says what a free core would hide.
 */
const CPU_PRELOAD =
  'data:text/javascript,' +
  encodeURIComponent(
    "import fs from 'node:fs'; process.on('exit', () => { const u = process.cpuUsage(); fs.writeFileSync(process.env.CH_BENCH_CPU, String((u.user + u.system) / 1000)); });",
  );

interface Timed {
  ms: number;
  cpuMs: number;
}

function timed(args: string[], cwd: string): Timed {
  const cpuFile = path.join(os.tmpdir(), `ch-bench-cpu-${process.pid}`);
  try {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, ['--import', CPU_PRELOAD, ...args], {
      cwd,
      env: { ...process.env, CH_BENCH_CPU: cpuFile },
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    });
    const took = performance.now() - t0;
    // a failed run writes the file too (on exit): removed below all the same
    if (r.status !== 0 && r.status !== 1) throw new Error(`node ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
    return { ms: took, cpuMs: Number(fs.readFileSync(cpuFile, 'utf8')) };
  } finally {
    fs.rmSync(cpuFile, { force: true });
  }
}

function ms(args: string[], cwd: string): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const took = performance.now() - t0;
  if (r.status !== 0 && r.status !== 1) throw new Error(`node ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return took;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
};

/** a folder laid out as the installed package: bin/ and build/, no src/ */
export function packageLike(): { dir: string; bin: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-bench-startup-'));
  fs.mkdirSync(path.join(dir, 'bin'));
  fs.copyFileSync(path.join(ROOT, 'bin/context-health.mjs'), path.join(dir, 'bin/context-health.mjs'));
  fs.symlinkSync(path.join(ROOT, 'build'), path.join(dir, 'build'));
  return { dir, bin: path.join(dir, 'bin/context-health.mjs') };
}

export async function benchStartup(): Promise<void> {
  console.log('\n== startup: the compiled package (what npm pack ships) ==');
  await buildPackage({ dashboard: false });
  const pkg = packageLike();
  try {
    const small = benchTranscript(60, 20, 100);
    const cloneBin = path.join(ROOT, 'bin/context-health.mjs');
    // one warm-up each, for the file system cache; then alternated so load changes fall on all alike
    ms(['-e', '0'], pkg.dir);
    ms([pkg.bin, 'check', small, '--json'], pkg.dir);
    const empty: number[] = [];
    const compiled: number[] = [];
    const viaTsx: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      empty.push(ms(['-e', '0'], pkg.dir));
      compiled.push(ms([pkg.bin, 'check', small, '--json'], pkg.dir));
      if (i < 5) viaTsx.push(ms([cloneBin, 'check', small, '--json'], ROOT));
    }
    const base = median(empty);
    console.log(`small file: ${path.relative(ROOT, small)} (${(fs.statSync(small).size / 1e3).toFixed(0)} kB); medians of ${ROUNDS} cold processes each`);
    console.log(`node -e 0:                         ${base.toFixed(0).padStart(5)} ms`);
    console.log(
      `check --json, compiled (package):  ${median(compiled).toFixed(0).padStart(5)} ms, ratio to node -e 0 ${(median(compiled) / base).toFixed(2)} (goal ≤ 2.5)`,
    );
    console.log(
      `check --json, clone (tsx):         ${median(viaTsx).toFixed(0).padStart(5)} ms, ratio to node -e 0 ${(median(viaTsx) / base).toFixed(2)} (median of 5)`,
    );

    const big = benchTranscript(2000, 200, 400);
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-bench-startup-report-'));
    try {
      // the first report of an installed package: no V8 code cache of the drawing bundle yet
      fs.rmSync(path.join(ROOT, 'build/cli/draw.cjs.v8cache'), { force: true });
      const first = timed([pkg.bin, 'report', big, '--incident', '1', '--out', path.join(out, 'first')], pkg.dir);
      const check: Timed[] = [];
      const report: Timed[] = [];
      for (let i = 0; i < 3; i++) {
        check.push(timed([pkg.bin, 'check', big, '--json'], pkg.dir));
        report.push(timed([pkg.bin, 'report', big, '--incident', '1', '--out', path.join(out, 'md')], pkg.dir));
      }
      const best = (runs: Timed[], key: keyof Timed): number => Math.min(...runs.map((r) => r[key]));
      const [checkMs, reportMs] = [best(check, 'ms'), best(report, 'ms')];
      const [checkCpu, reportCpu] = [best(check, 'cpuMs'), best(report, 'cpuMs')];
      console.log(`bench transcript: ${path.relative(ROOT, big)}; best of 3, ${os.availableParallelism()} cores, load average ${os.loadavg()[0]!.toFixed(2)}`);
      console.log(`check --json, compiled:            ${checkMs.toFixed(0).padStart(5)} ms (CPU ${checkCpu.toFixed(0)} ms)`);
      console.log(
        `report --incident 1, compiled:     ${reportMs.toFixed(0).padStart(5)} ms, ratio to check ${(reportMs / checkMs).toFixed(2)} (goal ≤ 1.3; CPU ${reportCpu.toFixed(0)} ms, ` +
          `of which beyond check's ${(reportCpu - checkCpu).toFixed(0)} ms, run on the second core while the file is read when one is free)`,
      );
      console.log(
        `its first run (no code cache yet): ${first.ms.toFixed(0).padStart(5)} ms, ratio to check ${(first.ms / checkMs).toFixed(2)} (CPU ${first.cpuMs.toFixed(0)} ms)`,
      );
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  } finally {
    fs.rmSync(pkg.dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchStartup();
