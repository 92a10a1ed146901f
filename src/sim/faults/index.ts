// The table of simulated faults: one strategy per FaultKind (src/sim/faults/strategy.ts says
// what a strategy is), and the order in which the simulator runs their hooks.
import type { Signal } from '../../core/signals.ts';
import { FAULT_KINDS, type FaultKind } from '../options.ts';
import { faninOrphans } from './faninOrphans.ts';
import { narrowingScores } from './narrowingScores.ts';
import { nullScores } from './nullScores.ts';
import { paraphraseDrift } from './paraphraseDrift.ts';
import { pruneOnStale } from './pruneOnStale.ts';
import { sinkingCanary } from './sinkingCanary.ts';
import { staleRewrite } from './staleRewrite.ts';
import type { FaultStrategy } from './strategy.ts';
import { unboundScore } from './unboundScore.ts';
import { underreportedRewrite } from './underreportedRewrite.ts';

export const FAULTS: Readonly<Record<FaultKind, FaultStrategy>> = {
  stale_rewrite: staleRewrite,
  unbound_score: unboundScore,
  underreported_rewrite: underreportedRewrite,
  fanin_orphans: faninOrphans,
  paraphrase_drift: paraphraseDrift,
  narrowing_scores: narrowingScores,
  sinking_canary: sinkingCanary,
  prune_on_stale: pruneOnStale,
  null_scores: nullScores,
};

/**
 * The order in which the hooks of a turn's active faults run, in every phase. It matters where
 * hooks draw random numbers (rewrite), evict spans (the order of `pruned` on the wire) or
 * rescale the same scores (finalize), so it is part of every seed's output: paraphrase_drift
 * rewrites instead of the healthy rewrite and so comes first, the other rewriting faults
 * follow, then the two faults that evict (prune_on_stale's before fanin_orphans'), and last
 * the score faults (drift's inflation, narrowing, then the canary sinking below the narrowed
 * median). A new fault's place changes no other fault's sessions (its hooks run only inside
 * its windows), only those where it overlaps another: put it where its draws and effects
 * belong relative to theirs. src/sim/faults/faults.test.ts checks it lists every kind once.
 */
export const RUN_ORDER: readonly FaultKind[] = [
  'paraphrase_drift',
  'stale_rewrite',
  'unbound_score',
  'underreported_rewrite',
  'null_scores',
  'prune_on_stale',
  'fanin_orphans',
  'narrowing_scores',
  'sinking_canary',
];

/** FAULT_SIGNALS of src/sim/scenario.ts: each strategy's signals, in FAULT_KINDS order. */
export function faultSignals(): Readonly<Record<FaultKind, readonly Signal[]>> {
  const out: Partial<Record<FaultKind, readonly Signal[]>> = {};
  for (const kind of FAULT_KINDS) out[kind] = FAULTS[kind].signals;
  return out as Record<FaultKind, readonly Signal[]>;
}
