// contract §8.9: the headline of a session where no score detector ran (reference scope, §8.1):
// its words, its precedence (lineage, then confirmed losses, then pressure), and that it never
// speaks of bound scores or of pruning.
import { describe, expect, it } from 'vitest';
import { AGENT_NAMES, agentName, confirmedLosses, contextHeadline, type ContextCompaction, type ContextHeadlineInput } from './contextHeadline.ts';
import { IMPORTED_SOURCES } from '../core/scope.ts';

const SCORED_WORDS = [/PRUNE OK/, /pruning may proceed/i, /\bbound\b/i, /\bprune\b/i];

const lostFile = (turn: number, refetchedAt: number | null): ContextCompaction => ({
  turn,
  items: [
    { kind: 'file', text: '/repo/src/store.ts', confirmed: refetchedAt !== null, refetched_at: refetchedAt },
    { kind: 'user_prompt', text: 'keep the API', confirmed: false, refetched_at: null },
  ],
});

const input = (over: Partial<ContextHeadlineInput> = {}): ContextHeadlineInput => ({
  turn: 210,
  tokensTotal: 60_000,
  window: 200_000,
  pressureThreshold: 0.8,
  orphanEdges: 0,
  compactions: [],
  ...over,
});

describe('contract §8.9 headline of an out-of-scope session', () => {
  it('says CONTEXT OK with the compactions and the fill when nothing is wrong', () => {
    const h = contextHeadline(input({ compactions: [lostFile(132, null)] }));
    expect(h.kind).toBe('context_ok');
    expect(h.tone).toBe('ok');
    expect(h.text).toBe('CONTEXT OK: 1 compaction, no confirmed loss; 30% of the window (60,000 of 200,000 tokens).');
    const none = contextHeadline(input({ window: null }));
    expect(none.text).toBe('CONTEXT OK: no compaction yet; 60,000 tokens in the context (no context window is known).');
  });

  it('names the latest confirmed loss: the turn that went back for it and the compaction that dropped it', () => {
    const h = contextHeadline(input({ compactions: [lostFile(132, 202)] }));
    expect(h.kind).toBe('loss_confirmed');
    expect(h.label).toBe('LOSS CONFIRMED');
    expect(h.text).toBe(
      'LOSS CONFIRMED: turn 202 re-read a file the compaction at turn 132 dropped; 1 compaction, 1 confirmed loss; 30% of the window (60,000 of 200,000 tokens).',
    );
    expect(h.say).toContain('(store.ts)');
    const prompt: ContextCompaction = { turn: 40, items: [{ kind: 'user_prompt', text: 'never touch disk.ts', confirmed: true, refetched_at: 44 }] };
    expect(contextHeadline(input({ compactions: [prompt, lostFile(132, 202)] })).text).toContain('turn 202 re-read a file');
    expect(contextHeadline(input({ turn: 100, compactions: [prompt, lostFile(132, 202)] })).text).toContain(
      'LOSS CONFIRMED: turn 44 restated a prompt the compaction at turn 40 dropped; 1 compaction, 1 confirmed loss',
    );
  });

  it('is of the session as it stood at the turn: a refetch after it is not known yet', () => {
    expect(contextHeadline(input({ turn: 201, compactions: [lostFile(132, 202)] })).kind).toBe('context_ok');
    expect(confirmedLosses([lostFile(132, 202)], 202)).toHaveLength(1);
    // a compaction after the turn is not counted
    expect(contextHeadline(input({ turn: 100, compactions: [lostFile(132, null)] })).text).toContain('no compaction yet');
  });

  it('says NEAR THE LIMIT at or past the pressure threshold, with the share of the window', () => {
    const h = contextHeadline(input({ tokensTotal: 182_000 }));
    expect(h.kind).toBe('near_limit');
    expect(h.text).toBe('NEAR THE LIMIT: 91% of the window (182,000 of 200,000 tokens); no compaction yet.');
    expect(contextHeadline(input({ tokensTotal: 160_000 })).kind).toBe('near_limit');
    expect(contextHeadline(input({ tokensTotal: 159_999 })).kind).toBe('context_ok');
    expect(contextHeadline(input({ tokensTotal: 159_999, pressureThreshold: 0.7 })).kind).toBe('near_limit');
    // no window known: no pressure can be said
    expect(contextHeadline(input({ tokensTotal: 10_000_000, window: null })).kind).toBe('context_ok');
  });

  it('ranks orphaned lineage over a confirmed loss, and a confirmed loss over pressure', () => {
    const all = input({ tokensTotal: 190_000, orphanEdges: 2, compactions: [lostFile(132, 202)] });
    const h = contextHeadline(all);
    expect(h.kind).toBe('lineage_broken');
    expect(h.tone).toBe('fault');
    expect(h.text).toBe('LINEAGE BROKEN: 2 orphan edges at turn 210; 1 compaction, 1 confirmed loss; 95% of the window (190,000 of 200,000 tokens).');
    expect(contextHeadline({ ...all, orphanEdges: 0 }).kind).toBe('loss_confirmed');
    expect(contextHeadline({ ...all, orphanEdges: 0, compactions: [lostFile(132, null)] }).kind).toBe('near_limit');
  });

  it('never speaks of bound scores, of pruning or of PRUNE OK', () => {
    const cases = [
      input(),
      input({ tokensTotal: 199_000 }),
      input({ compactions: [lostFile(1, 2)] }),
      input({ orphanEdges: 1 }),
      input({ window: null, compactions: [lostFile(1, null)] }),
    ];
    for (const c of cases) {
      const h = contextHeadline(c);
      for (const w of SCORED_WORDS) {
        expect(h.text).not.toMatch(w);
        expect(h.say).not.toMatch(w);
        expect(h.label).not.toMatch(w);
      }
    }
  });
});

describe('agentName', () => {
  it('names every source the adapters write as people call the agent (the overview showed "gemini")', () => {
    for (const source of IMPORTED_SOURCES) expect(AGENT_NAMES[source], source).toBeDefined();
    expect(agentName('gemini')).toBe('Gemini CLI');
    expect(agentName('openhands')).toBe('OpenHands');
    expect(agentName('claude-code')).toBe('Claude Code');
    // a source no adapter writes (a harness's own) is shown as it came
    expect(agentName('my-harness')).toBe('my-harness');
  });
});
