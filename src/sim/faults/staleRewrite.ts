// stale_rewrite, seed 000's stale score: the text changes, the old score and its old hash stay.
import type { FaultStrategy } from './strategy.ts';

export const staleRewrite: FaultStrategy = {
  signals: ['stale_score', 'unreported_rewrite'],
  start: (sim) => ({
    rewrite() {
      const age = sim.age('stale_rewrite');
      if (age !== 0 && !sim.rng.chance(0.75)) return;
      const spans = sim.pickEligible(sim.rng.int(1, 2));
      for (const span of spans) {
        sim.setText(span, sim.rewrittenText(span, 'paraphrase'));
        span.frozen = true;
        span.rewriteCount++;
        span.hold = 'stale_rewrite';
      }
      // every other turn the model even reports the rewrite as invalidated, which it was not;
      // otherwise it reports nothing (contract §4 unreported_rewrite)
      if (spans.length > 0 && age % 2 === 1)
        sim.addReport(
          spans.map((s) => s.id),
          spans.length,
          spans.length,
        );
    },
  }),
};
