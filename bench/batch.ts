// `npm run bench -- batch` (issue 37): `check DIR` over a generated folder of Claude Code
// sessions like a week of a user's (150 files of 0.5-4 MB, with compactions and file reads,
// ~330 MB; CONTEXT_HEALTH_BENCH_BATCH_FILES=N for a smaller folder while iterating;
// CONTEXT_HEALTH_BENCH_BATCH_DIR=DIR for a folder of your own sessions instead, read as `check
// DIR` reads it, nothing written there), with the
// compiled package (scripts/build-package.ts, rebuilt here first, without the dashboard), in a
// temporary folder removed afterwards. One run prints:
//   - check DIR's throughput against the one-core parse floor (one process reading every file
//     and JSON.parse-ing every line), goal ≥ 0.5;
//   - against one process per file (`check FILE` for each), goal ≥ 10×: timed on a
//     sample of the files (every k-th by size) and extrapolated by bytes, as it says;
//   - its peak RSS against `check` of the largest file alone, goal ≤ 1.5×;
//   - a single 4 MB session, cold: median of 5 alternated runs, against the package of
//     CONTEXT_HEALTH_BENCH_BASELINE (a folder with bin/ and build/ of an earlier commit, built
//     the same way) when given, goal ≤ half;
//   - the load average (2 shared cores: quote the ratios, not the times).
// The floor, check DIR and the largest file alone run ROUNDS times each, the floor alternated
// with check DIR, and the ratios are of their medians (the range printed beside each).
// Each of the four figures but the floor twice: `check` as typed (the human output, which the
// goals name) and `check --json` (which computes every score figure).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildPackage } from '../scripts/build-package.ts';
import { batchFiles } from '../src/cli/batchFiles.ts';
import { writeClaudeCodeSession } from './claudeCodeTranscript.ts';
import { loadAverage } from './cpu.ts';
import { packageLike } from './startup.ts';

const PEAK_RSS = path.resolve(import.meta.dirname, 'peakRss.mjs');

interface Ran {
  ms: number;
  rssMiB: number;
}

/** One child to completion: its wall time (spawn to exit) and peak RSS (peakRss.mjs). */
function ran(args: string[], cwd: string): Ran {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--import', PEAK_RSS, ...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', maxBuffer: 1 << 26 });
  const ms = performance.now() - t0;
  if (r.status !== 0 && r.status !== 1) throw new Error(`node ${args.join(' ')} failed (${r.status}): ${r.stderr.slice(0, 2000)}`);
  const m = /peak-rss-bytes (\d+)/.exec(r.stderr);
  return { ms, rssMiB: m === null ? Number.NaN : Number(m[1]) / 2 ** 20 };
}

/**
 * The parse floor: every file read and every line JSON.parse-d, in one process, on one core.
 * A whole-document file (a `.json` or `.traj`, often pretty-printed) that is not one record
 * a line is parsed whole; a `.gz` is gunzipped first; an OpenHands conversation folder is
 * its event files.
 */
const FLOOR = `
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
let n = 0;
const read = (f) => {
  if (fs.statSync(f).isDirectory()) {
    const events = path.join(f, 'events');
    for (const e of fs.existsSync(events) ? fs.readdirSync(events) : []) read(path.join(events, e));
    return;
  }
  const bytes = fs.readFileSync(f);
  const text = (f.endsWith('.gz') ? zlib.gunzipSync(bytes) : bytes).toString('utf8');
  const lines = text.split('\\n');
  let perLine = true;
  try {
    JSON.parse(lines[0]);
  } catch {
    perLine = false;
  }
  // a bad line (a partial last one) costs its parse and is passed over, as check does
  if (perLine) {
    for (const line of lines) if (line !== '') { try { JSON.parse(line); n++; } catch {} }
  } else {
    try { JSON.parse(text); n++; } catch {}
  }
};
for (const f of JSON.parse(process.argv[1])) read(f);
if (n < 0) console.log(n);
`;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/** How many times the floor, check DIR and check of the largest file each run: one run's ratio moved ±10% on the shared machine. */
const ROUNDS = 3;

/** The median of each figure (time and peak RSS apart: they need not come from the same run). */
const medianRan = (rs: readonly Ran[]): Ran => ({ ms: median(rs.map((r) => r.ms)), rssMiB: median(rs.map((r) => r.rssMiB)) });

/** "(range a-b, n runs)" of one figure, in its unit as printed. */
function spread(rs: readonly Ran[], key: keyof Ran): string {
  const xs = rs.map((r) => r[key]);
  const show = (x: number): string => (key === 'ms' ? (x / 1000).toFixed(2) : x.toFixed(0));
  return `(${show(Math.min(...xs))}-${show(Math.max(...xs))} over ${rs.length})`;
}

/** A session of about `bytes` (2,835 bytes per call at 1,500-character results), its own id. */
function callsFor(bytes: number): number {
  return Math.max(50, Math.round(bytes / 2835));
}

/** Bytes of a file, or of an OpenHands conversation folder's event files. */
function bytesOf(file: string): number {
  const st = fs.statSync(file);
  if (!st.isDirectory()) return st.size;
  const events = path.join(file, 'events');
  return fs.existsSync(events) ? fs.readdirSync(events).reduce((n, e) => n + fs.statSync(path.join(events, e)).size, 0) : 0;
}

export async function benchBatch(): Promise<void> {
  const own = process.env.CONTEXT_HEALTH_BENCH_BATCH_DIR;
  const count = Number(process.env.CONTEXT_HEALTH_BENCH_BATCH_FILES ?? 150);
  console.log(
    own === undefined
      ? `\n== batch: check over a folder of ${count} Claude Code sessions (the compiled package) ==`
      : `\n== batch: check over ${own}, the transcripts check reads in it (the compiled package) ==`,
  );
  await buildPackage({ dashboard: false });
  const pkg = packageLike();
  const made = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-bench-batch-'));
  const dir = own === undefined ? made : path.resolve(own);
  try {
    // sizes spread evenly over 0.5-4 MB, in an order that is not by size; two project folders
    const files: string[] = [];
    if (own !== undefined) {
      const listed = await batchFiles([dir]);
      files.push(...listed.files.map((f) => f.file));
      if (files.length === 0) throw new Error(`${own}: no transcript that check reads (${listed.skipped} other files)`);
    } else {
      for (let i = 0; i < count; i++) {
        const bytes = 0.5e6 + ((i * 37) % count) * (3.5e6 / Math.max(1, count - 1));
        const file = path.join(dir, `project-${i % 2}`, `session-${String(i).padStart(3, '0')}.jsonl`);
        fs.mkdirSync(path.dirname(file), { recursive: true });
        writeClaudeCodeSession(file, callsFor(bytes), 1500, true, `bench-batch-${i}`);
        files.push(file);
      }
    }
    const sizes = new Map(files.map((f) => [f, bytesOf(f)]));
    const total = [...sizes.values()].reduce((a, b) => a + b, 0);
    const bySize = [...files].sort((a, b) => sizes.get(a)! - sizes.get(b)!);
    const largest = bySize[bySize.length - 1]!;
    console.log(
      `folder: ${files.length} files, ${(total / 1e6).toFixed(0)} MB (${(sizes.get(bySize[0]!)! / 1e6).toFixed(2)}-${(sizes.get(largest)! / 1e6).toFixed(2)} MB each)`,
    );

    const floorOnce = (): Ran => ran(['-e', FLOOR, JSON.stringify(files)], pkg.dir);
    floorOnce(); // the file system cache warm for all alike
    const floors: Ran[] = [];
    const mbs = (ms: number): string => `${(total / 1e6 / (ms / 1000)).toFixed(0)} MB/s`;
    // a single 4 MB session, for the cold figures
    const four = path.join(made, 'single-4mb.jsonl');
    writeClaudeCodeSession(four, callsFor(4e6), 1500, true, 'bench-batch-4mb');
    const baseline = process.env.CONTEXT_HEALTH_BENCH_BASELINE;
    const baseBin = baseline === undefined ? null : path.join(baseline, 'bin/context-health.mjs');
    // The goals name `check DIR` and `check FILE` as typed, whose human output reads no
    // reference score of an agent's session (docs/engine.md "Scores nobody reads"); `--json`
    // prints every turn's score figures, so it computes them. Both are measured.
    // one process per file: every k-th file by size, extrapolated by bytes
    const step = Math.max(1, Math.floor(files.length / 15));
    const sample = bySize.filter((_, i) => i % step === Math.floor(step / 2));
    const sampleBytes = sample.reduce((n, f) => n + sizes.get(f)!, 0);
    for (const output of [[], ['--json']]) {
      const check = (input: string, bin = pkg.bin): string[] => [bin, 'check', ...output, '--fail-on', 'never', input];
      console.log(output.length === 0 ? 'check as typed (the human output):' : 'check --json (every score figure computed):');
      // ROUNDS of each, the floor alternated with check DIR, so that a change in the shared
      // machine's speed during the run falls on both sides of the ratio; medians, with the spread
      const batches: Ran[] = [];
      const alones: Ran[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        if (output.length === 0) floors.push(floorOnce());
        batches.push(ran(check(dir), pkg.dir));
        alones.push(ran(check(largest), pkg.dir));
      }
      const floor = medianRan(floors);
      const batch = medianRan(batches);
      const alone = medianRan(alones);
      if (output.length === 0)
        console.log(`  parse floor (one process, JSON.parse every line): ${(floor.ms / 1000).toFixed(2)} s, ${mbs(floor.ms)} ${spread(floors, 'ms')}`);
      const sampleMs = sample.reduce((n, f) => n + ran(check(f), pkg.dir).ms, 0);
      const perFileMs = sampleMs * (total / sampleBytes);
      console.log(
        `  check DIR (${os.availableParallelism()} cores):                ${(batch.ms / 1000).toFixed(2)} s ${spread(batches, 'ms')}, ${mbs(batch.ms)}: ${(floor.ms / batch.ms).toFixed(2)} of the floor's throughput (goal ≥ 0.5)`,
      );
      console.log(
        `  one process per file:                        ${(perFileMs / 1000).toFixed(1)} s, extrapolated by bytes from ${sample.length} files (${(sampleMs / 1000).toFixed(1)} s for ${(sampleBytes / 1e6).toFixed(0)} MB): check DIR ${(perFileMs / batch.ms).toFixed(1)}× faster (goal ≥ 10×)`,
      );
      console.log(
        `  peak RSS: check DIR ${batch.rssMiB.toFixed(0)} MiB ${spread(batches, 'rssMiB')}, check of the largest file alone ${alone.rssMiB.toFixed(0)} MiB ${spread(alones, 'rssMiB')}: ${(batch.rssMiB / alone.rssMiB).toFixed(2)}× (goal ≤ 1.5)`,
      );
      // cold: node -e 0, this package and the baseline's, alternated
      const empty: number[] = [];
      const now: number[] = [];
      const before: number[] = [];
      for (let i = 0; i < 5; i++) {
        empty.push(ran(['-e', '0'], pkg.dir).ms);
        now.push(ran(check(four), pkg.dir).ms);
        if (baseBin !== null) before.push(ran(check(four, baseBin), pkg.dir).ms);
      }
      const line = `  single ${(fs.statSync(four).size / 1e6).toFixed(1)} MB session, cold (median of 5): node -e 0 ${median(empty).toFixed(0)} ms, check ${median(now).toFixed(0)} ms`;
      console.log(
        baseBin === null
          ? `${line} (set CONTEXT_HEALTH_BENCH_BASELINE to compare with an earlier build)`
          : `${line}, the baseline's ${median(before).toFixed(0)} ms: ${(median(now) / median(before)).toFixed(2)} of it (goal ≤ 0.5)`,
      );
    }
    console.log(`load average ${loadAverage()}`);
  } finally {
    fs.rmSync(made, { recursive: true, force: true });
    fs.rmSync(pkg.dir, { recursive: true, force: true });
  }
}
