// contract §7 adapters: a Claude Code transcript dropped on the dashboard analyses as in
// `check`: the Worker's Controller, fed the file in chunks of any size (a record split
// across chunks must not matter), against the shared pipeline and engine run directly.
// eslint-disable-next-line no-restricted-imports -- tests run on Node; the Worker is handed its hash
import { createHash } from 'node:crypto';
// eslint-disable-next-line no-restricted-imports -- the fixture is read from disk
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Engine } from '../core/engine.ts';
import { CheckOutputBuilder, type CheckOutput } from '../core/checkOutput.ts';
import { TranscriptPipeline, type AdapterSummary } from '../ingest/adapters/pipeline.ts';
import { ScoringStage } from '../ingest/adapters/scoringStage.ts';
import { chunkedBlob } from './chunkedBlob.testing.ts';
import { Controller } from './controller.ts';
import type { WorkerEvent } from './protocol.ts';

const FIXTURE = new URL('../../test/fixtures/adapters/claude-code.jsonl', import.meta.url);
const sha256 = (t: string): string => createHash('sha256').update(t, 'utf8').digest('hex');

async function viaWorker(bytes: Uint8Array, chunk: number): Promise<Extract<WorkerEvent, { type: 'done' }>> {
  const events: WorkerEvent[] = [];
  const c = new Controller({ sha256, post: (e) => events.push(e), summaryEveryMs: 5 });
  c.handle({ type: 'open', job: 1, source: { kind: 'file', file: chunkedBlob(bytes, chunk) as File, name: 'claude-code.jsonl' }, userThresholds: {} });
  for (let i = 0; i < 2000; i++) {
    const d = events.find((e) => e.type === 'done');
    if (d !== undefined && d.type === 'done') return d;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('no done event');
}

function signalCounts(report: CheckOutput): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const f of report.sessions[0]!.findings) counts[f.signal] = (counts[f.signal] ?? 0) + 1;
  return counts;
}

/** What `check` does by default, without Node: the pipeline, the reference scorer where no score is, the engine. */
function direct(text: string): { report: CheckOutput; adapter: AdapterSummary } {
  const engine = new Engine({ sha256 });
  const report = new CheckOutputBuilder();
  const feed = {
    text: (t: string, line: number) => report.add(engine.ingestLine(t, line)),
    value: (v: unknown, line: number, ns: boolean) => report.add(engine.ingestParsedLine(v, line, ns)),
    error: (line: number, message: string) => report.addError({ line, message }),
  };
  const pipeline = new TranscriptPipeline(new ScoringStage(feed, { mode: 'auto', sha256 }));
  text.split('\n').forEach((l, i) => pipeline.line(l, i + 1));
  pipeline.end();
  return { report: report.build(), adapter: pipeline.summary() };
}

describe('a Claude Code transcript dropped on the dashboard', () => {
  it('the Worker, fed the file in chunks of any size, finds what check finds', async () => {
    const { report, adapter } = direct(fs.readFileSync(FIXTURE, 'utf8'));
    const bytes = new Uint8Array(fs.readFileSync(FIXTURE));
    for (const chunk of [7, 64, 1 << 16]) {
      const done = await viaWorker(bytes, chunk);
      expect(done.state).toBe('done');
      const s = done.summary.sessions[0]!;
      expect(s.sessionId).toBe('cc-fixture');
      expect(s.turns).toBe(report.sessions[0]!.turns);
      expect(s.signalCounts).toEqual(signalCounts(report));
      expect(done.summary.inputErrorCount).toBe(0);
      expect(done.summary.adapter).toEqual(adapter);
      // contract §7: the reference scorer gave every span a bound score, as in check
      expect(s.signalCounts.unscored_span).toBeUndefined();
    }
  });
});

describe('a hostile Claude Code transcript dropped on the dashboard (issue 39)', () => {
  it('one record of 300k content blocks loads whole: its call is a turn, the lines after it are read', async () => {
    const time = '2026-11-30T10:00:00.000Z';
    const record = (type: 'user' | 'assistant', uuid: string, parent: string | null, content: unknown): string =>
      JSON.stringify({
        type,
        uuid,
        parentUuid: parent,
        sessionId: 'hostile',
        timestamp: time,
        ...(type === 'assistant' ? { requestId: `r${uuid}`, message: { id: `m${uuid}`, role: 'assistant', content } } : { message: { role: 'user', content } }),
      });
    const blocks: { type: 'text'; text: string }[] = [];
    for (let i = 0; i < 300_000; i++) blocks.push({ type: 'text', text: `b${i}` });
    const text = [
      record('user', 'u1', null, 'fix it'),
      record('assistant', 'a1', 'u1', blocks),
      record('user', 'u2', 'a1', 'and the tests'),
      record('assistant', 'a2', 'u2', [{ type: 'text', text: 'done' }]),
    ].join('\n');
    const { report } = direct(text);
    const done = await viaWorker(new Uint8Array(Buffer.from(text, 'utf8')), 1 << 16);
    expect(done.state).toBe('done');
    const s = done.summary.sessions[0]!;
    expect(s.turns).toBe(2);
    expect(s.turns).toBe(report.sessions[0]!.turns);
    expect(done.summary.inputErrorCount).toBe(0);
  }, 120_000);
});
