// bench/stages.ts's stages, this checkout's code (A) against another copy of the sources (B,
// e.g. `git archive <commit> src | tar -x -C /tmp/base`, with node_modules beside it), in one
// process, passes alternated A B A B: on a shared machine whose load swings from one run to
// the next, two runs of stages.ts minutes apart differ by more than the changes measured
// (docs/perf-log/2026-12-03-incremental.md). Each pass's CPU time (process.cpuUsage: this
// process has one thread) per stage; printed: the median over the passes after the first two
// of each, and the median of the pass-by-pass ratios A/B.
//
// The copy loaded first runs faster: A against an identical copy of itself gave A/B 0.87-0.90
// over 13 pairs. So run it twice, with `b-first` the second time (B is loaded first), and
// quote the geometric mean of the two ratios, which cancels that advantage.
//
//   node --import tsx bench/stagesPaired.ts FILE BASE_ROOT [PASSES] [b-first]
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadAverage } from './cpu.ts';

interface Stages {
  Engine: typeof import('../src/core/engine.ts').Engine;
  TranscriptPipeline: typeof import('../src/ingest/adapters/pipeline.ts').TranscriptPipeline;
  ScoringStage: typeof import('../src/ingest/adapters/scoringStage.ts').ScoringStage;
  nodeSha256: typeof import('../src/node/platform.ts').nodeSha256;
}

async function stagesOf(root: string): Promise<Stages> {
  const at = (p: string): string => pathToFileURL(path.join(root, p)).href;
  const [{ Engine }, { TranscriptPipeline }, { ScoringStage }, { nodeSha256 }] = await Promise.all([
    import(at('src/core/engine.ts')) as Promise<typeof import('../src/core/engine.ts')>,
    import(at('src/ingest/adapters/pipeline.ts')) as Promise<typeof import('../src/ingest/adapters/pipeline.ts')>,
    import(at('src/ingest/adapters/scoringStage.ts')) as Promise<typeof import('../src/ingest/adapters/scoringStage.ts')>,
    import(at('src/node/platform.ts')) as Promise<typeof import('../src/node/platform.ts')>,
  ]);
  return { Engine, TranscriptPipeline, ScoringStage, nodeSha256 };
}

const [file, baseRoot, passesArg = '9', order = 'a-first'] = process.argv.slice(2);
if (file === undefined || baseRoot === undefined) throw new Error('usage: stagesPaired.ts FILE BASE_ROOT [PASSES]');
const lines = fs
  .readFileSync(file, 'utf8')
  .split('\n')
  .filter((l) => l !== '');
const records = (): unknown[] => lines.map((l) => JSON.parse(l) as unknown);
const cpuMs = (f: () => void): number => {
  const t0 = process.cpuUsage();
  f();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
};

/** One pass: the adapter and the reference scorer, then the engine over the scored messages (as check runs them, apart). */
function pass(s: Stages): { scoring: number; engine: number } {
  const recs = records();
  const scored: unknown[] = [];
  const sink = { text(): void {}, value: (v: unknown): void => void scored.push(v), error(): void {} };
  const scoring = cpuMs(() => {
    const pipeline = new s.TranscriptPipeline(new s.ScoringStage(sink, { mode: 'auto', sha256: s.nodeSha256 }));
    recs.forEach((r, i) => pipeline.parsed(r, i + 1));
    pipeline.end();
  });
  const engine = cpuMs(() => {
    const e = new s.Engine({ sha256: s.nodeSha256 });
    scored.forEach((m, i) => e.ingestParsedLine(m, i + 1, false));
  });
  return { scoring, engine };
}

const bFirst = order === 'b-first';
const b0 = bFirst ? await stagesOf(path.resolve(baseRoot)) : null;
const a = await stagesOf(path.resolve(import.meta.dirname, '..'));
const b = b0 ?? (await stagesOf(path.resolve(baseRoot)));
const passes = Number(passesArg);
const runs: { a: { scoring: number; engine: number }; b: { scoring: number; engine: number } }[] = [];
for (let i = 0; i < passes; i++) {
  // the order within a pair alternates too, so neither side always runs second
  if (i % 2 === 0) runs.push({ a: pass(a), b: pass(b) });
  else {
    const bb = pass(b);
    runs.push({ a: pass(a), b: bb });
  }
}
const kept = runs.slice(2);
const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
const line = (k: 'scoring' | 'engine'): string =>
  `${k} A ${median(kept.map((r) => r.a[k])).toFixed(0)} ms, B ${median(kept.map((r) => r.b[k])).toFixed(0)} ms, A/B ${median(kept.map((r) => r.a[k] / r.b[k])).toFixed(3)}`;
console.log(`${path.basename(file)}, ${kept.length} pairs, ${bFirst ? 'B' : 'A'} loaded first: ${line('scoring')} | ${line('engine')} | load ${loadAverage()}`);
