import { describe, expect, it } from 'vitest';
import type { AlertFiring, SessionSummary } from '../../../src/protocol/relay.ts';
import { applyFrame, useOverview, visibleRows, type OverviewState } from './overviewStore.ts';

function summary(id: string, patch: Partial<SessionSummary> = {}): SessionSummary {
  return {
    session_id: id,
    title: null,
    status: 'live',
    turns: 1,
    last_turn: 1,
    verdict: { turn: 1, action: 'prune_ok', prune_safe: true, recompute: [], drop: [], signals: [] },
    worst_recent: null,
    worst_recent_turn: null,
    window: 20,
    last_fault: null,
    counts: {},
    rate_per_min: null,
    imported: false,
    spread: [],
    canary_rank: [],
    updated_at: '2026-11-30T10:00:00.000Z',
    analysed: true,
    last_compaction: null,
    agent: null,
    project: null,
    context: null,
    ...patch,
  };
}

const state = (): OverviewState => ({ ...useOverview.getInitialState() });

describe('overview frames', () => {
  it('hello replaces, summaries update and remove, alerts become toasts', () => {
    let s = state();
    s = { ...s, ...applyFrame(s, { type: 'hello', sessions: [summary('a'), summary('b')], alerts: [], analysis: true }) };
    s = { ...s, ...applyFrame(s, { type: 'summaries', sessions: [summary('a', { turns: 9 })], removed: ['b'] }) };
    expect([...s.sessions!.values()].map((x) => [x.session_id, x.turns])).toEqual([['a', 9]]);
    const alert = { id: 'x1', session_id: 'a' } as AlertFiring;
    s = { ...s, ...applyFrame(s, { type: 'alert', alert }) };
    expect(s.toasts).toEqual([alert]);
    expect(s.alerts).toEqual([alert]);
  });
});

describe('visibleRows', () => {
  const sessions = new Map(
    [
      summary('calm', { updated_at: '2026-11-30T10:00:09.000Z' }),
      summary('collapsing', {
        title: 'Nightly eval',
        verdict: { turn: 3, action: 'freeze', prune_safe: false, recompute: [], drop: [], signals: ['relevance_collapse'] },
        worst_recent: 'fault',
      }),
      summary('stale', {
        verdict: { turn: 3, action: 'recompute', prune_safe: false, recompute: ['a'], drop: [], signals: ['stale_score'] },
        worst_recent: 'fault',
      }),
      summary('warned', { worst_recent: 'warning' }),
      summary('old', { status: 'ended' }),
    ].map((s) => [s.session_id, s]),
  );

  it('sorts worst first: freeze, recompute, then the worst recent severity, then live before ended', () => {
    expect(visibleRows(sessions, '', 'all').map((s) => s.session_id)).toEqual(['collapsing', 'stale', 'warned', 'calm', 'old']);
  });

  it('filters by id or title, and by state', () => {
    expect(visibleRows(sessions, 'NIGHTLY', 'all').map((s) => s.session_id)).toEqual(['collapsing']);
    expect(visibleRows(sessions, 'a', 'all').map((s) => s.session_id)).toEqual(['collapsing', 'stale', 'warned', 'calm']);
    expect(visibleRows(sessions, '', 'ended').map((s) => s.session_id)).toEqual(['old']);
  });
});
