// The messages of comparing two sessions (compareQuery.ts), apart so that protocol.ts can
// name them without importing the store.
import type { Alignment, Comparison, Divergence, SignalCounts } from '../core/compare.ts';
import type { Incident } from '../core/incidents.ts';

export type { Alignment, Comparison, Divergence, Incident, SignalCounts };

/** One session's outline on the wire: per turn, and its incidents (the findings list's). */
export interface OutlineWire {
  sessionId: string;
  turns: Float64Array;
  /** index into ACTIONS (prune_ok, recompute, freeze) */
  actions: Uint8Array;
  drops: Uint8Array;
  /** bit i: SIGNALS[i] fired */
  fired: Uint32Array;
  incidentSignal: Uint8Array;
  incidentFirst: Int32Array;
  incidentLast: Int32Array;
}

export interface CompareQuery {
  sessionId: string;
  /** B's outline, from B's Worker */
  other: OutlineWire;
  align: Alignment;
}
