// Writes the committed sample transcripts of public/samples/ from the scenario generator,
// then runs each one through the engine and writes public/samples/README.md from what the
// engine actually reported, so the README cannot claim a signal a sample does not show.
// Run: node --import tsx scripts/write-samples.ts (or `npm run samples`). Output is
// deterministic: the same code writes the same bytes.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { Engine } from '../src/core/engine.ts';
import { SEVERITY, SIGNALS, type Action, type Signal } from '../src/core/signals.ts';
import type { Message, Snapshot } from '../src/core/wire.ts';
import { allFaults, simulateSession, type ScenarioOptions } from '../src/sim/scenario.ts';
import { TranscriptPipeline } from '../src/ingest/adapters/pipeline.ts';
import { ScoringStage } from '../src/ingest/adapters/scoringStage.ts';
import { codingSession } from '../test/adapters/codingSession.ts';

const OUT = 'public/samples';
/** contract §2: sha256 of the UTF-8 bytes, 64 lowercase hex digits. */
const sha256 = (text: string): string => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

/** Small enough to commit and to load instantly in the dashboard (each file well under 1 MB). */
const SMALL = { spans: 30, textChars: 120 } as const;

function session(opts: ScenarioOptions): Message[] {
  return [...simulateSession(opts, sha256)];
}

const jsonl = (messages: readonly Message[]): string => messages.map((m) => JSON.stringify(m)).join('\n') + '\n';

interface Sample {
  file: string;
  what: string;
  text: string;
  /** written as-is instead of `text` (the gzip) */
  bytes?: Buffer;
  /** another agent's transcript: measured through its adapter, as check reads it */
  adapted?: boolean;
}

const samples: Sample[] = [];
const add = (file: string, what: string, text: string): void => {
  samples.push({ file, what, text });
};

// a coding agent's session first: what most people open the dashboard with (issue 34)
// in a folder of its own: the tests that read every sample of public/samples read the product's own format
samples.push({
  file: 'agents/claude-code-session.jsonl',
  what: 'A Claude Code session as Claude Code writes it (generated: test/adapters/codingSession.ts): file reads and test runs fill the window to 83%, an auto-compaction at turn 13 whose summary drops docs/notes.md, which the agent reads again (a confirmed loss), and a second auto-compaction at turn 24.',
  text: codingSession(),
  adapted: true,
});

add(
  'healthy.jsonl',
  'A correct loop: rewrites recompute and rebind their scores, reports are truthful, the pruner refuses unbound scores and never orphans a summary. No fault or warning.',
  jsonl(session({ seed: 1, sessionId: 'healthy', title: 'Healthy agent loop', turns: 60, ...SMALL })),
);

add(
  'stale-scores.jsonl',
  'Seed 000: rewrites keep the old score and its old hash (turns 15–30), every other turn’s rewrite not reported at all; later a pruner evicts spans while their scores are null (turns 42–50).',
  jsonl(
    session({
      seed: 2,
      sessionId: 'stale-scores',
      title: 'Stale scores: rewritten text, old score',
      turns: 60,
      ...SMALL,
      faults: [
        { fault: 'stale_rewrite', from: 15, to: 30 },
        { fault: 'prune_on_stale', from: 42, to: 50 },
      ],
    }),
  ),
);

add(
  'collapse.jsonl',
  'Seed 002: scores narrow toward 0.5 (from turn 20) and the pinned canaries sink below the median (from turn 24): relevance collapse, verdict freeze; a broken pruner keeps pruning through the freeze (turns 30–42).',
  jsonl(
    session({
      seed: 3,
      sessionId: 'collapse',
      title: 'Relevance collapse: narrowing scores, sinking canary',
      turns: 60,
      ...SMALL,
      faults: [
        { fault: 'narrowing_scores', from: 20, to: 42 },
        { fault: 'sinking_canary', from: 24, to: 42 },
        { fault: 'prune_on_stale', from: 30, to: 42 },
      ],
    }),
  ),
);

add(
  'drift-and-orphans.jsonl',
  'The same span paraphrased over and over without a recompute while mean relevance climbs and tokens fall (turns 12–20); then fan-in summaries whose parents are pruned (turns 32–40).',
  jsonl(
    session({
      seed: 4,
      sessionId: 'drift-and-orphans',
      title: 'Paraphrase drift, then orphaned summaries',
      turns: 55,
      ...SMALL,
      faults: [
        { fault: 'paraphrase_drift', from: 12, to: 20 },
        { fault: 'fanin_orphans', from: 32, to: 40 },
      ],
    }),
  ),
);

const allFaultsMessages = session({
  seed: 5,
  sessionId: 'all-faults',
  title: 'Every fault, one after another',
  turns: 150,
  spans: 16,
  textChars: 64,
  faults: allFaults(150),
});
const allFaultsText = jsonl(allFaultsMessages);
add(
  'all-faults.jsonl',
  'Every fault of the generator in its own window (see allFaults(150) in src/sim/scenario.ts), healthy turns between them.',
  allFaultsText,
);
samples.push({
  file: 'all-faults.jsonl.gz',
  what: 'all-faults.jsonl, gzip-compressed (contract §2: readers accept .jsonl.gz).',
  text: allFaultsText,
  bytes: zlib.gzipSync(Buffer.from(allFaultsText, 'utf8'), { level: 9 }),
});
add(
  'all-faults.json',
  'The same messages as all-faults.jsonl as one JSON array, one message per line (contract §2: readers accept a .json array).',
  '[\n' + allFaultsMessages.map((m) => JSON.stringify(m)).join(',\n') + '\n]\n',
);

{
  // two agents streaming into one transcript: headers first, then their snapshots alternate
  const a = session({ seed: 6, sessionId: 'agent-a', title: 'Agent A (healthy)', turns: 40, ...SMALL, spans: 24 });
  const b = session({
    seed: 7,
    sessionId: 'agent-b',
    title: 'Agent B (stale scores, every other turn number)',
    turns: 40,
    ...SMALL,
    spans: 24,
    turnGap: 2,
    faults: [{ fault: 'stale_rewrite', from: 31, to: 51 }],
  });
  const lines: Message[] = [a[0]!, b[0]!];
  for (let k = 1; k < Math.max(a.length, b.length); k++) {
    if (a[k] !== undefined) lines.push(a[k]!);
    if (b[k] !== undefined) lines.push(b[k]!);
  }
  add(
    'two-sessions-interleaved.jsonl',
    'Two sessions whose lines interleave: agent-a healthy; agent-b with gaps in its turn numbers and stale scores (turns 31–51).',
    jsonl(lines),
  );
}

{
  // contract §2: bad input never stops the reader; each bad line is one input error
  const messages = session({ seed: 8, sessionId: 'bad-lines', title: 'A valid session with bad lines inserted', turns: 40, ...SMALL, spans: 24 });
  const snap = (turn: number): Snapshot => {
    const m = messages.find((x): x is Snapshot => x.type === 'snapshot' && x.turn === turn);
    if (m === undefined) throw new Error(`no turn ${turn}`);
    return m;
  };
  const bad = new Map<number, string[]>(); // inserted before the snapshot of that turn
  bad.set(6, ['{"type":"snapshot","session_id":"bad-lines","turn":6,"spans":[{"span_id":"m1","text":"cut off mid-li']);
  bad.set(10, [JSON.stringify(snap(10)).replace(/"score":[0-9.]+/, '"score":NaN')]);
  const dup = structuredClone(snap(15));
  dup.spans[1]!.span_id = dup.spans[0]!.span_id;
  bad.set(15, [JSON.stringify(dup)]);
  bad.set(21, [JSON.stringify({ ...snap(20), turn: 18 })]);
  bad.set(26, [JSON.stringify({ type: 'heartbeat', session_id: 'bad-lines', turn: 25 })]);
  const lines: string[] = [];
  for (const m of messages) {
    if (m.type === 'snapshot') lines.push(...(bad.get(m.turn) ?? []));
    lines.push(JSON.stringify(m));
  }
  add(
    'with-bad-lines.jsonl',
    'A valid 40-turn session with five bad lines: not JSON (a cut-off line), a NaN score, a duplicate span_id, a turn that does not increase, an unknown message type. Each is one input error; every other line loads.',
    lines.join('\n') + '\n',
  );
}

// ---------------------------------------------------------------- write, then measure with the engine

/** a turn a signal fired on, and that snapshot's position in its session */
interface Hit {
  turn: number;
  index: number;
}

interface Measured {
  sessions: { id: string; turns: number; signals: Map<Signal, Hit[]>; actions: Map<Action, Hit[]> }[];
  errors: { line: number; message: string }[];
}

function measure(text: string, adapted = false): Measured {
  const engine = new Engine({ sha256 });
  const bySession = new Map<string, Measured['sessions'][number]>();
  const errors: Measured['errors'] = [];
  const lines = text.split('\n');
  if (adapted) {
    // contract §7 adapters: the agent's records become snapshots first, scored by the reference (check's default)
    const scoring = new ScoringStage(
      {
        text: (t, n) => take(engine.ingestLine(t, n)),
        value: (v, n, noEscape) => take(engine.ingestParsedLine(v, n, noEscape)),
        error: (line, message) => errors.push({ line, message }),
      },
      { mode: 'auto', sha256 },
    );
    const pipeline = new TranscriptPipeline(scoring);
    lines.forEach((line, k) => {
      if (line !== '' || k < lines.length - 1) pipeline.line(line, k + 1);
    });
    pipeline.end();
  } else if (lines[0] === '[') {
    // the .json array: parse whole, one message per line number
    const arr = JSON.parse(text) as unknown[];
    arr.forEach((v, k) => take(engine.ingestValue(v, k + 1)));
  } else lines.forEach((line, k) => take(engine.ingestLine(line, k + 1)));
  return { sessions: [...bySession.values()], errors };

  function take(o: ReturnType<Engine['ingestLine']>): void {
    if (o.kind === 'error') errors.push(o.error);
    if (o.kind !== 'turn') return;
    const r = o.result;
    let s = bySession.get(r.sessionId);
    if (s === undefined) bySession.set(r.sessionId, (s = { id: r.sessionId, turns: 0, signals: new Map(), actions: new Map() }));
    const index = s.turns++;
    for (const f of r.findings) {
      const hits = s.signals.get(f.signal) ?? [];
      hits.push({ turn: f.turn, index });
      s.signals.set(f.signal, hits);
    }
    const acted = s.actions.get(r.verdict.action) ?? [];
    acted.push({ turn: r.turn, index });
    s.actions.set(r.verdict.action, acted);
  }
}

/** "12–20, 31": runs of consecutive snapshots of the session (turn numbers may have gaps). */
function ranges(hits: readonly Hit[]): string {
  const out: string[] = [];
  let k = 0;
  while (k < hits.length) {
    let j = k;
    while (j + 1 < hits.length && hits[j + 1]!.index === hits[j]!.index + 1) j++;
    out.push(j === k ? `${hits[k]!.turn}` : `${hits[k]!.turn}–${hits[j]!.turn}`);
    k = j + 1;
  }
  return out.join(', ');
}

fs.mkdirSync(OUT, { recursive: true });
const readme: string[] = [
  '# Sample transcripts',
  '',
  'Written by `npm run samples` (`scripts/write-samples.ts`) from the scenario generator',
  '(`src/sim/scenario.ts`, seeded, deterministic) and measured with the engine when written:',
  'the signals below are what `context-health check` reports for each file. Drop any of them',
  'on the dashboard, or run `context-health check public/samples/<file>`.',
  '',
  'Signals are listed with the turns on which they fired (runs of consecutive snapshots are',
  'joined). Severity: **fault**, *warning*, info.',
  '',
];
for (const sample of samples) {
  const data = sample.bytes ?? Buffer.from(sample.text, 'utf8');
  fs.mkdirSync(path.dirname(path.join(OUT, sample.file)), { recursive: true });
  fs.writeFileSync(path.join(OUT, sample.file), data);
  if (data.length >= 1_000_000) throw new Error(`${sample.file} is ${data.length} bytes: keep samples well under 1 MB`);
  const m = measure(sample.text, sample.adapted);
  readme.push(`## ${sample.file} (${(data.length / 1024).toFixed(0)} KB)`, '', sample.what, '');
  for (const s of m.sessions) {
    readme.push(`- session \`${s.id}\`, ${s.turns} turns:`);
    const fired = SIGNALS.filter((sig) => s.signals.has(sig));
    if (fired.length === 0) readme.push('  - no findings');
    for (const sig of fired) {
      const turns = s.signals.get(sig)!;
      const sev = SEVERITY[sig];
      const name = sev === 'fault' ? `**${sig}**` : sev === 'warning' ? `*${sig}*` : sig;
      readme.push(`  - ${name}: ${turns.length} turn${turns.length === 1 ? '' : 's'} (${ranges(turns)})`);
    }
    const verdicts = (['recompute', 'freeze'] as const).flatMap((action) => {
      const hits = s.actions.get(action);
      return hits === undefined ? [] : [`${action} on ${hits.length} turn${hits.length === 1 ? '' : 's'} (${ranges(hits)})`];
    });
    // contract §8.1: an agent's own session is not pruned by score; its verdict would speak of what no detector checked
    if (sample.adapted === true) readme.push('  - the score detectors do not apply (contract §8.1): the compactions and the window are what was measured');
    else readme.push(`  - verdict (contract §5): ${verdicts.length === 0 ? 'prune_ok on every turn' : `${verdicts.join('; ')}; prune_ok otherwise`}`);
  }
  if (m.errors.length > 0) {
    readme.push(`- ${m.errors.length} input errors:`);
    for (const e of m.errors) readme.push(`  - line ${e.line}: ${e.message}`);
  }
  readme.push('');
  console.log(`wrote ${OUT}/${sample.file} (${data.length} bytes)`);
}
fs.writeFileSync(path.join(OUT, 'README.md'), readme.join('\n'));
console.log(`wrote ${OUT}/README.md`);
