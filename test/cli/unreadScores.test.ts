// A caller that reads no reference score (`check`'s human output, its folder table, the local
// sessions' rows): an agent's session in the reference scope (contract §8.1) is not scored,
// and everything but the metrics' score figures is what the scored run finds. The human
// output's bytes are held to the scored run's by checkDigests.test.ts; this test says the
// scores are really left out, and only where the scope allows it.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkTranscript, type CheckOptions } from '../../src/cli/check.ts';
import type { CheckOutput } from '../../src/core/checkOutput.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const AGENTS = ['test/fixtures/adapters/claude-code.jsonl', 'test/fixtures/adapters/codex-rollout.jsonl', 'test/fixtures/adapters/gemini-session.json'];

const check = async (file: string, options: Partial<CheckOptions> = {}): Promise<CheckOutput> =>
  (await checkTranscript(path.join(ROOT, file), { userThresholds: {}, ...options })).report;

/** What the session's report holds but the score figures: what the human output can print. */
function withoutScores(report: CheckOutput): unknown {
  return {
    ...report,
    sessions: report.sessions.map((s) => ({
      ...s,
      metrics: s.metrics.map(({ turn, tokens_total, tokens_by_kind, orphan_edges }) => ({ turn, tokens_total, tokens_by_kind, orphan_edges })),
    })),
  };
}

describe('readsReferenceScores: false', () => {
  it.each(AGENTS)('%s: the reference scorer leaves the session unscored, and every finding, verdict and compaction is the same', async (file) => {
    const scored = await check(file);
    const unread = await check(file, { readsReferenceScores: false });
    expect(scored.sessions.length).toBeGreaterThan(0);
    for (const s of scored.sessions) {
      expect(Object.keys(s.not_applicable ?? {})).toContain('stale_score');
      expect(s.metrics.some((m) => m.n_scored > 0)).toBe(true);
    }
    for (const s of unread.sessions) for (const m of s.metrics) expect([m.n_scored, m.mean_score]).toEqual([0, null]);
    expect(withoutScores(unread)).toEqual(withoutScores(scored));
  });

  it('a native transcript scored by --scorer reference keeps every detector, so it is still scored', async () => {
    const file = 'public/samples/healthy.jsonl';
    const scored = await check(file, { scorer: 'reference' });
    const unread = await check(file, { scorer: 'reference', readsReferenceScores: false });
    expect(scored.sessions[0]!.not_applicable ?? {}).toEqual({});
    expect(scored.sessions[0]!.metrics.some((m) => m.n_scored > 0)).toBe(true);
    expect(unread).toEqual(scored);
  });
});
