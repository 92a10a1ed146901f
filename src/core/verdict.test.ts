// contract §5, written from the contract: the action's precedence (freeze > recompute > prune_ok),
// the recompute list (seeds + one hop, in snapshot order), drop and prune_safe.
// eslint-disable-next-line no-restricted-imports -- the tests run on Node; the engine itself is handed its hash
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Thresholds } from './config.ts';
import { Engine } from './engine.ts';
import type { Verdict } from './signals.ts';
import type { Snapshot, Span } from './wire.ts';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

function span(id: string, over: Partial<Span> = {}): Span {
  const text = over.text ?? `the text of span ${id}`;
  return { span_id: id, text, score: 0.5, text_sha256: sha256(text), tokens: 10, ...over };
}

function snap(turn: number, spans: Span[], extra: Partial<Snapshot> = {}): Snapshot {
  return { type: 'snapshot', session_id: 's', turn, spans, ...extra };
}

/** The verdict of every analysed turn. */
function verdicts(snapshots: readonly Snapshot[], user: Partial<Thresholds> = {}): Verdict[] {
  const engine = new Engine({ sha256, userThresholds: user });
  return snapshots.map((m, i) => {
    const o = engine.ingestLine(JSON.stringify(m), i + 1);
    if (o.kind !== 'turn') throw new Error(`line ${i + 1} was not analysed: ${JSON.stringify(o)}`);
    return o.result.verdict;
  });
}
const last = (snapshots: readonly Snapshot[], user: Partial<Thresholds> = {}): Verdict => verdicts(snapshots, user).at(-1)!;

const stale = (id: string, over: Partial<Span> = {}): Span => span(id, { text_sha256: sha256('what it said when scored'), ...over });
const unbound = (id: string, over: Partial<Span> = {}): Span => span(id, { text_sha256: null, ...over });
const unscored = (id: string, over: Partial<Span> = {}): Span => span(id, { score: null, ...over });
const row = (...ids: string[]): Span[] => ids.map((id) => span(id));

/** Two snapshots of 7 spans at 0.5 and a pinned canary at 0.45: relevance_collapse at the second. */
function collapsed(extra: Span[] = []): Snapshot[] {
  const spans = [...row('s0', 's1', 's2', 's3', 's4', 's5', 's6').map((s) => ({ ...s, score: 0.5 })), span('canary', { score: 0.45, pinned: true }), ...extra];
  return [snap(1, spans), snap(2, spans)];
}

describe('contract §5 action precedence', () => {
  it('prune_ok when nothing is wrong; prune_safe exactly then', () => {
    const v = last([snap(1, row('a', 'b'))]);
    expect(v).toEqual({ turn: 1, action: 'prune_ok', prune_safe: true, recompute: [], drop: [] });
  });

  it('freeze when relevance_collapse holds, even with stale scores around', () => {
    const [first, second] = verdicts(collapsed([stale('x')]));
    expect(first!.action).toBe('recompute'); // one narrow snapshot is not yet a collapse
    expect(second!.action).toBe('freeze');
    expect(second!.prune_safe).toBe(false);
    // the recompute list belongs to the recompute action
    expect(second!.recompute).toEqual([]);
  });

  it('freeze needs both signals: a narrow spread with a healthy canary is prune_ok', () => {
    const spans = [...row('s0', 's1', 's2', 's3', 's4', 's5', 's6', 's7'), span('canary', { pinned: true, score: 0.5 })];
    expect(verdicts([snap(1, spans), snap(2, spans)]).map((v) => v.action)).toEqual(['prune_ok', 'prune_ok']);
  });

  it.each([
    ['a null score', [span('a'), unscored('b')]],
    ['an unbound score', [span('a'), unbound('b')]],
    ['a stale score', [span('a'), stale('b')]],
  ] as const)('recompute for %s', (_what, spans) => {
    const v = last([snap(1, [...spans])]);
    expect(v.action).toBe('recompute');
    expect(v.prune_safe).toBe(false);
    expect(v.recompute).toEqual(['a', 'b']);
  });

  it('recompute on invalidation_shortfall alone', () => {
    const v = last([snap(1, row('a', 'b', 'c', 'd', 'e'), { rewrite: { spans_modified: 2, scores_invalidated: 1, modified_span_ids: ['d'] } })]);
    expect(v.action).toBe('recompute');
    expect(v.recompute).toEqual(['c', 'd', 'e']);
  });

  it('recompute on unreported_rewrite alone: the changed spans are stale too', () => {
    // b's text changed and was rescored and re-bound, but nobody reported the rewrite
    const v = last([snap(1, row('a', 'b', 'c', 'd', 'e')), snap(2, [span('a'), span('b', { text: 'new b' }), span('c'), span('d'), span('e')])]);
    expect(v.action).toBe('recompute');
    expect(v.recompute).toEqual(['a', 'b', 'c']);
  });

  it('drop lists every poisoned span, whatever the action', () => {
    const poisoned = (id: string): Span => span(id, { rewrite_count: 3 });
    expect(last([snap(1, [span('a'), poisoned('p'), span('b', { rewrite_count: 2 }), poisoned('q')])])).toMatchObject({
      action: 'prune_ok',
      prune_safe: true,
      drop: ['p', 'q'],
    });
    expect(last([snap(1, [unscored('a'), poisoned('p')])])).toMatchObject({ action: 'recompute', drop: ['p'] });
    expect(last(collapsed([poisoned('p')]))).toMatchObject({ action: 'freeze', drop: ['p'] });
    expect(last([snap(1, [poisoned('p')])], { max_rewrites: 3 }).drop).toEqual([]);
  });

  it('prune_safe is true exactly when the action is prune_ok', () => {
    const all = [...verdicts(collapsed([stale('x')])), ...verdicts([snap(1, row('a')), snap(2, [unscored('a')])])];
    for (const v of all) expect(v.prune_safe).toBe(v.action === 'prune_ok');
  });
});

describe('contract §5 recompute list: seeds and every span one hop from them, in snapshot order', () => {
  it('neighbours in snapshot order, at both ends', () => {
    expect(last([snap(1, [span('a'), span('b'), stale('c'), span('d'), span('e')])]).recompute).toEqual(['b', 'c', 'd']);
    expect(last([snap(1, [stale('a'), span('b'), span('c')])]).recompute).toEqual(['a', 'b']);
    expect(last([snap(1, [span('a'), span('b'), stale('c')])]).recompute).toEqual(['b', 'c']);
    expect(last([snap(1, [stale('only')])]).recompute).toEqual(['only']);
  });

  it('live derived_from parents and children; dead parents ignored; not two hops', () => {
    const v = last([
      snap(1, [
        span('root'),
        span('parent', { derived_from: ['root'] }),
        span('x'),
        stale('seed', { derived_from: ['parent', 'pruned-long-ago'] }),
        span('y'),
        span('z'),
        span('child', { derived_from: ['seed'] }),
        span('grandchild', { derived_from: ['child'] }),
        span('w'),
      ]),
    ]);
    // parent (a parent), x and y (neighbours), child (a child); not root (parent's parent),
    // grandchild (child's child), z, w
    expect(v.recompute).toEqual(['parent', 'x', 'seed', 'y', 'child']);
  });

  it('several seeds: the union, each id once, in snapshot order', () => {
    const v = last([snap(1, [unbound('h', { derived_from: ['a'] }), span('g'), span('f'), span('e'), unscored('d'), span('c'), span('b'), span('a')])]);
    expect(v.recompute).toEqual(['h', 'g', 'e', 'd', 'c', 'a']);
  });

  it('on a shortfall the reported live modified_span_ids are seeds; unknown ids are ignored', () => {
    const v = last([
      snap(1, row('a', 'b', 'c', 'd', 'e', 'f', 'g'), { rewrite: { spans_modified: 3, scores_invalidated: 0, modified_span_ids: ['f', 'gone', 'b'] } }),
    ]);
    expect(v.recompute).toEqual(['a', 'b', 'c', 'e', 'f', 'g']);
  });

  it('on a shortfall the spans whose text changed are seeds too', () => {
    const v = last([
      snap(1, row('a', 'b', 'c', 'd', 'e', 'f', 'g')),
      snap(2, [span('a'), span('b'), span('c'), span('d'), span('e'), span('f', { text: 'changed f' }), span('g')], {
        rewrite: { spans_modified: 1, scores_invalidated: 0, modified_span_ids: ['b'] },
      }),
    ]);
    expect(v.recompute).toEqual(['a', 'b', 'c', 'e', 'f', 'g']);
  });

  it('a shortfall that identifies no span at all: every live span', () => {
    expect(last([snap(1, row('a', 'b', 'c', 'd'), { rewrite: { spans_modified: 2, scores_invalidated: 1 } })]).recompute).toEqual(['a', 'b', 'c', 'd']);
    // reported ids that are not live identify nothing either
    expect(last([snap(1, row('a', 'b', 'c', 'd'), { rewrite: { spans_modified: 2, scores_invalidated: 1, modified_span_ids: ['gone'] } })]).recompute).toEqual([
      'a',
      'b',
      'c',
      'd',
    ]);
  });

  it('an empty buffer with a shortfall: recompute, with nothing to list', () => {
    expect(last([snap(1, []), snap(2, [], { rewrite: { spans_modified: 1, scores_invalidated: 0 } })])).toMatchObject({
      action: 'recompute',
      prune_safe: false,
      recompute: [],
    });
  });

  it('seeds from a shortfall do not replace the null/unbound/stale seeds', () => {
    const v = last([
      snap(1, [span('a'), span('b'), unscored('c'), span('d'), span('e'), span('f'), span('g')], {
        rewrite: { spans_modified: 1, scores_invalidated: 0, modified_span_ids: ['g'] },
      }),
    ]);
    expect(v.recompute).toEqual(['b', 'c', 'd', 'f', 'g']);
  });

  it('the verdict follows the snapshot: it clears once the scores are recomputed', () => {
    const vs = verdicts([
      snap(1, row('a', 'b')),
      snap(2, [span('a'), unscored('b', { text: 'b2' })], { rewrite: { spans_modified: 1, scores_invalidated: 1 } }),
      snap(3, [span('a'), span('b', { text: 'b2' })]),
    ]);
    expect(vs.map((v) => v.action)).toEqual(['prune_ok', 'recompute', 'prune_ok']);
    expect(vs[1]!.recompute).toEqual(['a', 'b']);
  });
});
