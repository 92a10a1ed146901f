import { describe, expect, it } from 'vitest';
import type { JobSummary } from '../../../src/worker/client.ts';
import { partnerX } from '../../../src/charts/align.ts';
import { choosePartnerSession, compareHash, partnerFromHash } from './compareStore.ts';

const summary = (...ids: string[]): JobSummary => ({
  sessions: ids.map((sessionId) => ({ sessionId })) as JobSummary['sessions'],
  inputErrorCount: 0,
  inputErrors: [],
  linesRead: 0,
  format: 'jsonl',
  gzip: false,
  scorer: 'auto',
});

describe('compare state', () => {
  it('picks B’s session: the one asked for, else the first, else (same source) the first that is not A’s', () => {
    expect(choosePartnerSession(summary('x', 'y'), { kind: 'sample', name: 'f' }, null, 'x')).toBe('x');
    expect(choosePartnerSession(summary('x', 'y'), { kind: 'same' }, null, 'x')).toBe('y');
    expect(choosePartnerSession(summary('x', 'y'), { kind: 'same' }, 'x', 'x')).toBe('x');
    expect(choosePartnerSession(summary('x'), { kind: 'sample', name: 'f' }, 'nope', null)).toBeNull();
  });

  it('a link carries B and the alignment, and reads back the same; a dropped file is not in it', () => {
    for (const [partner, requested, align] of [
      [{ kind: 'sample', name: 'healthy.jsonl' }, null, 'turn'],
      [{ kind: 'live', sessionId: 'run:42' }, 'run:42', 'relative'],
      [{ kind: 'same' }, 'agent-b', 'turn'],
    ] as const) {
      const h = Object.fromEntries(Object.entries(compareHash(partner, requested, align)).filter((e): e is [string, string] => e[1] !== null));
      expect(partnerFromHash(h)).toEqual({ partner, requested, align });
    }
    expect(compareHash({ kind: 'file', name: 'x', file: new Blob() as File }, null, 'turn').compare).toBeNull();
    expect(partnerFromHash({ compare: 'sample:../../etc/passwd' })).toBeNull();
  });

  it('draws B on A’s axis by share of the run when aligned by position', () => {
    const a = [1, 2, 3, 4, 5];
    const b = [10, 20, 30];
    expect([...partnerX(new Float64Array([10, 20, 30]), b, a, 'turn')]).toEqual([10, 20, 30]);
    expect([...partnerX(new Float64Array([10, 20, 30]), b, a, 'relative')]).toEqual([1, 3, 5]);
    // A with a gap: halfway between turns 1 and 100
    expect([...partnerX(new Float64Array([20]), b, [1, 100], 'relative')]).toEqual([50.5]);
  });
});
