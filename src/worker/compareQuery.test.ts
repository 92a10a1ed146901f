// The dashboard's comparison (two Workers: B's outline into A's `compare`) must say what
// `diff` says: the same src/core/compare.ts over the CLI's report of each session.
// eslint-disable-next-line no-restricted-imports -- tests run on Node; the Worker is handed its hash
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { compareSessions, outlineOfReport, type Alignment } from '../core/compare.ts';
import { Engine } from '../core/engine.ts';
import { CheckOutputBuilder, type CheckOutput } from '../core/checkOutput.ts';
import { allFaults, simulateSession } from '../sim/scenario.ts';
import { Controller } from './controller.ts';
import type { QueryKind, QueryMap, QueryRequest, WorkerEvent } from './protocol.ts';

const sha256 = (t: string): string => createHash('sha256').update(t, 'utf8').digest('hex');

function transcript(seed: number, turns: number, faults: boolean): string[] {
  return [...simulateSession({ seed, sessionId: `run-${seed}`, turns, spans: 24, faults: faults ? allFaults(turns) : [] }, sha256)].map((m) =>
    JSON.stringify(m),
  );
}

function report(lines: string[]): CheckOutput {
  const engine = new Engine({ sha256 });
  const b = new CheckOutputBuilder();
  lines.forEach((l, i) => b.add(engine.ingestLine(l, i + 1)));
  return b.build();
}

/** One Worker's Controller, loaded with one transcript. */
async function loaded(lines: string[]): Promise<<K extends QueryKind>(kind: K, query: QueryMap[K]['query']) => QueryMap[K]['reply']> {
  const events: WorkerEvent[] = [];
  const c = new Controller({ sha256, post: (e) => events.push(e), summaryEveryMs: 5 });
  const file = new Blob([lines.join('\n') + '\n']) as File;
  c.handle({ type: 'open', job: 1, source: { kind: 'file', file, name: 'x.jsonl' }, userThresholds: {} });
  for (let i = 0; i < 2000 && !events.some((e) => e.type === 'done'); i++) await new Promise((r) => setTimeout(r, 5));
  let req = 0;
  return (kind, query) => {
    c.handle({ type: 'query', job: 1, req: ++req, kind, query } as QueryRequest); // K is one kind, which TypeScript cannot narrow the union by
    const r = events.find((e) => e.type === 'reply' && e.req === req);
    if (r === undefined || r.type !== 'reply' || !r.ok) throw new Error('no reply');
    return r.body as never;
  };
}

describe('compare across two Workers', () => {
  const a = transcript(3, 140, true);
  const b = transcript(5, 90, true);
  const healthy = transcript(7, 100, false);

  for (const align of ['turn', 'relative'] as Alignment[]) {
    it(`equals diff's comparison of the two reports (${align})`, async () => {
      for (const [x, y] of [
        [a, b],
        [b, a],
        [healthy, a],
      ] as const) {
        const [qa, qb] = await Promise.all([loaded(x), loaded(y)]);
        const ra = report(x).sessions[0]!;
        const rb = report(y).sessions[0]!;
        const outline = qb('outline', { sessionId: rb.session_id });
        const got = qa('compare', { sessionId: ra.session_id, other: outline, align });
        expect(got).toEqual(compareSessions(outlineOfReport(ra), outlineOfReport(rb), align));
        expect(got.signals.length).toBeGreaterThan(0);
      }
    });
  }
});
