// sinking_canary, seed 002 signal B: the pinned spans slide under the median (contract §4
// canary_inversion): halfway on the window's first turn, then just below it.
import { clamp, medianOf, quantile, round3, SCORE_MAX, SCORE_MIN } from '../numeric.ts';
import type { FaultStrategy } from './strategy.ts';

export const sinkingCanary: FaultStrategy = {
  signals: ['canary_inversion'],
  suspends: ['canary_floor'],
  start: (sim) => ({
    finalize({ live, vals, pinnedAt }) {
      if (pinnedAt.length === 0) return;
      const unpinned = live.flatMap((s, k) => (!s.pinned && vals[k] !== null ? [vals[k]!] : [])).sort((x, y) => x - y);
      if (unpinned.length === 0) return;
      if (sim.age('sinking_canary') === 0) {
        const mid = quantile(unpinned, 0.5);
        for (const k of pinnedAt) vals[k] = round3(mid + (vals[k]! - mid) * 0.4);
        return;
      }
      // just under the middle when the spread has collapsed, so the canary does not widen it again
      const q = quantile(unpinned, sim.isActive('narrowing_scores') ? 0.35 : 0.2);
      pinnedAt.forEach((k, idx) => {
        vals[k] = clamp(round3(q - 0.004 * (idx + 1)), SCORE_MIN, SCORE_MAX);
      });
      for (let round = 0; round < 40; round++) {
        const median = medianOf(vals)!;
        if (pinnedAt.every((k) => vals[k]! < median)) break;
        for (const k of pinnedAt) if (vals[k]! >= median) vals[k] = clamp(round3(vals[k]! - 0.01), SCORE_MIN, SCORE_MAX);
      }
    },
  }),
};
