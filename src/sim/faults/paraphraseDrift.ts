// paraphrase_drift: the model spends its turns compressing its own context, rewriting the same
// one or two spans every turn, scoring its own paraphrases higher each time and never letting
// the harness recompute them (contract §4 rewrite_repeat, poisoned_span, relevance_inflation,
// monotonic_drift). Once the window closes the harness drops the poisoned spans (contract §5)
// and recomputes the rest.
import { mapFinite, round3, SCORE_MAX } from '../numeric.ts';
import type { SimSpan } from '../simSpan.ts';
import type { FaultStrategy, SimContext } from './strategy.ts';

export const paraphraseDrift: FaultStrategy = {
  signals: ['rewrite_repeat', 'poisoned_span', 'relevance_inflation', 'monotonic_drift'],
  suspends: ['append', 'healthy_rewrite', 'spread_floor', 'inflation_guard'],
  start: (sim) => {
    /** the spans rewritten every turn; kept out of everything else until they are dropped */
    let targets: SimSpan[] = [];
    /** the self-scoring's factor on every score (1: none) */
    let inflation = 1;
    /** whether this turn rewrote anything (then tokens must fall and the mean rise) */
    let rewrote = false;
    return {
      keepHold: (span, active) => active || span.rewriteCount > sim.th.max_rewrites, // a poisoned span is dropped, not rescored
      recover() {
        inflation = 1;
        targets = targets.filter((s) => s.hold === 'paraphrase_drift' && sim.spans.includes(s));
      },
      holdsOut: (span) => targets.includes(span),
      rewrite() {
        if (targets.length === 0) targets = pickTargets(sim);
        const ids: string[] = [];
        for (const span of targets) {
          const before = span.tokens;
          const next = sim.text.words(Math.max(24, span.text.length * sim.rng.float(0.8, 0.92)), 'In short:');
          sim.setText(span, next === span.text ? next + '.' : next);
          // tokens must fall on a drift turn (contract §4 relevance_inflation)
          if (span.tokens >= before) span.tokens = Math.max(1, before - 1);
          span.sha = span.digest; // the model scores its own paraphrase, so the hash matches…
          span.rewriteCount++; // …but no recompute by the harness: paraphrase of a paraphrase
          span.hold = 'paraphrase_drift';
          sim.touch(span);
          ids.push(span.id);
        }
        rewrote = ids.length > 0;
        if (rewrote) sim.addReport(ids, ids.length, ids.length);
      },
      prune() {
        if (rewrote) sim.forcePrunes(sim.rng.int(1, 2)); // drift compresses: tokens must fall
      },
      recoverPrune() {
        for (const span of sim.spans) if (span.doomed === null && span.hold === 'paraphrase_drift') sim.doom(span, 'recovery'); // contract §5 drop
      },
      finalize({ vals }) {
        if (rewrote) inflation = searchInflation(sim, vals, inflation);
        if (inflation !== 1) mapFinite(vals, (v) => Math.min(SCORE_MAX, round3(v * inflation)));
      },
    };
  },
};

/** One or two spans from the upper half of the scores, that no live span derives from. */
function pickTargets(sim: SimContext): SimSpan[] {
  const candidates = sim.eligible().filter((s) => !sim.hasLiveChildren(s));
  const sorted = candidates.map((s) => s.raw).sort((x, y) => x - y);
  const mid = sorted[sorted.length >> 1] ?? 0;
  const upper = candidates.filter((s) => s.raw >= mid);
  const n = Math.min(upper.length, sim.rng.chance(0.6) ? 1 : 2);
  const out: SimSpan[] = [];
  for (let k = 0; k < n; k++) out.push(upper.splice(sim.rng.int(0, upper.length - 1), 1)[0]!);
  return out;
}

/**
 * The self-scoring: the least inflation factor at which the mean beats the previous one by
 * more than relevance_tolerance (contract §4 relevance_inflation). When even doubling cannot
 * get there (scores near the ceiling) the turn goes without inflation.
 */
function searchInflation(sim: SimContext, vals: readonly (number | null)[], inflation: number): number {
  const prevMean = sim.prev?.mean ?? null;
  if (prevMean === null) return inflation;
  const goal = prevMean * (1 + sim.th.relevance_tolerance) + 0.002;
  const meanAt = (g: number): number => {
    let sum = 0;
    let n = 0;
    for (const v of vals) {
      if (v === null) continue;
      sum += Math.min(SCORE_MAX, round3(v * g));
      n++;
    }
    return n === 0 ? 0 : sum / n;
  };
  let lo = inflation;
  let hi = inflation * 2;
  if (meanAt(lo) >= goal) return lo;
  if (meanAt(hi) < goal) return inflation;
  for (let k = 0; k < 30; k++) {
    const mid = (lo + hi) / 2;
    if (meanAt(mid) >= goal) hi = mid;
    else lo = mid;
  }
  return hi;
}
