import { describe, expect, it } from 'vitest';
import { ROW_FINDING, ROW_INCIDENT, SIGNALS, type FindingsIndex } from '../../../src/worker/client.ts';
import { countBySeverity, firstRowAtTurn, incidentLabel, visibleRows } from './rows.ts';

const S = (name: string): number => SIGNALS.indexOf(name as (typeof SIGNALS)[number]);

/** Two incidents: stale_score on turns 5–6, canary_inversion on turn 6. */
const ix: FindingsIndex = {
  sessionId: 's',
  findings: 3,
  rowKind: Uint8Array.of(ROW_INCIDENT, ROW_FINDING, ROW_FINDING, ROW_INCIDENT, ROW_FINDING),
  rowRef: Int32Array.of(0, 0, 1, 1, 2),
  rowIncident: Int32Array.of(0, 0, 0, 1, 1),
  rowTurn: Float64Array.of(5, 5, 6, 6, 6),
  rowSignal: Uint8Array.of(S('stale_score'), S('stale_score'), S('stale_score'), S('canary_inversion'), S('canary_inversion')),
  incidentSignal: Uint8Array.of(S('stale_score'), S('canary_inversion')),
  incidentStart: Float64Array.of(5, 6),
  incidentEnd: Float64Array.of(6, 6),
  incidentCount: Int32Array.of(2, 1),
};
const all = { severities: { fault: true, warning: true, info: true }, signal: null, collapsed: new Set<number>() };

describe('findings list rows', () => {
  it('shows every incident header and finding by default', () => {
    expect([...visibleRows(ix, all)]).toEqual([0, 1, 2, 3, 4]);
  });

  it('filters by severity and by signal, and hides the findings of a collapsed incident', () => {
    expect([...visibleRows(ix, { ...all, severities: { fault: false, warning: true, info: true } })]).toEqual([3, 4]);
    expect([...visibleRows(ix, { ...all, signal: 'stale_score' })]).toEqual([0, 1, 2]);
    expect([...visibleRows(ix, { ...all, collapsed: new Set([0]) })]).toEqual([0, 3, 4]);
  });

  it('counts findings by severity, finds the first row of a turn, labels incidents', () => {
    expect(countBySeverity(ix)).toEqual({ fault: 2, warning: 1, info: 0 });
    expect(firstRowAtTurn(ix, visibleRows(ix, all), 6)).toBe(2);
    expect(incidentLabel(ix, 0)).toEqual({ signal: 'stale_score', from: 5, to: 6, count: 2 });
  });
});
