// fanin_orphans: every fourth turn of the window a summary derived from several parents, whose
// parents the pruner then evicts, most the same turn and the last one the next (contract §4
// orphaned_parent). The harness's eviction of orphaned summaries is off meanwhile.
import type { FaultStrategy } from './strategy.ts';
import { appendAll } from '../../core/arrays.ts';

export const faninOrphans: FaultStrategy = {
  signals: ['orphaned_parent'],
  suspends: ['orphan_eviction'],
  start: (sim) => {
    /** parent ids evicted at this turn's prune, and at the next one's */
    let now: string[] = [];
    let next: string[] = [];
    return {
      rewrite() {
        if (sim.age('fanin_orphans') % 4 !== 0) return;
        const candidates = sim.eligible().filter((s) => !sim.hasLiveChildren(s));
        candidates.sort((x, y) => x.raw - y.raw);
        const parents = candidates.slice(0, sim.rng.int(3, 4));
        if (parents.length < 2) return;
        for (const p of parents) sim.touch(p);
        const ids = parents.map((p) => p.id);
        sim.addSpan('assistant', sim.text.words(sim.textChars * 0.9, `Summary of ${ids.join(', ')}:`), sim.rng.float(0.75, 0.9), ids);
        appendAll(now, ids.slice(0, -1));
        next.push(ids[ids.length - 1]!);
      },
      prune() {
        const byId = new Map(sim.spans.map((s) => [s.id, s]));
        for (const id of now) {
          const span = byId.get(id);
          if (span !== undefined && span.doomed === null) sim.doom(span, 'fault');
        }
        now = next;
        next = [];
      },
      // a pruning pass after the window forgets the pending parents (a frozen turn, which
      // prunes nothing, keeps them)
      recoverPrune() {
        now = [];
        next = [];
      },
    };
  },
};
