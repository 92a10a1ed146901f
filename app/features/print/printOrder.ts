// Which incidents a printed page lists, and in what order (issue 24): the one at the cursor
// first (what the reader was looking at when printing), then by severity and by length, so
// the few rows paper has room for are the ones that matter. A signal's one-turn runs are one
// row ("6 runs, turns 50–60"): six one-turn rows of one signal would crowd out the rest.
import { SEVERITY, SEVERITY_RANK, SIGNALS, type FindingsIndex, type Severity, type Signal } from '../../../src/worker/client.ts';

export interface PrintRow {
  signal: Signal;
  severity: Severity;
  from: number;
  to: number;
  /** incident runs in this row (1, or the merged one-turn runs) */
  runs: number;
  findings: number;
  /** the row holds the incident at the cursor */
  atCursor: boolean;
}

/** Rows for the given incidents (indices into `ix`): one-turn runs merged per signal, the cursor's row first, then severity, length, first turn. */
export function printRows(ix: FindingsIndex, incidents: readonly number[], cursor: number | null): PrintRow[] {
  const rows: PrintRow[] = [];
  const merged = new Map<Signal, PrintRow>();
  for (const i of incidents) {
    const signal = SIGNALS[ix.incidentSignal[i]!]!;
    const from = ix.incidentStart[i]!;
    const to = ix.incidentEnd[i]!;
    const findings = ix.incidentCount[i]!;
    const atCursor = cursor !== null && from <= cursor && cursor <= to;
    // the cursor's own incident keeps its row, so its turns are printed exactly
    if (from === to && !atCursor) {
      const m = merged.get(signal);
      if (m !== undefined) {
        m.from = Math.min(m.from, from);
        m.to = Math.max(m.to, to);
        m.runs += 1;
        m.findings += findings;
        continue;
      }
      const row: PrintRow = { signal, severity: SEVERITY[signal], from, to, runs: 1, findings, atCursor };
      merged.set(signal, row);
      rows.push(row);
      continue;
    }
    rows.push({ signal, severity: SEVERITY[signal], from, to, runs: 1, findings, atCursor });
  }
  // one run of n turns before n one-turn runs (runs): it is the longer incident
  return rows.sort(
    (a, b) =>
      Number(b.atCursor) - Number(a.atCursor) ||
      SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] ||
      b.findings - a.findings ||
      a.runs - b.runs ||
      a.from - b.from,
  );
}

/** "30–41", "112", or "6 one-turn runs in 50–60" */
export function rowTurns(r: PrintRow): string {
  const span = r.from === r.to ? String(r.from) : `${r.from}–${r.to}`;
  return r.runs > 1 ? `${r.runs} one-turn runs in ${span}` : span;
}
