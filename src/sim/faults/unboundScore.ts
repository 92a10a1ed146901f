// unbound_score: a scorer path that forgets the binding, a finite score with no text_sha256
// (contract §4 unbound_score), on some of the turn's new spans.
import type { FaultStrategy } from './strategy.ts';

export const unboundScore: FaultStrategy = {
  signals: ['unbound_score'],
  start: (sim) => ({
    append(added) {
      const rng = sim.rng;
      let any = false;
      for (const span of added) {
        if (rng.chance(0.6) || (!any && span === added[added.length - 1])) {
          span.sha = rng.chance(0.5) ? null : '';
          span.hold = 'unbound_score';
          any = true;
        }
      }
    },
  }),
};
