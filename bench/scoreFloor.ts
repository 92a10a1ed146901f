// The score-bound floor of `check` on one transcript (issue 37): the work no engine can skip
// while the reference scores are contract §7's, BM25 over every live span on every turn,
// normalised by the turn's best and rounded, with contract §3's statistics over them. The
// adapter runs first (not timed), every span's term counts are made once (not timed), and
// then each pass times, turn by turn: the session's task (the last user span), its query,
// the incremental BM25 index (Bm25Buffer) scoring the turn's spans, the normalisation and
// scoreStats. Six passes; the last ones show V8's optimised code. Printed per pass: the
// time, its share that is BM25 alone, and the time per span per turn.
//
//   node --import tsx bench/scoreFloor.ts FILE
import fs from 'node:fs';
import { Bm25Buffer, prepareQueryOf, TermDictionary, termCounts, type TermCounts } from '../src/core/bm25.ts';
import { scoreStats } from '../src/core/stats.ts';
import type { Snapshot } from '../src/core/wire.ts';
import { TranscriptPipeline } from '../src/ingest/adapters/pipeline.ts';
import { ScoringStage } from '../src/ingest/adapters/scoringStage.ts';
import { nodeSha256 } from '../src/node/platform.ts';
import { loadAverage } from './cpu.ts';

const file = process.argv[2];
if (file === undefined) throw new Error('usage: scoreFloor.ts FILE');
const snapshots: Snapshot[] = [];
const sink = {
  text(): void {},
  value: (v: unknown): void => {
    if ((v as { type?: unknown }).type === 'snapshot') snapshots.push(v as Snapshot);
  },
  error(): void {},
};
// `harness`: the adapter's messages as they are, no reference scores (this bench makes them)
const pipeline = new TranscriptPipeline(new ScoringStage(sink, { mode: 'harness', sha256: nodeSha256 }));
fs.readFileSync(file, 'utf8')
  .split('\n')
  .filter((l) => l !== '')
  .forEach((l, i) => pipeline.parsed(JSON.parse(l) as unknown, i + 1));
pipeline.end();
const spanTurns = snapshots.reduce((n, s) => n + s.spans.length, 0);

const round = (x: number): number => Math.round(x * 1e6) / 1e6;
for (let pass = 0; pass < 6; pass++) {
  const dictionary = new TermDictionary();
  const byText = new Map<string, TermCounts>();
  const docsOf = snapshots.map((s) =>
    s.spans.map((span) => {
      const key = `${span.span_id}\u0000${span.text}`;
      let d = byText.get(key);
      if (d === undefined) byText.set(key, (d = termCounts(span.text, dictionary)));
      return d;
    }),
  );
  const buffer = new Bm25Buffer(dictionary);
  let bm25Ms = 0;
  let check = 0;
  const t0 = performance.now();
  for (let t = 0; t < snapshots.length; t++) {
    const docs = docsOf[t]!;
    const spans = snapshots[t]!.spans;
    let task = docs[0]!;
    for (let i = spans.length - 1; i >= 0; i--) {
      if (spans[i]!.role === 'user') {
        task = docs[i]!;
        break;
      }
    }
    const query = prepareQueryOf([task], dictionary);
    const tb = performance.now();
    const raw = buffer.score(query, docs);
    bm25Ms += performance.now() - tb;
    let best = 0;
    for (const x of raw) if (x > best) best = x;
    const scores = new Float64Array(raw.length);
    for (let i = 0; i < raw.length; i++) scores[i] = best > 0 ? round(raw[i]! / best) : 0;
    check += scoreStats(scores)?.mean ?? 0;
  }
  const ms = performance.now() - t0;
  console.log(
    `pass ${pass + 1}: ${ms.toFixed(1)} ms (BM25 alone ${bm25Ms.toFixed(1)} ms) over ${snapshots.length} turns, ${spanTurns} span-turns: ` +
      `${((ms * 1e6) / spanTurns).toFixed(0)} ns per span per turn${check < 0 ? '' : ''}`,
  );
}
console.log(`load ${loadAverage()}`);
