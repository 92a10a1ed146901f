// contract §8 through the Worker: a Claude Code session dropped on the page gives the page
// the same compaction records `check --json` prints (refetches and confirmed losses of later
// turns included), a revision that moves when a record changes, and the session's
// not-applicable signals with their reasons.
// eslint-disable-next-line no-restricted-imports -- tests run on Node; the Worker is handed its hash
import { createHash } from 'node:crypto';
// eslint-disable-next-line no-restricted-imports -- check is run as a user runs it
import { execFileSync } from 'node:child_process';
// eslint-disable-next-line no-restricted-imports -- the scenario is written to disk for check
import fs from 'node:fs';
// eslint-disable-next-line no-restricted-imports -- a temporary directory
import os from 'node:os';
// eslint-disable-next-line no-restricted-imports -- paths of the fixture and the executable
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckOutput } from '../core/checkOutput.ts';
import { Controller } from './controller.ts';
import type { CompactionsView, JobSummary, WorkerEvent } from './protocol.ts';
import { carriedPastCapTranscript } from '../../e2e/fixtures/claudeCodeCarried.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const sha256 = (t: string): string => createHash('sha256').update(t, 'utf8').digest('hex');

/**
 * Two compactions (e2e/fixtures/claudeCodeCompactions.ts builds it): a file the first one's
 * summary dropped is read again after it (a confirmed loss), and the second judges again
 * what the first kept (carried items).
 */
const FIXTURE = path.join(ROOT, 'e2e/fixtures/claude-code-compactions.jsonl');
const scenario = (): string => fs.readFileSync(FIXTURE, 'utf8');

async function open(text: string): Promise<{ summary: JobSummary; compactions: (sid: string) => CompactionsView; summaries: JobSummary[] }> {
  const events: WorkerEvent[] = [];
  const c = new Controller({ sha256, post: (e) => events.push(e), summaryEveryMs: 1 });
  c.handle({ type: 'open', job: 1, source: { kind: 'file', file: new Blob([text]) as File, name: 'cc-compactions.jsonl' }, userThresholds: {} });
  let done: Extract<WorkerEvent, { type: 'done' }> | undefined;
  for (let i = 0; i < 2000 && done === undefined; i++) {
    await new Promise((r) => setTimeout(r, 5));
    done = events.find((e): e is Extract<WorkerEvent, { type: 'done' }> => e.type === 'done');
  }
  if (done === undefined) throw new Error('no done event');
  return {
    summary: done.summary,
    summaries: events.flatMap((e) => (e.type === 'summary' ? [e.summary] : [])),
    compactions: (sessionId) => {
      c.handle({ type: 'query', job: 1, req: 1, kind: 'compactions', query: { sessionId } });
      const reply = events.find((e) => e.type === 'reply' && e.req === 1);
      if (reply?.type !== 'reply' || !reply.ok) throw new Error('the compactions query failed');
      // what the page gets: a structured clone
      return structuredClone(reply.body) as CompactionsView;
    },
  };
}

function checkJson(text: string): CheckOutput {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-worker-compactions-'));
  const file = path.join(dir, 'cc-compactions.jsonl');
  fs.writeFileSync(file, text);
  return JSON.parse(
    execFileSync(process.execPath, [path.join(ROOT, 'bin/context-health.mjs'), 'check', '--json', '--fail-on', 'never', file], { cwd: ROOT, encoding: 'utf8' }),
  ) as CheckOutput;
}

describe('compactions through the Worker (contract §8)', () => {
  it('the page gets the records check --json prints, with the later refetch confirming a loss', async () => {
    const text = scenario();
    const expected = checkJson(text).sessions[0]!;
    const w = await open(text);
    const s = w.summary.sessions[0]!;
    expect(s.compactions).toBe(2);
    const view = w.compactions(s.sessionId);
    expect(view.revision).toBe(s.compactionRevision);
    expect(view.records).toEqual(expected.compactions);
    const lru = view.records[0]!.items.find((i) => i.text === '/repo/src/lru.ts')!;
    expect(lru).toMatchObject({ status: 'lost', confirmed: true, refetched_at: 6 });
    expect(view.records[0]!.retention.file?.confirmed).toBe(1);
    expect(view.records[1]!.carried.length).toBeGreaterThan(0);
  });

  it('the revision moves on every turn that adds or updates a record: the page asks again only then', async () => {
    const w = await open(scenario());
    // at least once per record (the adapter may report the refetch on the same turn as the next compaction)
    expect(w.summary.sessions[0]!.compactionRevision).toBeGreaterThanOrEqual(2);
    const revisions = w.summaries.map((x) => x.sessions[0]?.compactionRevision ?? 0);
    expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
  });

  it('the charts mark every compaction where it takes effect', async () => {
    const w = await open(scenario());
    expect(w.compactions('cc-compactions').records.map((r) => r.turn)).toEqual([5, 9]);
  });

  it('names the signals the scope leaves out, with the reasons check --json gives', async () => {
    const text = scenario();
    const expected = checkJson(text).sessions[0]!;
    const w = await open(text);
    expect(w.summary.sessions[0]!.notApplicable).toEqual(expected.not_applicable);
    expect(Object.keys(w.summary.sessions[0]!.notApplicable)).toContain('canary_inversion');
  });

  it('a native transcript has every detector and no compaction', async () => {
    const native = fs.readFileSync(path.join(ROOT, 'public/samples/all-faults.jsonl'), 'utf8');
    const w = await open(native);
    const s = w.summary.sessions[0]!;
    expect(s.notApplicable).toEqual({});
    expect(s.compactions).toBe(0);
    expect(w.compactions(s.sessionId).records).toEqual([]);
  });

  it('past the audit cap the page gets carried_not_followed on the record, as check --json prints it, and only there', async () => {
    // contract §8.4: 1,005 files kept by the first summary, 1,000 followed into the second
    const text = carriedPastCapTranscript(1005);
    const expected = checkJson(text).sessions[0]!;
    const w = await open(text);
    const view = w.compactions(w.summary.sessions[0]!.sessionId);
    expect(view.records.map((r) => [r.turn, r.carried.length, r.carried_not_followed])).toEqual([
      [2, 0, undefined],
      [3, 1000, 5],
    ]);
    expect('carried_not_followed' in view.records[0]!).toBe(false);
    expect(view.records.map((r) => r.carried_not_followed)).toEqual(expected.compactions!.map((r) => r.carried_not_followed));
  }, 30_000);
});
