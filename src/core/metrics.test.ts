// contract §3 per-turn metrics, written from the contract: population stdev, the even-count
// median, canary_rank with ties, estimated tokens, distinct orphan edges, texts_changed.
// eslint-disable-next-line no-restricted-imports -- the tests run on Node; the engine itself is handed its hash
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TurnMetrics } from './analyse.ts';
import { Engine } from './engine.ts';
import { CheckOutputBuilder } from './checkOutput.ts';
import type { Snapshot, Span } from './wire.ts';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

function span(id: string, over: Partial<Span> = {}): Span {
  const text = over.text ?? `the text of span ${id}`;
  return { span_id: id, text, score: 0.5, text_sha256: sha256(text), tokens: 10, ...over };
}

/** A span without `tokens`: its count is estimated from its text. */
function untokened(id: string, text: string, over: Partial<Span> = {}): Span {
  const s = span(id, { text, ...over });
  delete s.tokens;
  return s;
}

function snap(turn: number, spans: Span[], extra: Partial<Snapshot> = {}): Snapshot {
  return { type: 'snapshot', session_id: 's', turn, spans, ...extra };
}

const scored = (...scores: (number | null)[]): Span[] => scores.map((score, i) => span(`s${i}`, { score }));

function metrics(snapshots: readonly Snapshot[]): TurnMetrics[] {
  const engine = new Engine({ sha256 });
  return snapshots.map((m, i) => {
    const o = engine.ingestLine(JSON.stringify(m), i + 1);
    if (o.kind !== 'turn') throw new Error(`line ${i + 1} was not analysed: ${JSON.stringify(o)}`);
    return o.result.metrics;
  });
}
const one = (spans: Span[], extra: Partial<Snapshot> = {}): TurnMetrics => metrics([snap(1, spans, extra)])[0]!;

describe('contract §3 score statistics over finite scores', () => {
  it('population standard deviation, not the sample one', () => {
    expect(one(scored(0.25, 0.75)).stdev_score).toBe(0.25);
    expect(one(scored(1, 2, 3, 4)).stdev_score).toBeCloseTo(Math.sqrt(1.25), 12);
    expect(one(scored(0.7)).stdev_score).toBe(0);
  });

  it('the median of an even count is the mean of the middle two, whatever the order', () => {
    expect(one(scored(4, 1, 3, 2)).median_score).toBe(2.5);
    expect(one(scored(0.9, 0.1)).median_score).toBe(0.5);
    expect(one(scored(5, 1, 3)).median_score).toBe(3);
    expect(one(scored(-1, 10, 0)).median_score).toBe(0);
  });

  it('null scores are left out of n_scored, mean, median and stdev, but not n_spans', () => {
    const m = one(scored(null, 1, null, 3));
    expect(m).toMatchObject({ n_spans: 4, n_scored: 2, mean_score: 2, median_score: 2, stdev_score: 1 });
  });

  it('n_scored = 0: no mean, median or stdev', () => {
    expect(one(scored(null, null))).toMatchObject({ n_spans: 2, n_scored: 0, mean_score: null, median_score: null, stdev_score: null });
    expect(one([])).toMatchObject({
      n_spans: 0,
      n_scored: 0,
      tokens_total: 0,
      mean_score: null,
      median_score: null,
      stdev_score: null,
      orphan_edges: 0,
      texts_changed: 0,
    });
  });

  it('a score of 0 and negative scores are finite scores', () => {
    expect(one(scored(0, -0.5, 0.5))).toMatchObject({ n_scored: 3, mean_score: 0, median_score: 0 });
  });
});

describe('contract §3 canaries', () => {
  it('canary_rank is 1 + the number of scored spans with a strictly higher score (ties share)', () => {
    const m = one([
      span('hi', { score: 0.9 }),
      span('p1', { score: 0.5, pinned: true }),
      span('t1', { score: 0.5 }),
      span('p2', { score: 0.9, pinned: true }),
      span('n', { score: null }),
      span('lo', { score: 0.3 }),
      span('p3', { score: 0.3, pinned: true }),
      span('pn', { score: null, pinned: true }),
    ]);
    // scores 0.9 0.5 0.5 0.9 0.3 0.3: median (0.5 + 0.5) / 2
    expect(m.median_score).toBe(0.5);
    expect(m.canaries).toEqual([
      { span_id: 'p1', score: 0.5, rank: 3, below_median: false },
      { span_id: 'p2', score: 0.9, rank: 1, below_median: false },
      { span_id: 'p3', score: 0.3, rank: 5, below_median: true },
    ]);
  });

  it('no pinned span: no canaries', () => {
    expect(one(scored(0.1, 0.2)).canaries).toEqual([]);
  });
});

describe('contract §2/§3 tokens', () => {
  it('tokens_total sums every live span, scored or not', () => {
    expect(one([span('a', { tokens: 7 }), span('b', { tokens: 0, score: null }), span('c', { tokens: 100, text_sha256: null })]).tokens_total).toBe(107);
  });

  it.each([
    ['', 0],
    ['a', 1],
    ['abcd', 1],
    ['abcde', 2],
    ['héllo', 2], // 5 code points
    ['中文中文中', 2], // 5 code points, 15 UTF-8 bytes
    ['🌍🌍🌍🌍', 1], // 4 astral code points = 8 UTF-16 units
    ['🌍🌍🌍🌍🌍', 2], // 5 code points, not 10 units
    ['a🌍b🌍c🌍d🌍e', 3], // 9 code points
  ])('absent tokens of %j: ceil(code points / 4) = %i', (text, expected) => {
    expect(one([untokened('a', text)]).tokens_total).toBe(expected);
  });

  it('estimates are marked and add up with given counts', () => {
    const m = one([untokened('a', 'abcdefgh'), span('b', { tokens: 5 })]);
    expect(m.tokens_total).toBe(7);
    expect(m.tokens_estimated).toBe(true);
    expect(one([span('b', { tokens: 5 })]).tokens_estimated).toBe(false);
  });

  it('a span that stops carrying tokens is estimated from its text, not given last turn’s count', () => {
    const [first, second] = metrics([snap(1, [span('a', { text: 'twelve chars', tokens: 1000 })]), snap(2, [untokened('a', 'twelve chars')])]);
    expect(first!.tokens_total).toBe(1000);
    expect(second!.tokens_total).toBe(3);
    expect(second!.tokens_estimated).toBe(true);
  });

  it('an estimate carried over an unchanged text stays the estimate', () => {
    const ms = metrics([snap(1, [untokened('a', 'abcdefghi')]), snap(2, [untokened('a', 'abcdefghi')]), snap(3, [untokened('a', 'abcd')])]);
    expect(ms.map((m) => m.tokens_total)).toEqual([3, 3, 1]);
  });
});

describe('contract §3 orphan_edges', () => {
  it('counts distinct (citing span, missing parent) pairs', () => {
    const m = one([
      span('x', { derived_from: ['g', 'g', 'h', 'live', 'x'] }),
      span('live'),
      span('y', { derived_from: ['g'] }),
      span('z', { derived_from: [] }),
    ]);
    // (x,g) (x,h) (y,g); not (x,live), not (x,x), not g twice for x
    expect(m.orphan_edges).toBe(3);
  });

  it('no derived_from: 0', () => {
    expect(one([span('a'), span('b')]).orphan_edges).toBe(0);
  });
});

describe('contract §3 texts_changed and the reported rewrite', () => {
  it('ids present in this and the previous snapshot whose text differs', () => {
    const ms = metrics([
      snap(1, [span('a', { text: 'a1' }), span('b', { text: 'b1' }), span('gone', { text: 'x' }), span('c', { text: 'c1' })]),
      snap(2, [span('c', { text: 'c2' }), span('b', { text: 'b1' }), span('a', { text: 'a2' }), span('new', { text: 'x' })]),
    ]);
    expect(ms.map((m) => m.texts_changed)).toEqual([0, 2]);
  });

  it('across a gap in turn numbers, against the previous snapshot', () => {
    const ms = metrics([snap(1, [span('a', { text: 'one' })]), snap(5, [span('a', { text: 'two' })]), snap(9, [span('a', { text: 'two' })])]);
    expect(ms.map((m) => m.texts_changed)).toEqual([0, 1, 0]);
  });

  it('a text that changed only in a way UTF-16 sees (NFC vs NFD) changed', () => {
    const ms = metrics([snap(1, [span('a', { text: 'é' })]), snap(2, [span('a', { text: 'e\u0301' })])]);
    expect(ms[1]!.texts_changed).toBe(1);
  });

  it('spans_modified / scores_invalidated as reported; absent = 0 and 0', () => {
    expect(one([span('a')], { rewrite: { spans_modified: 3, scores_invalidated: 1 } })).toMatchObject({ spans_modified: 3, scores_invalidated: 1 });
    expect(one([span('a')])).toMatchObject({ spans_modified: 0, scores_invalidated: 0 });
  });
});

describe('contract §6 metrics in the report', () => {
  it('each turn carries contract §3 metrics with the keys of the --json example', () => {
    const engine = new Engine({ sha256 });
    const report = new CheckOutputBuilder();
    report.add(
      engine.ingestLine(JSON.stringify(snap(12, [span('a', { tokens: 5, score: 0.5 }), span('b', { tokens: 7, score: 0.7, derived_from: ['z'] })])), 1),
    );
    const [m] = report.build().sessions[0]!.metrics;
    expect(m).toMatchObject({ turn: 12, tokens_total: 12, mean_score: 0.6, median_score: 0.6, n_scored: 2, orphan_edges: 1 });
    expect(m!.stdev_score).toBeCloseTo(0.1, 12);
  });
});
