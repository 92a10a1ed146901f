import { describe, expect, it } from 'vitest';
import { chipKind, headline, PRUNE_OK_SAY, rangeAdvice } from './headline.ts';

describe('headline', () => {
  it('all-faults turn 112: prune_ok with a drop and two faults reads DROP and names the faults, never "pruning may proceed"', () => {
    const h = headline({
      turn: 112,
      action: 'prune_ok',
      recompute: [],
      drop: ['m194'],
      findings: [{ signal: 'relevance_inflation' }, { signal: 'monotonic_drift' }, { signal: 'poisoned_span' }],
    });
    expect(h.kind).toBe('drop');
    expect(h.tone).toBe('fault');
    expect(h.faults).toBe(2);
    expect(h.findings.map((f) => f.signal)).toEqual(['monotonic_drift', 'poisoned_span', 'relevance_inflation']);
    expect(h.text).toMatch(/^DROP m194 — poisoned span, remove it, do not rescore; 2 faults, 1 warning: monotonic_drift \(/);
    expect(h.text).not.toMatch(/pruning may proceed/);
    expect(h.say).not.toBe(PRUNE_OK_SAY);
  });
  it('a fault with nothing to recompute or drop is FAULT; warnings only PRUNE WITH CARE; nothing PRUNE OK', () => {
    const base = { turn: 1, action: 'prune_ok' as const, recompute: [], drop: [] };
    expect(headline({ ...base, findings: [{ signal: 'orphaned_parent' }] }).kind).toBe('fault');
    expect(headline({ ...base, findings: [{ signal: 'spread_collapse' }] }).kind).toBe('warning');
    const ok = headline({ ...base, findings: [{ signal: 'unscored_span' }] });
    expect(ok.kind).toBe('prune_ok');
    expect(ok.say).toBe(PRUNE_OK_SAY);
  });
  it('the §5 action comes first; a drop beside it is its own clause', () => {
    const h = headline({ turn: 9, action: 'recompute', recompute: ['a', 'b'], drop: ['c'], findings: [{ signal: 'stale_score' }] });
    expect(h.kind).toBe('recompute');
    expect(h.text).toContain('RECOMPUTE 2 spans (a, b)');
    expect(h.text).toContain('drop c (poisoned, do not rescore)');
    expect(headline({ turn: 9, action: 'freeze', recompute: [], drop: [], findings: [{ signal: 'relevance_collapse' }] }).label).toBe('FREEZE');
  });
  it('the overview chip from an ack: signals by name, unknown ones ignored', () => {
    expect(chipKind({ action: 'prune_ok', drop: [], signals: ['monotonic_drift', 'not_a_signal'] })).toBe('fault');
    expect(chipKind({ action: 'prune_ok', drop: [], signals: [] })).toBe('prune_ok');
    expect(chipKind({ action: 'freeze', drop: ['x'], signals: ['relevance_collapse'] })).toBe('freeze');
  });
  it('a report range never says "prune as usual" where a fault fired', () => {
    expect(rangeAdvice(true)).not.toContain('prune as usual');
    expect(rangeAdvice(false)).toContain('prune as usual');
  });
});
