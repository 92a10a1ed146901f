// The engine alone (validation, analysis, replay fingerprint), this checkout's (A) against
// another copy of the sources (B, as for bench/stagesPaired.ts), over the same scored
// messages: the adapter and the reference scorer run once, then the two engines alternate,
// A B B A …, many passes. Quicker than stagesPaired.ts when only the engine changed, so more
// pairs fit in a quiet minute. Printed: each side's median CPU per pass and the median of
// the pass-by-pass ratios A/B. As with stagesPaired.ts, run it both ways (`b-first`) and
// quote the geometric mean of the two ratios: the copy loaded first runs faster.
//
//   node --import tsx bench/enginePaired.ts FILE BASE_ROOT [PASSES] [b-first]
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { TranscriptPipeline } from '../src/ingest/adapters/pipeline.ts';
import { ScoringStage } from '../src/ingest/adapters/scoringStage.ts';
import { nodeSha256 } from '../src/node/platform.ts';
import { loadAverage } from './cpu.ts';

type EngineClass = typeof import('../src/core/engine.ts').Engine;

const [file, baseRoot, passesArg = '15', order = 'a-first'] = process.argv.slice(2);
if (file === undefined || baseRoot === undefined) throw new Error('usage: enginePaired.ts FILE BASE_ROOT [PASSES] [b-first]');
const engineOf = async (root: string): Promise<EngineClass> =>
  ((await import(pathToFileURL(path.join(root, 'src/core/engine.ts')).href)) as typeof import('../src/core/engine.ts')).Engine;

const scored: unknown[] = [];
const pipeline = new TranscriptPipeline(
  new ScoringStage({ text(): void {}, value: (v: unknown): void => void scored.push(v), error(): void {} }, { mode: 'auto', sha256: nodeSha256 }),
);
fs.readFileSync(file, 'utf8')
  .split('\n')
  .filter((l) => l !== '')
  .forEach((l, i) => pipeline.parsed(JSON.parse(l) as unknown, i + 1));
pipeline.end();

const cpuMs = (f: () => void): number => {
  const t0 = process.cpuUsage();
  f();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
};
const pass = (E: EngineClass): number =>
  cpuMs(() => {
    const e = new E({ sha256: nodeSha256 });
    scored.forEach((m, i) => e.ingestParsedLine(m, i + 1, false));
  });

const bFirst = order === 'b-first';
const b0 = bFirst ? await engineOf(path.resolve(baseRoot)) : null;
const A = await engineOf(path.resolve(import.meta.dirname, '..'));
const B = b0 ?? (await engineOf(path.resolve(baseRoot)));
const runs: { a: number; b: number }[] = [];
for (let i = 0; i < Number(passesArg); i++) {
  if (i % 2 === 0) runs.push({ a: pass(A), b: pass(B) });
  else {
    const b = pass(B);
    runs.push({ a: pass(A), b });
  }
}
const kept = runs.slice(2);
const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
console.log(
  `${path.basename(file)}, engine, ${kept.length} pairs, ${bFirst ? 'B' : 'A'} loaded first: A ${median(kept.map((r) => r.a)).toFixed(0)} ms, B ${median(kept.map((r) => r.b)).toFixed(0)} ms, A/B ${median(kept.map((r) => r.a / r.b)).toFixed(3)} | load ${loadAverage()}`,
);
