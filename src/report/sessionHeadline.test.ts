// One session's headline (the words a row of many files gives it): a scored session's worst
// turn, first of its kind; an out-of-scope session's contract §8.9 headline at its last turn.
import { describe, expect, it } from 'vitest';
import type { SessionOutput } from '../core/checkOutput.ts';
import type { Verdict } from '../core/signals.ts';
import { sessionHeadline } from './sessionHeadline.ts';

const verdict = (turn: number, over: Partial<Verdict> = {}): Verdict => ({ turn, action: 'prune_ok', prune_safe: true, recompute: [], drop: [], ...over });
const metrics = (turn: number, tokens: number) => ({
  turn,
  tokens_total: tokens,
  mean_score: null,
  median_score: null,
  stdev_score: null,
  n_scored: 0,
  orphan_edges: 0,
});

describe('sessionHeadline', () => {
  it('gives a scored session the worst of its turns, the first of that kind', () => {
    const s: SessionOutput = {
      session_id: 's',
      turns: 4,
      findings: [{ turn: 2, signal: 'spread_collapse', severity: 'warning', span_ids: [], message: 'm' }],
      verdicts: [
        verdict(1),
        verdict(2),
        verdict(3, { action: 'recompute', prune_safe: false, recompute: ['a'] }),
        verdict(4, { action: 'recompute', recompute: ['b'] }),
      ],
      metrics: [1, 2, 3, 4].map((t) => metrics(t, 10)),
    };
    const h = sessionHeadline(s)!;
    expect(h.kind).toBe('recompute');
    expect(h.turn).toBe(3);
    expect(h.text).toMatch(/^RECOMPUTE 1 span \(a\)/);
    expect(sessionHeadline({ ...s, findings: [], verdicts: [verdict(1)], metrics: [metrics(1, 10)] })!.label).toBe('PRUNE OK');
    expect(sessionHeadline({ ...s, turns: 0, verdicts: [], metrics: [] })).toBeNull();
  });

  it("gives an out-of-scope session its §8.9 headline at the last turn, by the session's pressure threshold", () => {
    const s: SessionOutput = {
      session_id: 'cc',
      turns: 2,
      findings: [],
      verdicts: [verdict(1), verdict(2)],
      metrics: [metrics(1, 100_000), metrics(2, 150_000)],
      not_applicable: { stale_score: 'why' },
      context_window: { tokens: 200_000, source: 'model', model: 'claude-sonnet-4-5' },
    };
    expect(sessionHeadline(s)!.text).toBe('CONTEXT OK: no compaction yet; 75% of the window (150,000 of 200,000 tokens).');
    expect(sessionHeadline(s, { pressureThreshold: 0.7 })!.text).toBe('NEAR THE LIMIT: 75% of the window (150,000 of 200,000 tokens); no compaction yet.');
    expect(sessionHeadline(s)!.turn).toBe(2);
  });
});
