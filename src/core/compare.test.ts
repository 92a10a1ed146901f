import { describe, expect, it } from 'vitest';
import { alignedPoints, compareSessions, counterpartIndex, newIncidents, outlineOfReport, relativePosition } from './compare.ts';
import { incidentsOf, runsOf } from './incidents.ts';
import type { SessionOutput } from './checkOutput.ts';
import { SEVERITY, SIGNALS, type Action, type Finding, type Signal } from './signals.ts';

/** A report session from turn numbers and, per turn, the signals that fired. */
function session(turns: number[], fired: Record<number, Signal[]> = {}): SessionOutput {
  const findings: Finding[] = [];
  const verdicts = turns.map((turn) => {
    const signals = fired[turn] ?? [];
    for (const signal of signals) findings.push({ turn, signal, severity: SEVERITY[signal], span_ids: [], message: '' });
    // contract §5: freeze on relevance_collapse, recompute on an untrustworthy score
    const action: Action = signals.includes('relevance_collapse')
      ? 'freeze'
      : signals.some((s) => s === 'stale_score' || s === 'unbound_score' || s === 'unscored_span')
        ? 'recompute'
        : 'prune_ok';
    return { turn, action, prune_safe: action === 'prune_ok', recompute: [], drop: signals.includes('poisoned_span') ? ['x'] : [] };
  });
  return { session_id: 's', turns: turns.length, findings, verdicts, metrics: [] };
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const on = (turns: number[], ...signals: Signal[]): Record<number, Signal[]> => Object.fromEntries(turns.map((t) => [t, signals]));
/** Several `on`s together: a turn named twice gets both lists, in contract §4 order. */
function all(...parts: Record<number, Signal[]>[]): Record<number, Signal[]> {
  const out: Record<number, Signal[]> = {};
  for (const part of parts) for (const [t, signals] of Object.entries(part)) (out[Number(t)] ??= []).push(...signals);
  for (const list of Object.values(out)) list.sort((x, y) => SIGNALS.indexOf(x) - SIGNALS.indexOf(y));
  return out;
}

describe('alignedPoints', () => {
  it('by turn: the union of turn numbers, a turn only one side has paired with nothing', () => {
    expect(alignedPoints([1, 2, 4], [2, 3, 4, 5], 'turn')).toEqual([
      { a: 0, b: -1 },
      { a: 1, b: 0 },
      { a: -1, b: 1 },
      { a: 2, b: 2 },
      { a: -1, b: 3 },
    ]);
  });

  it('by position: the longer run sets the points, each paired with the shorter run’s snapshot at the same share', () => {
    // 2 against 4: A's first half is B's first two snapshots
    expect(alignedPoints([10, 20], [1, 2, 3, 4], 'relative')).toEqual([
      { a: 0, b: 0 },
      { a: 0, b: 1 },
      { a: 1, b: 2 },
      { a: 1, b: 3 },
    ]);
    // symmetric: swapping A and B swaps the pairs
    expect(alignedPoints([1, 2, 3, 4], [10, 20], 'relative').map((p) => [p.b, p.a])).toEqual([
      [0, 0],
      [0, 1],
      [1, 2],
      [1, 3],
    ]);
    // equal lengths pair index with index, whatever the turn numbers
    expect(alignedPoints([5, 9, 70], [1, 2, 3], 'relative')).toEqual([0, 1, 2].map((i) => ({ a: i, b: i })));
    // first with first and last with last
    const p = alignedPoints(range(1, 7), range(1, 100), 'relative');
    expect(p[0]).toEqual({ a: 0, b: 0 });
    expect(p[p.length - 1]).toEqual({ a: 6, b: 99 });
  });

  it('an empty session is compared with nothing', () => {
    expect(alignedPoints([], [1, 2], 'relative')).toEqual([
      { a: -1, b: 0 },
      { a: -1, b: 1 },
    ]);
    expect(relativePosition(0, 1)).toBe(0);
    expect(relativePosition(3, 4)).toBe(1);
  });
});

describe('compareSessions', () => {
  it('counts the turns each signal fired on in A and B, and B − A', () => {
    const a = outlineOfReport(session(range(1, 10), { ...on([2, 3], 'stale_score'), 7: ['canary_inversion', 'stale_score'] }));
    const b = outlineOfReport(session(range(1, 10), on([4, 5, 6, 7, 8], 'canary_inversion')));
    expect(compareSessions(a, b).signals).toEqual([
      { signal: 'stale_score', severity: 'fault', a: 3, b: 0, difference: -3 },
      { signal: 'canary_inversion', severity: 'warning', a: 1, b: 5, difference: 4 },
    ]);
  });

  it('the first divergence is the first shared turn whose verdicts differ, and names the signal behind it', () => {
    const a = outlineOfReport(session(range(1, 10), { 3: ['canary_inversion'], 6: ['stale_score'] }));
    // B: canary_inversion at 3 too (a warning: verdict still prune_ok), then collapse at 5
    const b = outlineOfReport(session(range(1, 10), { 3: ['spread_collapse'], 5: ['spread_collapse', 'canary_inversion', 'relevance_collapse'] }));
    const d = compareSessions(a, b).firstDivergence!;
    expect(d.a).toMatchObject({ turn: 5, action: 'prune_ok' });
    expect(d.b).toMatchObject({ turn: 5, action: 'freeze' });
    expect(d.cause).toBe('relevance_collapse');
    expect(d.signals).toEqual(['spread_collapse', 'canary_inversion', 'relevance_collapse']);
  });

  it('freeze outranks recompute as the cause; a drop on one side only is a divergence too', () => {
    const a = outlineOfReport(session([1, 2], { 1: ['stale_score'], 2: ['poisoned_span'] }));
    const b = outlineOfReport(session([1, 2], { 1: ['stale_score', 'relevance_collapse'] }));
    const c = compareSessions(a, b);
    expect(c.firstDivergence).toMatchObject({ a: { turn: 1, action: 'recompute' }, b: { turn: 1, action: 'freeze' }, cause: 'relevance_collapse' });
    const d = compareSessions(outlineOfReport(session([1, 2], { 2: ['poisoned_span'] })), outlineOfReport(session([1, 2])));
    expect(d.firstDivergence).toMatchObject({ a: { turn: 2, action: 'prune_ok', drops: true }, b: { turn: 2, drops: false }, cause: 'poisoned_span' });
  });

  it('by turn, turns only one side has never diverge; by position they are compared', () => {
    // A is healthy on 1–5; B ran 6–10 and recomputed on its first turn
    const a = outlineOfReport(session(range(1, 5)));
    const b = outlineOfReport(session(range(6, 10), { 6: ['unbound_score'] }));
    expect(compareSessions(a, b, 'turn').firstDivergence).toBeNull();
    expect(compareSessions(a, b, 'relative').firstDivergence).toMatchObject({ a: { turn: 1 }, b: { turn: 6 }, cause: 'unbound_score' });
  });

  it('by position, a run twice as long diverges at the same share of the run', () => {
    const a = outlineOfReport(session(range(1, 10), on([8, 9, 10], 'relevance_collapse')));
    const b = outlineOfReport(session(range(1, 20), on(range(13, 20), 'relevance_collapse')));
    // B froze from 60% (turn 13); A from 70% (turn 8): at B's turn 13 A's turn 7 is still prune_ok
    expect(compareSessions(a, b, 'relative').firstDivergence).toMatchObject({ a: { turn: 7, action: 'prune_ok' }, b: { turn: 13, action: 'freeze' } });
    // by turn, B's turns 11–20 have no counterpart; at turns 8–10 A froze and B did not
    expect(compareSessions(a, b, 'turn').firstDivergence).toMatchObject({ a: { turn: 8, action: 'freeze' }, b: { turn: 8, action: 'prune_ok' } });
  });

  it('identical sessions do not diverge and share every incident', () => {
    const s = outlineOfReport(session(range(1, 30), { ...on([3, 4, 5], 'stale_score'), ...on([20, 21], 'relevance_collapse') }));
    const c = compareSessions(s, s);
    expect(c.firstDivergence).toBeNull();
    expect(c.onlyA).toEqual([]);
    expect(c.onlyB).toEqual([]);
    expect(c.both.map((p) => [p.a.signal, p.a.firstTurn, p.b.lastTurn])).toEqual([
      ['stale_score', 3, 5],
      ['relevance_collapse', 20, 21],
    ]);
  });

  it('matches incidents by signal and overlapping turns, one with several', () => {
    const a = outlineOfReport(session(range(1, 40), { ...on(range(5, 12), 'stale_score'), ...on([30], 'orphaned_parent') }));
    const b = outlineOfReport(
      session(
        range(1, 40),
        all(
          on([4, 5], 'stale_score'), // overlaps A's 5–12 at turn 5
          on([12, 13, 14], 'stale_score'), // overlaps at turn 12
          on([20], 'stale_score'), // new
          on(range(5, 12), 'unbound_score'), // same turns, another signal: new
          on([31], 'orphaned_parent'), // next to A's 30, not overlapping
        ),
      ),
    );
    const c = compareSessions(a, b);
    const brief = (xs: { signal: Signal; firstTurn: number; lastTurn: number }[]): string[] => xs.map((x) => `${x.signal} ${x.firstTurn}-${x.lastTurn}`);
    expect(c.both.map((p) => `${brief([p.a])[0]} = ${brief([p.b])[0]}`)).toEqual([
      'stale_score 5-12 = stale_score 4-5',
      'stale_score 5-12 = stale_score 12-14',
    ]);
    expect(brief(c.onlyA)).toEqual(['orphaned_parent 30-30']);
    expect(brief(c.onlyB)).toEqual(['unbound_score 5-12', 'stale_score 20-20', 'orphaned_parent 31-31']);
    expect(brief(newIncidents(c, 'fault'))).toEqual(brief(c.onlyB));
  });

  it('by position, incidents overlap when the shares of their runs do', () => {
    // A: 10 turns, incident on 5–6 (40–60%); B: 20 turns
    const a = outlineOfReport(session(range(1, 10), on([5, 6], 'relevance_collapse')));
    const hit = outlineOfReport(session(range(1, 20), on([12], 'relevance_collapse'))); // 55–60%
    const touching = outlineOfReport(session(range(1, 20), on([13], 'relevance_collapse'))); // 60–65%: only touches
    expect(compareSessions(a, hit, 'relative').both).toHaveLength(1);
    expect(compareSessions(a, touching, 'relative').onlyB).toHaveLength(1);
    // by turn, turn 12 is outside A's 5–6
    expect(compareSessions(a, hit, 'turn').onlyB).toHaveLength(1);
  });

  it('the regression gate counts only incidents only in B at or above the level', () => {
    const a = outlineOfReport(session(range(1, 10), on([2], 'stale_score')));
    const b = outlineOfReport(session(range(1, 10), { ...on([2, 3], 'stale_score'), ...on([6, 7], 'canary_inversion'), ...on([8], 'unscored_span') }));
    const c = compareSessions(a, b);
    expect(newIncidents(c, 'fault')).toEqual([]); // stale_score 2–3 overlaps A's
    expect(newIncidents(c, 'warning').map((x) => x.signal)).toEqual(['canary_inversion']);
  });
});

describe('incidents', () => {
  it('group consecutive snapshots in session order, whatever the gaps in turn numbers', () => {
    const order = [1, 2, 5, 9, 10, 12];
    const findings: Finding[] = [2, 5, 9, 12].map((turn) => ({ turn, signal: 'stale_score', severity: 'fault', span_ids: [], message: '' }));
    expect(incidentsOf(findings, order)).toEqual([
      { signal: 'stale_score', first: 1, last: 3, firstTurn: 2, lastTurn: 9 },
      { signal: 'stale_score', first: 5, last: 5, firstTurn: 12, lastTurn: 12 },
    ]);
    // the human output's runs, the same rule
    expect(runsOf([2, 5, 9, 12], order)).toEqual([
      [2, 9],
      [12, 12],
    ]);
  });
});

describe('counterpartIndex', () => {
  it('by turn: the same turn number or none; by position: the same share of the run', () => {
    expect(counterpartIndex([1, 2, 3], [2, 3, 4], 0, 'turn')).toBe(-1);
    expect(counterpartIndex([1, 2, 3], [2, 3, 4], 2, 'turn')).toBe(1);
    expect(counterpartIndex(range(1, 10), range(1, 20), 6, 'relative')).toBe(13);
    expect(counterpartIndex(range(1, 20), range(1, 10), 13, 'relative')).toBe(6);
    expect(counterpartIndex(range(1, 10), [], 3, 'relative')).toBe(-1);
  });
});
