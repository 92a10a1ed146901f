// Comparing two sessions in the dashboard (contract §6.4, the same rules as `diff`). Each
// session is analysed in its own Worker (two sources load in parallel, one per core);
// B's Worker answers `outline` with what the comparison needs of its session, as typed
// arrays, and A's Worker answers `compare` from its own store and that outline, through
// the same src/core/compare.ts the CLI runs. The main thread only passes the arrays on.
import { compareSessions, type Comparison, type SessionOutline } from '../core/compare.ts';
import type { Incident } from '../core/incidents.ts';
import { SIGNALS } from '../core/signals.ts';
import type { CompareQuery, OutlineWire } from './compareTypes.ts';
import { ACTIONS, type TurnColumnStore } from '../results/store.ts';

export function outlineWire(store: TurnColumnStore): OutlineWire {
  const n = store.turnCount;
  const drops = new Uint8Array(n);
  for (let t = 0; t < n; t++) drops[t] = store.dropStart.get(t) < (t + 1 < n ? store.dropStart.get(t + 1) : store.dropIds.length) ? 1 : 0;
  return {
    sessionId: store.sessionId,
    turns: store.col.turn.view().slice(),
    actions: store.col.action.view().slice(),
    drops,
    fired: store.col.signals.view().slice(),
    incidentSignal: store.incidentSignal.view().slice(),
    incidentFirst: store.incidentStart.view().slice(),
    incidentLast: store.incidentEnd.view().slice(),
  };
}

export function outlineTransferables(o: OutlineWire): Transferable[] {
  return [o.turns, o.actions, o.drops, o.fired, o.incidentSignal, o.incidentFirst, o.incidentLast].map((a) => a.buffer);
}

/** The outline the comparison reads, from the wire form (or straight from a store). */
export function sessionOutline(o: OutlineWire): SessionOutline {
  const incidents: Incident[] = [];
  for (let k = 0; k < o.incidentSignal.length; k++) {
    const first = o.incidentFirst[k]!;
    const last = o.incidentLast[k]!;
    incidents.push({ signal: SIGNALS[o.incidentSignal[k]!]!, first, last, firstTurn: o.turns[first]!, lastTurn: o.turns[last]! });
  }
  return {
    turns: o.turns,
    actions: Array.from(o.actions, (a) => ACTIONS[a]!),
    drops: Array.from(o.drops, (d) => d === 1),
    fired: o.fired,
    incidents,
  };
}

export function compareWith(store: TurnColumnStore, q: CompareQuery): Comparison {
  return compareSessions(sessionOutline(outlineWire(store)), sessionOutline(q.other), q.align);
}
