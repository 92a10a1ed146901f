// Incidents: a run of consecutive snapshots (in session order, whatever the gaps in turn
// numbers) on which one signal fired. The same rule groups the human report's runs
// (src/cli/humanReport.ts) and the dashboard's findings list (the Worker's store); it is
// here so that comparing two sessions (compare.ts) groups findings exactly as both do.
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

/**
 * The incidents of one session's findings (contract §6.1 order: by turn), listed by first
 * turn, then in contract §4 table order, as the findings list shows them.
 */
export function incidentsOf(findings: readonly Finding[], order: readonly number[]): Incident[] {
  const pos = new Map<number, number>();
  order.forEach((t, i) => pos.set(t, i));
  const open = new Map<Signal, Incident>();
  const out: Incident[] = [];
  for (const f of findings) {
    const p = pos.get(f.turn);
    if (p === undefined) continue; // a finding of a turn the report does not list: nothing to place it by
    const run = open.get(f.signal);
    if (run !== undefined && run.last === p - 1) {
      run.last = p;
      run.lastTurn = f.turn;
    } else if (run === undefined || run.last !== p) {
      const next: Incident = { signal: f.signal, first: p, last: p, firstTurn: f.turn, lastTurn: f.turn };
      open.set(f.signal, next);
      out.push(next);
    }
  }
  return out;
}
