// The per-turn stages of `check` timed apart, in one process, on one transcript
// (docs/perf-log/2026-12-03-per-turn.md): the adapter alone, the adapter and the reference
// scorer, validation of the scored messages, and the engine over them (validation, analysis,
// replay fingerprint). Seven passes each; the median of the last five is printed, and the
// first pass's time beside it (V8 still compiling). The messages of all turns are held for
// the later stages, so the adapter's figures include the garbage collector's work on them.
//
//   node --import tsx bench/stages.ts FILE [LABEL]
import fs from 'node:fs';
import { Engine } from '../src/core/engine.ts';
import { validateMessage } from '../src/core/validate.ts';
import { TranscriptPipeline } from '../src/ingest/adapters/pipeline.ts';
import { ScoringStage } from '../src/ingest/adapters/scoringStage.ts';
import { nodeSha256 } from '../src/node/platform.ts';
import { loadAverage } from './cpu.ts';

const [file, label = ''] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: stages.ts FILE [LABEL]');
const lines = fs
  .readFileSync(file, 'utf8')
  .split('\n')
  .filter((l) => l !== '');
const records = (): unknown[] => lines.map((l) => JSON.parse(l) as unknown);
const timed = (f: () => void): number => {
  const t0 = performance.now();
  f();
  return performance.now() - t0;
};
const collect = (into: unknown[]): { text(): void; value(v: unknown): void; error(): void } => ({ text() {}, value: (v) => into.push(v), error() {} });
const feed = (pipeline: TranscriptPipeline, recs: unknown[]): void => {
  recs.forEach((r, i) => pipeline.parsed(r, i + 1));
  pipeline.end();
};

const ms: Record<string, number[]> = { adapter: [], 'adapter+scorer': [], validation: [], engine: [] };
for (let pass = 0; pass < 7; pass++) {
  const adapted: unknown[] = [];
  let recs = records();
  ms.adapter!.push(timed(() => feed(new TranscriptPipeline(collect(adapted)), recs)));
  recs = records();
  const scored: unknown[] = [];
  ms['adapter+scorer']!.push(timed(() => feed(new TranscriptPipeline(new ScoringStage(collect(scored), { mode: 'auto', sha256: nodeSha256 })), recs)));
  ms.validation!.push(
    timed(() => {
      for (const m of scored) validateMessage(m, false);
    }),
  );
  ms.engine!.push(
    timed(() => {
      const engine = new Engine({ sha256: nodeSha256 });
      scored.forEach((m, i) => engine.ingestParsedLine(m, i + 1, false));
    }),
  );
}
const median = (xs: number[]): number => [...xs.slice(2)].sort((a, b) => a - b)[2]!;
console.log(
  `${label} ${Object.entries(ms)
    .map(([k, v]) => `${k} ${median(v).toFixed(0)} ms (first ${v[0]!.toFixed(0)})`)
    .join(' | ')} | load ${loadAverage()}`,
);
