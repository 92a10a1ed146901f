// underreported_rewrite: the texts and scores are right, the model's own report is not
// (contract §4 invalidation_shortfall / unreported_rewrite; seed 000 signal 2, condition b).
import type { FaultStrategy } from './strategy.ts';

export const underreportedRewrite: FaultStrategy = {
  signals: ['invalidation_shortfall', 'unreported_rewrite'],
  start: (sim) => ({
    rewrite() {
      const spans = sim.pickEligible(sim.rng.int(1, 3));
      for (const span of spans) sim.rewriteCorrectly(span, 'paraphrase');
      const n = spans.length;
      if (n === 0) return;
      const ids = spans.map((s) => s.id);
      // alternately: all modified but one fewer invalidated, or one of them not reported at all
      if (sim.age('underreported_rewrite') % 2 === 0) sim.addReport(ids, n, n - 1, ids.slice(0, n - 1));
      else sim.addReport(ids.slice(0, n - 1), n - 1, n - 1);
    },
  }),
};
