// prune_on_stale: the scorer invalidates its weakest spans and queues a recompute; the broken
// pruner ranks their null scores as 0 and evicts them before the recompute lands (contract §4
// pruned_on_stale_score). It ignores the freeze too, so inside a relevance collapse it shows
// pruned_during_freeze.
import type { FaultStrategy } from './strategy.ts';

export const pruneOnStale: FaultStrategy = {
  signals: ['pruned_on_stale_score', 'unscored_span'],
  suspends: ['freeze_halt', 'bound_only_pruning'],
  start: (sim) => ({
    rewrite() {
      const candidates = sim.eligible().filter((s) => !sim.hasLiveChildren(s));
      candidates.sort((x, y) => x.raw - y.raw);
      for (const span of candidates.slice(0, sim.rng.int(1, 2))) {
        span.nulled = true;
        span.hold = 'prune_on_stale';
        sim.touch(span);
      }
    },
    prune() {
      // evict what was null, unbound or stale in the last snapshot
      for (const span of sim.spans) {
        if (!span.pinned && span.doomed === null && span.emittedBinding !== undefined && span.emittedBinding !== 'bound' && !sim.heldOut(span))
          sim.doom(span, 'fault');
      }
    },
  }),
};
