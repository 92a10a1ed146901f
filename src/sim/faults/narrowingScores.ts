// narrowing_scores, seed 002 signal A: the distribution of scores narrows toward the midpoint
// over a couple of turns, under spread_floor (contract §4 spread_collapse). With
// sinking_canary it is a relevance collapse and the verdict turns to freeze.
import { MIDPOINT, mapFinite, round3, stdevOf } from '../numeric.ts';
import type { FaultStrategy } from './strategy.ts';

export const narrowingScores: FaultStrategy = {
  signals: ['spread_collapse'],
  suspends: ['spread_floor'],
  start: (sim) => ({
    finalize({ vals }) {
      const j = sim.age('narrowing_scores');
      const sd = stdevOf(vals);
      const goal = j === 0 ? sd * 0.55 : j === 1 ? sim.th.spread_floor * 0.75 : sim.th.spread_floor * 0.55;
      if (sd > goal && sd > 0) mapFinite(vals, (v) => round3(MIDPOINT + (v - MIDPOINT) * (goal / sd)));
    },
  }),
};
