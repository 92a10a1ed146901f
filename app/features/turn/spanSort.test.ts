import { describe, expect, it } from 'vitest';
import type { SpanRow } from '../../../src/worker/client.ts';
import { previewOf } from './spanPreview.ts';
import { clicked, sortSpans, type SpanOrder } from './spanSort.ts';

const row = (spanId: string, over: Partial<SpanRow> = {}): SpanRow => ({
  spanId,
  label: null,
  kind: 'user',
  score: 0.5,
  binding: 'bound',
  rewrites: 0,
  tokens: 10,
  pinned: false,
  textChanged: false,
  ...over,
});

const rows = [
  row('m10', { score: 0.2, tokens: 5, binding: 'stale', rewrites: 1 }),
  row('m2', { score: null, tokens: 50, binding: 'unscored' }),
  row('m1', { score: 0.9, tokens: 20, rewrites: 3 }),
  row('x', { label: 'Bash: go test', score: 0.4, tokens: 20, binding: 'unbound' }),
];
const ids = (o: SpanOrder): string[] => sortSpans(rows, o).map((r) => r.spanId);

describe('span table order', () => {
  it('puts problems first by default, keeps the snapshot order when asked', () => {
    expect(ids({ by: 'problems' })).toEqual(['m10', 'x', 'm2', 'm1']);
    expect(ids({ by: 'snapshot' })).toEqual(['m10', 'm2', 'm1', 'x']);
  });

  it('sorts names numerically by label or id, and flips on a second click', () => {
    const first = clicked({ by: 'problems' }, 'span');
    expect(first).toEqual({ by: 'span', dir: 'ascending' });
    expect(ids(first)).toEqual(['x', 'm1', 'm2', 'm10']);
    expect(ids(clicked(first, 'span'))).toEqual(['m10', 'm2', 'm1', 'x']);
  });

  it('sorts numbers largest first on the first click; a missing score is last either way', () => {
    const score = clicked({ by: 'problems' }, 'score');
    expect(score).toEqual({ by: 'score', dir: 'descending' });
    expect(ids(score)).toEqual(['m1', 'x', 'm10', 'm2']);
    expect(ids(clicked(score, 'score'))).toEqual(['m10', 'x', 'm1', 'm2']);
    // ties keep the snapshot's order
    expect(ids(clicked({ by: 'snapshot' }, 'tokens'))).toEqual(['m2', 'm1', 'x', 'm10']);
  });
});

describe('span text preview', () => {
  it('keeps the first 80 characters on one line', () => {
    expect(previewOf('a\n\n  b ')).toBe('a b');
    const long = previewOf('word '.repeat(40));
    expect(long).toHaveLength(80);
    expect(long.endsWith('…')).toBe(true);
  });
});
