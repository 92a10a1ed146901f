// The correct scorer's two guards on a turn's wire scores (the finalize phase of
// src/sim/simulator.ts), each skipped while a fault suspends it (HarnessGuard in
// src/sim/faults/strategy.ts). Pure, no randomness.
import type { Thresholds } from '../core/config.ts';
import type { ScoreDraft } from './faults/strategy.ts';
import { clamp, medianOf, round3, SCORE_MAX, SCORE_MIN, stdevOf } from './numeric.ts';

/**
 * 'canary_floor': a healthy scorer keeps the canaries high (seed 002 condition of validity);
 * keep them at or above the median even when the rest of the buffer happens to score high.
 */
export function keepCanariesUp({ vals, pinnedAt }: ScoreDraft): void {
  for (let round = 0; round < 5; round++) {
    const median = medianOf(vals);
    if (median === null || !pinnedAt.some((k) => vals[k]! < median)) break;
    for (const k of pinnedAt) if (vals[k]! < median) vals[k] = Math.min(SCORE_MAX, round3(median + 0.05));
  }
}

/** 'spread_floor': keep a healthy spread clear of spread_floor (seed 002: a healthy buffer scores ~0.1–0.95). */
export function keepSpreadWide({ live, vals }: ScoreDraft, th: Readonly<Thresholds>): void {
  for (let round = 0; round < 3; round++) {
    const n = vals.filter((v) => v !== null).length;
    const sd = stdevOf(vals);
    if (n < th.min_scored || sd >= th.spread_floor * 1.4) break;
    const unpinned = live.flatMap((s, k) => (!s.pinned && vals[k] !== null ? [vals[k]!] : []));
    const m = unpinned.reduce((x, y) => x + y, 0) / Math.max(1, unpinned.length);
    const factor = sd > 1e-6 ? (th.spread_floor * 2) / sd : 1;
    live.forEach((s, k) => {
      const v = vals[k];
      if (s.pinned || v === null || v === undefined) return;
      vals[k] = clamp(round3(sd > 1e-6 ? m + (v - m) * factor : SCORE_MIN + ((SCORE_MAX - SCORE_MIN) * k) / live.length), SCORE_MIN, SCORE_MAX - 0.05);
    });
  }
}
