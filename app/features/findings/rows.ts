// The findings list's visible rows: filters and collapsed incidents applied to the
// Worker's row index. Pure; the list component only draws what this returns.
import { ROW_FINDING, SEVERITY, SIGNALS, type FindingsIndex, type Severity, type Signal } from '../../../src/worker/client.ts';

export interface RowFilter {
  severities: Readonly<Record<Severity, boolean>>;
  signal: Signal | null;
  collapsed: ReadonlySet<number>;
}

/** Indices into the FindingsIndex rows that are shown, in order. */
export function visibleRows(ix: FindingsIndex, f: RowFilter): Int32Array {
  const n = ix.rowKind.length;
  const out = new Int32Array(n);
  const allowed = SIGNALS.map((s) => f.severities[SEVERITY[s]] && (f.signal === null || f.signal === s));
  let k = 0;
  for (let r = 0; r < n; r++) {
    if (!allowed[ix.rowSignal[r]!]) continue;
    if (ix.rowKind[r] === ROW_FINDING && f.collapsed.has(ix.rowIncident[r]!)) continue;
    out[k++] = r;
  }
  return out.subarray(0, k);
}

export function countBySeverity(ix: FindingsIndex | null): Record<Severity, number> {
  const out: Record<Severity, number> = { fault: 0, warning: 0, info: 0 };
  if (ix === null) return out;
  for (let r = 0; r < ix.rowKind.length; r++) if (ix.rowKind[r] === ROW_FINDING) out[SEVERITY[SIGNALS[ix.rowSignal[r]!]!]]++;
  return out;
}

/** The first visible row at or after `turn` (to bring the selected turn into view). */
export function firstRowAtTurn(ix: FindingsIndex, rows: Int32Array, turn: number): number {
  for (let k = 0; k < rows.length; k++) {
    const r = rows[k]!;
    if (ix.rowKind[r] === ROW_FINDING && ix.rowTurn[r] === turn) return k;
  }
  return -1;
}

export function incidentLabel(ix: FindingsIndex, incident: number): { signal: Signal; from: number; to: number; count: number } {
  return {
    signal: SIGNALS[ix.incidentSignal[incident]!]!,
    from: ix.incidentStart[incident]!,
    to: ix.incidentEnd[incident]!,
    count: ix.incidentCount[incident]!,
  };
}

/**
 * contract §8.8: a finding's message names its spans by id, quoted (the engine's list of the
 * first few); on screen each quoted id with a label reads as the label instead. The message
 * is otherwise the engine's own text, rendered as text.
 */
export function namedMessage(message: string, spanIds: readonly string[], labels: Readonly<Record<string, string>>): string {
  let out = message;
  for (const id of spanIds) {
    const label = labels[id];
    if (label === undefined) continue;
    out = out.split(JSON.stringify(id)).join(`“${shortName(label)}”`);
  }
  return out;
}

function shortName(label: string): string {
  const flat = label.replace(/\s+/g, ' ').trim();
  return flat.length <= 40 ? flat : `${flat.slice(0, 39)}…`;
}
