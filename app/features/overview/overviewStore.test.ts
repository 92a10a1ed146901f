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

  it('ranks sessions where no score detector ran by their §8.9 headline: confirmed losses, then pressure', () => {
    const ctx = (kind: string, confirmed: number, fill: number | null) => ({
      kind,
      label: kind,
      text: kind,
      tokens: 1,
      context_window: 200_000,
      fill,
      compactions: 1,
      confirmed_losses: confirmed,
      orphan_edges: kind === 'lineage_broken' ? 1 : 0,
    });
    const agents = new Map(
      [
        summary('ok-full', { imported: true, context: ctx('context_ok', 0, 0.7) }),
        summary('ok-empty', { imported: true, context: ctx('context_ok', 0, 0.1) }),
        summary('near', { imported: true, context: ctx('near_limit', 0, 0.91) }),
        summary('lost-one', { imported: true, context: ctx('loss_confirmed', 1, 0.2) }),
        summary('lost-three', { imported: true, context: ctx('loss_confirmed', 3, 0.1) }),
        summary('orphaned', { imported: true, context: ctx('lineage_broken', 0, 0.1) }),
        ...sessions.values(),
      ].map((s) => [s.session_id, s]),
    );
    expect(visibleRows(agents, '', 'all').map((s) => s.session_id)).toEqual([
      'collapsing',
      'orphaned',
      'stale',
      'lost-three',
      'lost-one',
      'near',
      'warned',
      'ok-full',
      'ok-empty',
      'calm',
      'old',
    ]);
  });

  it('filters by id or title, and by state', () => {
    expect(visibleRows(sessions, 'NIGHTLY', 'all').map((s) => s.session_id)).toEqual(['collapsing']);
    expect(visibleRows(sessions, 'a', 'all').map((s) => s.session_id)).toEqual(['collapsing', 'stale', 'warned', 'calm']);
    expect(visibleRows(sessions, '', 'ended').map((s) => s.session_id)).toEqual(['old']);
  });
});
