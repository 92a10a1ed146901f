import { describe, expect, it } from 'vitest';
import { SIGNALS, type FindingsIndex } from '../../../src/worker/client.ts';
import { printRows, rowTurns } from './printOrder.ts';

function index(incidents: [string, number, number, number][]): FindingsIndex {
  return {
    sessionId: 's',
    findings: 0,
    rowKind: new Uint8Array(),
    rowRef: new Int32Array(),
    rowIncident: new Int32Array(),
    rowTurn: new Float64Array(),
    rowSignal: new Uint8Array(),
    incidentSignal: Uint8Array.from(incidents.map(([s]) => SIGNALS.indexOf(s as never))),
    incidentStart: Float64Array.from(incidents.map(([, a]) => a)),
    incidentEnd: Float64Array.from(incidents.map(([, , b]) => b)),
    incidentCount: Int32Array.from(incidents.map(([, , , n]) => n)),
  };
}

describe('printRows', () => {
  const ix = index([
    ['unscored_span', 5, 9, 5],
    ['invalidation_shortfall', 50, 50, 1],
    ['invalidation_shortfall', 52, 52, 1],
    ['invalidation_shortfall', 54, 54, 1],
    ['spread_collapse', 60, 70, 11],
    ['stale_score', 80, 82, 3],
    ['relevance_collapse', 90, 99, 10],
  ]);
  const all = [0, 1, 2, 3, 4, 5, 6];

  it('puts the cursor’s incident first, then severity, then length', () => {
    const rows = printRows(ix, all, 65);
    expect(rows.map((r) => r.signal)).toEqual(['spread_collapse', 'relevance_collapse', 'stale_score', 'invalidation_shortfall', 'unscored_span']);
    expect(rows[0]!.atCursor).toBe(true);
  });

  it('merges a signal’s one-turn runs into one row', () => {
    const row = printRows(ix, all, null).find((r) => r.signal === 'invalidation_shortfall')!;
    expect(row).toMatchObject({ from: 50, to: 54, runs: 3, findings: 3 });
    expect(rowTurns(row)).toBe('3 one-turn runs in 50–54');
  });

  it('keeps the cursor’s one-turn run on its own row', () => {
    const rows = printRows(ix, all, 52);
    expect(rows[0]).toMatchObject({ signal: 'invalidation_shortfall', from: 52, to: 52, runs: 1, atCursor: true });
    expect(rows.find((r) => r.signal === 'invalidation_shortfall' && !r.atCursor)).toMatchObject({ from: 50, to: 54, runs: 2 });
  });
});
