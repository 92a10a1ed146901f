// The dashboard's scorer setting (contract §7): the Worker, opened with `scorer`, reads a
// file exactly as `check --scorer <mode> --json` does, reference_disagreement included.
// eslint-disable-next-line no-restricted-imports -- tests run on Node; the Worker is handed its hash
import { createHash } from 'node:crypto';
// eslint-disable-next-line no-restricted-imports -- check is run as a user runs it
import { execFile } from 'node:child_process';
// eslint-disable-next-line no-restricted-imports -- the fixture is read from disk
import fs from 'node:fs';
// eslint-disable-next-line no-restricted-imports -- paths of the fixture and the executable
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckOutput } from '../core/checkOutput.ts';
import type { ScorerMode } from '../ingest/adapters/scoringStage.ts';
import { Controller } from './controller.ts';
import type { FindingDetail, JobSummary, SeriesView, WorkerEvent } from './protocol.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

const DISAGREES = path.join(ROOT, 'test/fixtures/adapters/harness-disagrees.jsonl');
const CLAUDE = path.join(ROOT, 'test/fixtures/adapters/claude-code.jsonl');
const sha256 = (t: string): string => createHash('sha256').update(t, 'utf8').digest('hex');

interface Opened {
  summary: JobSummary;
  findings: (sessionId: string) => Promise<FindingDetail[]>;
  view: (sessionId: string) => Promise<SeriesView>;
}

/** The Worker's controller, opened on a file with a scorer mode; queries answered as the page asks them. */
async function openInWorker(file: string, scorer: ScorerMode): Promise<Opened> {
  const events: WorkerEvent[] = [];
  const c = new Controller({ sha256, post: (e) => events.push(e), summaryEveryMs: 5 });
  const blob = new Blob([fs.readFileSync(file)]) as File;
  c.handle({ type: 'open', job: 1, source: { kind: 'file', file: blob, name: path.basename(file) }, userThresholds: {}, scorer });
  let done: Extract<WorkerEvent, { type: 'done' }> | undefined;
  for (let i = 0; i < 2000 && done === undefined; i++) {
    await new Promise((r) => setTimeout(r, 5));
    done = events.find((e): e is Extract<WorkerEvent, { type: 'done' }> => e.type === 'done');
  }
  if (done === undefined) throw new Error('no done event');
  let req = 0;
  const ask = <T>(kind: 'findingDetails' | 'view', query: unknown): T => {
    const id = ++req;
    c.handle({ type: 'query', job: 1, req: id, kind, query } as Parameters<Controller['handle']>[0]);
    const reply = events.find((e) => e.type === 'reply' && e.req === id);
    if (reply === undefined || reply.type !== 'reply' || !reply.ok) throw new Error(`query ${kind} failed`);
    return reply.body as T;
  };
  const summary = done.summary;
  return {
    summary,
    findings: async (sessionId) => {
      const s = summary.sessions.find((x) => x.sessionId === sessionId)!;
      return ask<FindingDetail[]>('findingDetails', { sessionId, indices: Array.from({ length: s.findings }, (_, i) => i) });
    },
    view: async (sessionId) => ask<SeriesView>('view', { sessionId, window: null, points: 400, ribbon: 100 }),
  };
}

async function check(file: string, scorer: ScorerMode): Promise<CheckOutput> {
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, [path.join(ROOT, 'bin/context-health.mjs'), 'check', '--json', '--scorer', scorer, file], { cwd: ROOT }, (err, out) =>
      // check exits 1 when a finding reaches --fail-on; the report is on stdout either way
      err !== null && typeof err.code !== 'number' ? reject(err) : resolve(out),
    ),
  );
  return JSON.parse(stdout) as CheckOutput;
}

const asCheck = (f: FindingDetail) => ({ turn: f.turn, signal: f.signal, severity: f.severity, span_ids: f.spanIds, message: f.message });

describe('the dashboard scorer setting reads as check --scorer', () => {
  it('both: the Worker finds what check --scorer both --json finds, reference_disagreement included', async () => {
    const report = await check(DISAGREES, 'both');
    const expected = report.sessions[0]!.findings;
    expect(expected.some((f) => f.signal === 'reference_disagreement')).toBe(true);
    const w = await openInWorker(DISAGREES, 'both');
    expect(w.summary.scorer).toBe('both');
    const s = w.summary.sessions[0]!;
    expect(s.scores).toBe('harness');
    expect(s.hasAgreement).toBe(true);
    expect((await w.findings(s.sessionId)).map(asCheck)).toEqual(expected);
    // the agreement series, one value per turn, as the snapshots carried it
    const view = await w.view(s.sessionId);
    expect(view.spread.agreement).not.toBeNull();
    expect([...view.spread.agreement!].every((t) => t < 0)).toBe(true);
    expect(view.spread.agreementFloor).toBe(0);
  });

  it('auto leaves the harness scores alone (no agreement, no reference_disagreement); reference replaces them', async () => {
    const auto = await openInWorker(DISAGREES, 'auto');
    expect(auto.summary.sessions[0]!.hasAgreement).toBe(false);
    expect(auto.summary.sessions[0]!.scores).toBe('harness');
    expect((await auto.findings('disagree')).map(asCheck)).toEqual((await check(DISAGREES, 'auto')).sessions[0]!.findings);
    expect((await auto.view('disagree')).spread.agreement).toBeNull();
    expect((await auto.view('disagree')).compactions.length).toBe(0);
    const ref = await openInWorker(DISAGREES, 'reference');
    expect(ref.summary.sessions[0]!.scores).toBe('reference');
    expect((await ref.findings('disagree')).map(asCheck)).toEqual((await check(DISAGREES, 'reference')).sessions[0]!.findings);
  });

  it('a Claude Code transcript is scored by the reference under auto, and not under harness', async () => {
    const auto = await openInWorker(CLAUDE, 'auto');
    expect(auto.summary.sessions[0]!.scores).toBe('reference');
    // contract §8.3: every compaction where it takes effect (the microcompaction at 3, the compaction at 5), for every chart's turn axis
    expect([...(await auto.view('cc-fixture')).compactions]).toEqual([3, 5]);
    const harness = await openInWorker(CLAUDE, 'harness');
    expect(harness.summary.sessions[0]!.scores).toBe('harness');
    expect(harness.summary.sessions[0]!.signalCounts.unscored_span).toBeGreaterThan(0);
  });
});
