// null_scores: a correct invalidation (seed 000's apply_rewrite: score absent, no binding)
// whose recompute is deferred a few turns (contract §4 unscored_span).
import type { FaultStrategy } from './strategy.ts';

export const nullScores: FaultStrategy = {
  signals: ['unscored_span'],
  start: (sim) => ({
    // contract §2: null means awaiting recompute, so the recompute is deferred, not skipped
    keepHold: (span, active) => active && span.recomputeAt > sim.index,
    rewrite() {
      const spans = sim.pickEligible(sim.rng.int(1, 2));
      for (const span of spans) {
        sim.setText(span, sim.rewrittenText(span, 'paraphrase'));
        span.nulled = true;
        span.sha = null;
        span.rewriteCount = 1;
        span.hold = 'null_scores';
        span.recomputeAt = sim.index + sim.rng.int(2, 3);
      }
      if (spans.length > 0)
        sim.addReport(
          spans.map((s) => s.id),
          spans.length,
          spans.length,
        );
    },
  }),
};
