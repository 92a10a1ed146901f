// Incidents: a run of consecutive snapshots (in session order, whatever the gaps in turn
// numbers) on which one signal fired. A presentation rule the contract leaves open, written
// once here: the check output's runs (src/cli/humanOutput.ts), the results store's incidents
// (src/results/store.ts: the findings list, incident reports) and `report`'s sink
// (src/render/report.ts) all take it from this module, so comparing two sessions
// (compare.ts) groups findings exactly as every one of them does.
import type { Finding, Signal } from './signals.ts';

export interface Incident {
  signal: Signal;
  /** index of the first and last snapshot of the run among the session's snapshots */
  first: number;
  last: number;
  /** their turn numbers */
  firstTurn: number;
  lastTurn: number;
}

/** Runs of consecutive snapshots (in session order) among `turns`; `order` is every turn of the session. */
export function runsOf(turns: readonly number[], order: readonly number[]): [number, number][] {
  const pos = new Map<number, number>();
  order.forEach((t, i) => pos.set(t, i));
  const runs: [number, number][] = [];
  let prevPos = -2;
  for (const t of turns) {
    const p = pos.get(t) ?? -1;
    if (runs.length > 0 && p === prevPos + 1) runs[runs.length - 1]![1] = t;
    else runs.push([t, t]);
    prevPos = p;
  }
  return runs;
}

/** Where a finding falls under the rule: it opens an incident, extends one by a snapshot, or joins one on its own snapshot. */
export type Placement = 'opened' | 'extended' | 'same';

/**
 * The rule one finding at a time, for whoever sees findings as they come (the results store,
 * `report`'s sink): a finding of signal s at snapshot position p extends s's open incident
 * when that one last fired at p − 1, joins it at p, and opens a new one otherwise. Incidents
 * are numbered from 0 in the order they open, which is `incidentsOf`'s order.
 */
export class IncidentRuns {
  private readonly open = new Map<Signal, { index: number; last: number }>();
  /** incidents opened so far */
  count = 0;

  /** Places a finding of `signal` at snapshot position `p` (positions never decrease). */
  add(signal: Signal, p: number): { index: number; placement: Placement } {
    const run = this.open.get(signal);
    if (run !== undefined && run.last === p) return { index: run.index, placement: 'same' };
    if (run !== undefined && run.last === p - 1) {
      run.last = p;
      return { index: run.index, placement: 'extended' };
    }
    const index = this.count++;
    this.open.set(signal, { index, last: p });
    return { index, placement: 'opened' };
  }
}

/**
 * The incidents of one session's findings (contract §6.1 order: by turn), listed by first
 * turn, then in contract §4 table order, as the findings list shows them.
 */
export function incidentsOf(findings: readonly Finding[], order: readonly number[]): Incident[] {
  const pos = new Map<number, number>();
  order.forEach((t, i) => pos.set(t, i));
  const runs = new IncidentRuns();
  const out: Incident[] = [];
  for (const f of findings) {
    const p = pos.get(f.turn);
    if (p === undefined) continue; // a finding of a turn the report does not list: nothing to place it by
    const { index, placement } = runs.add(f.signal, p);
    if (placement === 'opened') out.push({ signal: f.signal, first: p, last: p, firstTurn: f.turn, lastTurn: f.turn });
    else if (placement === 'extended') {
      out[index]!.last = p;
      out[index]!.lastTurn = f.turn;
    }
  }
  return out;
}
