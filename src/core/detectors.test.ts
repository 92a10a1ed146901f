// contract §4, written from the contract (not from analyse.ts): for each of the sixteen signals a
// positive case, a negative case and the boundaries, driven through the real Engine the
// way a transcript is (one JSON line at a time).
// eslint-disable-next-line no-restricted-imports -- the tests run on Node; the engine itself is handed its hash
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TurnResult } from './analyse.ts';
import type { Thresholds } from './config.ts';
import { Engine } from './engine.ts';
import { SIGNALS, type Finding, type Signal } from './signals.ts';
import type { Message, SessionHeader, Snapshot, Span, ThresholdOverrides } from './wire.ts';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** A healthy span: finite score bound to its own text. Any field can be overridden. */
function span(id: string, over: Partial<Span> = {}): Span {
  const text = over.text ?? `the text of span ${id}`;
  return { span_id: id, text, score: 0.5, text_sha256: sha256(text), tokens: 10, ...over };
}

function snap(turn: number, spans: Span[], extra: Partial<Snapshot> = {}, session = 's'): Snapshot {
  return { type: 'snapshot', session_id: session, turn, spans, ...extra };
}

function header(config: ThresholdOverrides, session = 's'): SessionHeader {
  return { type: 'session', session_id: session, config };
}

const rewrite = (spans_modified: number, scores_invalidated = spans_modified, ids?: string[]): Partial<Snapshot> => ({
  rewrite: { spans_modified, scores_invalidated, ...(ids === undefined ? {} : { modified_span_ids: ids }) },
});

/** One span `a` with the given tokens and score: its mean is the score. */
function one(turn: number, tokens: number, score: number | null, modified = 0, session = 's'): Snapshot {
  return snap(turn, [span('a', { tokens, score })], modified > 0 ? rewrite(modified) : {}, session);
}

/** `n` spans s0…s(n-1) with the given scores (cycled), plus `more` after them. */
function spread(turn: number, n: number, scores: readonly (number | null)[], more: Span[] = [], session = 's'): Snapshot {
  const spans: Span[] = [];
  for (let i = 0; i < n; i++) spans.push(span(`s${i}`, { score: scores[i % scores.length]! }));
  return snap(turn, [...spans, ...more], {}, session);
}
const NARROW = [0.5];
const WIDE = [0.1, 0.3, 0.5, 0.7, 0.9];

/** Runs the messages, one JSON line each, and returns every analysed turn. Any input error fails the test. */
function run(messages: readonly Message[], user: Partial<Thresholds> = {}): TurnResult[] {
  const engine = new Engine({ sha256, userThresholds: user });
  const results: TurnResult[] = [];
  messages.forEach((m, i) => {
    const outcome = engine.ingestLine(JSON.stringify(m), i + 1);
    if (outcome.kind === 'error') throw new Error(`line ${i + 1}: ${outcome.error.message}`);
    if (outcome.kind === 'turn') results.push(outcome.result);
  });
  return results;
}

/** contract §4's sixteen: reference_disagreement (contract §7) is not the engine's, see referenceScoring.test.ts; compactions (§8) are in compactions.test.ts */
const TESTED_ELSEWHERE = ['reference_disagreement', 'compaction', 'compaction_loss', 'context_pressure'] as const;
type EngineSignal = Exclude<Signal, (typeof TESTED_ELSEWHERE)[number]>;

// contract §4 table, typed out independently of signals.ts
const SEVERITY: Record<EngineSignal, 'fault' | 'warning' | 'info'> = {
  unbound_score: 'fault',
  stale_score: 'fault',
  unscored_span: 'info',
  invalidation_shortfall: 'fault',
  unreported_rewrite: 'fault',
  relevance_inflation: 'warning',
  monotonic_drift: 'fault',
  orphaned_parent: 'fault',
  rewrite_repeat: 'warning',
  poisoned_span: 'fault',
  spread_collapse: 'warning',
  canary_inversion: 'warning',
  relevance_collapse: 'fault',
  no_canary: 'info',
  pruned_on_stale_score: 'fault',
  pruned_during_freeze: 'fault',
};
const TURN_LEVEL: readonly Signal[] = ['relevance_inflation', 'monotonic_drift', 'spread_collapse', 'no_canary'];

interface Case {
  name: string;
  messages: Message[];
  user?: Partial<Thresholds>;
  /** [turn, expected span_ids or null = must not fire], in session `s` unless `session` is given */
  expect: [turn: number, spanIds: string[] | null, session?: string][];
}

function findingsOf(results: readonly TurnResult[], session: string, turn: number): Finding[] {
  const r = results.find((x) => x.sessionId === session && x.turn === turn);
  if (r === undefined) throw new Error(`no analysed turn ${turn} in session ${session}`);
  return r.findings;
}

function check(signal: EngineSignal, c: Case): void {
  const results = run(c.messages, c.user);
  for (const r of results) {
    // contract §4: one finding per (turn, signal), with the table's severity
    const signals = r.findings.map((f) => f.signal);
    expect(new Set(signals).size).toBe(signals.length);
    for (const f of r.findings) {
      expect(f.severity).toBe(SEVERITY[f.signal as EngineSignal]);
      expect(f.turn).toBe(r.turn);
      expect(f.message.length).toBeGreaterThan(0);
      if (TURN_LEVEL.includes(f.signal)) expect(f.span_ids).toEqual([]);
    }
  }
  for (const [turn, ids, session = 's'] of c.expect) {
    const found = findingsOf(results, session, turn).filter((f) => f.signal === signal);
    if (ids === null) expect(found, `${signal} must not fire at ${session}:${turn}`).toEqual([]);
    else {
      expect(found, `${signal} must fire at ${session}:${turn}`).toHaveLength(1);
      expect(found[0]!.span_ids).toEqual(ids);
      expect(found[0]!.severity).toBe(SEVERITY[signal]);
    }
  }
}

const table: Record<EngineSignal, Case[]> = {
  unbound_score: [
    {
      name: 'finite score with text_sha256 null, on the first snapshot',
      messages: [snap(1, [span('a'), span('b', { text_sha256: null })])],
      expect: [[1, ['b']]],
    },
    {
      name: 'text_sha256 "" is no binding either; span_ids in snapshot order',
      messages: [snap(1, [span('z', { text_sha256: '' }), span('m'), span('c', { text_sha256: null, score: 0 })])],
      expect: [[1, ['z', 'c']]],
    },
    {
      name: 'a null score with no binding is unscored, not unbound',
      messages: [snap(1, [span('a', { score: null, text_sha256: null })])],
      expect: [[1, null]],
    },
    { name: 'a bound score', messages: [snap(1, [span('a')])], expect: [[1, null]] },
    { name: 'empty span list', messages: [snap(1, [])], expect: [[1, null]] },
  ],
  stale_score: [
    { name: 'text_sha256 of other text', messages: [snap(1, [span('a'), span('b', { text_sha256: sha256('older text') })])], expect: [[1, ['b']]] },
    {
      name: 'hash of the UTF-8 bytes, not of UTF-16',
      messages: [
        snap(1, [
          span('ok', { text: 'naïve 🌍 中文' }),
          span('bad', { text: 'naïve 🌍 中文', text_sha256: createHash('sha256').update('naïve 🌍 中文', 'utf16le').digest('hex') }),
        ]),
      ],
      expect: [[1, ['bad']]],
    },
    {
      name: 'the text changed after scoring but the hash was kept',
      messages: [snap(1, [span('a', { text: 'v1' })]), snap(2, [span('a', { text: 'v2', text_sha256: sha256('v1') })], rewrite(1))],
      expect: [
        [1, null],
        [2, ['a']],
      ],
    },
    {
      name: 'a mismatching hash counts even when the score is null (the conditions are independent)',
      messages: [snap(1, [span('a', { score: null, text_sha256: sha256('x') })])],
      expect: [[1, ['a']]],
    },
    { name: 'text_sha256 "" is unbound, not stale', messages: [snap(1, [span('a', { text_sha256: '' })])], expect: [[1, null]] },
    { name: 'empty text bound to sha256("")', messages: [snap(1, [span('a', { text: '' })])], expect: [[1, null]] },
  ],
  unscored_span: [
    {
      name: 'a null score, bound or not, in snapshot order',
      messages: [snap(1, [span('b', { score: null }), span('a'), span('c', { score: null, text_sha256: null })])],
      expect: [[1, ['b', 'c']]],
    },
    { name: 'a score of 0 is finite', messages: [snap(1, [span('a', { score: 0 })])], expect: [[1, null]] },
  ],
  invalidation_shortfall: [
    {
      name: 'fewer invalidated than modified, on the first snapshot; span_ids = reported ids in their order',
      messages: [snap(1, [span('a'), span('z')], rewrite(3, 2, ['z', 'gone', 'a']))],
      expect: [[1, ['z', 'gone', 'a']]],
    },
    { name: 'no modified_span_ids reported: empty span_ids', messages: [snap(1, [span('a')], rewrite(2, 0))], expect: [[1, []]] },
    { name: 'boundary: scores_invalidated == spans_modified', messages: [snap(1, [span('a')], rewrite(2, 2, ['a']))], expect: [[1, null]] },
    { name: 'more invalidated than modified', messages: [snap(1, [span('a')], rewrite(1, 3))], expect: [[1, null]] },
    {
      name: 'nothing modified',
      messages: [snap(1, [span('a')], rewrite(0, 0)), snap(2, [span('a')])],
      expect: [
        [1, null],
        [2, null],
      ],
    },
  ],
  unreported_rewrite: [
    {
      name: 'two texts changed, one reported; span_ids in snapshot order',
      messages: [
        snap(1, [span('a', { text: 'a1' }), span('b', { text: 'b1' }), span('c')]),
        snap(2, [span('c'), span('b', { text: 'b2' }), span('a', { text: 'a2' }), span('new')], rewrite(1, 1)),
      ],
      expect: [
        [1, null],
        [2, ['b', 'a']],
      ],
    },
    {
      name: 'boundary: texts_changed == spans_modified',
      messages: [
        snap(1, [span('a', { text: 'a1' }), span('b', { text: 'b1' })]),
        snap(2, [span('a', { text: 'a2' }), span('b', { text: 'b2' })], rewrite(2, 2)),
      ],
      expect: [[2, null]],
    },
    {
      name: 'new ids and dropped ids are not text changes',
      messages: [snap(1, [span('a'), span('b')]), snap(2, [span('a'), span('c', { text: 'fresh' })])],
      expect: [[2, null]],
    },
    {
      name: 'gaps in turn numbers: compared with the previous snapshot',
      messages: [snap(3, [span('a', { text: 'a1' })]), snap(10, [span('a', { text: 'a2' })])],
      expect: [[10, ['a']]],
    },
    {
      name: 'two interleaved sessions do not mix: same ids, different texts',
      messages: [
        snap(1, [span('a', { text: 'A' })], {}, 'A'),
        snap(1, [span('a', { text: 'B' })], {}, 'B'),
        snap(2, [span('a', { text: 'A' })], {}, 'A'),
        snap(2, [span('a', { text: 'B2' })], {}, 'B'),
      ],
      expect: [
        [2, null, 'A'],
        [2, ['a'], 'B'],
      ],
    },
  ],
  relevance_inflation: [
    {
      name: 'tokens fell, mean rose past the tolerance, spans modified',
      messages: [one(1, 100, 0.5), one(2, 90, 0.6, 1)],
      expect: [
        [1, null],
        [2, []],
      ],
    },
    { name: 'boundary: mean exactly previous × 1.05 does not fire', messages: [one(1, 100, 1), one(2, 90, 1.05, 1)], expect: [[2, null]] },
    { name: 'just past previous × 1.05 fires', messages: [one(1, 100, 1), one(2, 90, 1.0500001, 1)], expect: [[2, []]] },
    {
      name: 'header tolerance 0.25: exactly ×1.25 does not fire',
      messages: [header({ relevance_tolerance: 0.25 }), one(1, 100, 0.5), one(2, 90, 0.625, 1)],
      expect: [[2, null]],
    },
    {
      name: 'header tolerance 0.25: past ×1.25 fires',
      messages: [header({ relevance_tolerance: 0.25 }), one(1, 100, 0.5), one(2, 90, 0.63, 1)],
      expect: [[2, []]],
    },
    {
      name: 'user tolerance overrides the header',
      messages: [header({ relevance_tolerance: 0.25 }), one(1, 100, 0.5), one(2, 90, 0.6, 1)],
      user: { relevance_tolerance: 0.1 },
      expect: [[2, []]],
    },
    { name: 'tokens did not fall', messages: [one(1, 100, 0.5), one(2, 100, 0.9, 1)], expect: [[2, null]] },
    { name: 'not a rewrite turn (nothing modified, no text changed)', messages: [one(1, 100, 0.5), one(2, 50, 0.9)], expect: [[2, null]] },
    {
      name: 'a changed text makes a rewrite turn even when spans_modified is 0',
      messages: [snap(1, [span('a', { text: 'long original', tokens: 100, score: 0.5 })]), snap(2, [span('a', { text: 'short', tokens: 40, score: 0.8 })])],
      expect: [[2, []]],
    },
    { name: 'first snapshot: no previous mean', messages: [one(1, 100, 0.9, 1)], expect: [[1, null]] },
    { name: 'previous n_scored = 0: no previous mean', messages: [one(1, 100, null), one(2, 50, 0.9, 1)], expect: [[2, null]] },
    { name: 'n_scored = 0 now', messages: [one(1, 100, 0.5), one(2, 50, null, 1)], expect: [[2, null]] },
    { name: 'gaps in turn numbers', messages: [one(4, 100, 0.5), one(9, 90, 0.6, 1)], expect: [[9, []]] },
    {
      name: 'interleaved sessions compare with their own previous snapshot',
      messages: [one(1, 100, 0.5, 0, 'A'), one(1, 200, 0.1, 0, 'B'), one(2, 150, 0.55, 1, 'A'), one(2, 150, 0.3, 1, 'B')],
      expect: [
        [2, null, 'A'],
        [2, [], 'B'],
      ],
    },
  ],
  monotonic_drift: [
    {
      name: 'inflation on two rewrite turns in a row',
      messages: [one(1, 100, 0.5), one(2, 90, 0.6, 1), one(3, 80, 0.7, 1)],
      expect: [
        [2, null],
        [3, []],
      ],
    },
    {
      name: 'a turn without a rewrite neither extends nor breaks the run',
      messages: [one(1, 100, 0.5), one(2, 90, 0.6, 1), one(3, 85, 0.65), one(4, 80, 0.7, 1)],
      expect: [
        [2, null],
        [3, null],
        [4, []],
      ],
    },
    {
      name: 'a rewrite turn without inflation breaks the run',
      messages: [one(1, 100, 0.5), one(2, 90, 0.6, 1), one(3, 90, 0.6, 1), one(4, 80, 0.7, 1), one(5, 70, 0.8, 1)],
      expect: [
        [3, null],
        [4, null],
        [5, []],
      ],
    },
    {
      name: 'a rewrite turn with no scored span breaks the run',
      messages: [one(1, 100, 0.5), one(2, 90, 0.6, 1), one(3, 85, null, 1), one(4, 80, 0.7, 1), one(5, 70, 0.8, 1)],
      expect: [
        [4, null],
        [5, null],
      ],
    },
    {
      name: 'user drift_turns 3',
      messages: [one(1, 100, 0.5), one(2, 90, 0.6, 1), one(3, 80, 0.7, 1), one(4, 70, 0.8, 1)],
      user: { drift_turns: 3 },
      expect: [
        [3, null],
        [4, []],
      ],
    },
    { name: 'header drift_turns 1: every inflation is drift', messages: [header({ drift_turns: 1 }), one(1, 100, 0.5), one(2, 90, 0.6, 1)], expect: [[2, []]] },
    { name: 'gaps in turn numbers do not break the run', messages: [one(1, 100, 0.5), one(5, 90, 0.6, 1), one(20, 80, 0.7, 1)], expect: [[20, []]] },
  ],
  orphaned_parent: [
    {
      name: 'citing spans in snapshot order, on the first snapshot',
      messages: [snap(1, [span('x', { derived_from: ['gone', 'a'] }), span('a'), span('y', { derived_from: ['lost'] }), span('z', { derived_from: ['a'] })])],
      expect: [[1, ['x', 'y']]],
    },
    { name: "a span's own id is not a missing parent", messages: [snap(1, [span('a', { derived_from: ['a'] })])], expect: [[1, null]] },
    { name: 'live parents', messages: [snap(1, [span('c', { derived_from: ['p'] }), span('p')])], expect: [[1, null]] },
    {
      name: 'a parent pruned this turn',
      messages: [snap(1, [span('p'), span('c', { derived_from: ['p'] })]), snap(2, [span('c', { derived_from: ['p'] })], { pruned: ['p'] })],
      expect: [
        [1, null],
        [2, ['c']],
      ],
    },
    {
      name: 'a parent live in another session is still missing here',
      messages: [snap(1, [span('p')], {}, 'other'), snap(1, [span('c', { derived_from: ['p'] })])],
      expect: [[1, ['c']]],
    },
    { name: 'empty span list', messages: [snap(1, [])], expect: [[1, null]] },
  ],
  rewrite_repeat: [
    {
      name: 'rewrite_count == max_rewrites [2]',
      messages: [
        snap(1, [
          span('a'),
          span('b', { rewrite_count: 1 }),
          span('c', { rewrite_count: 2 }),
          span('d', { rewrite_count: 3 }),
          span('e', { rewrite_count: 2 }),
        ]),
      ],
      expect: [[1, ['c', 'e']]],
    },
    { name: 'below max_rewrites', messages: [snap(1, [span('a', { rewrite_count: 1 }), span('b', { rewrite_count: 0 })])], expect: [[1, null]] },
    {
      name: 'header max_rewrites 3',
      messages: [header({ max_rewrites: 3 }), snap(1, [span('b', { rewrite_count: 2 }), span('c', { rewrite_count: 3 }), span('d', { rewrite_count: 4 })])],
      expect: [[1, ['c']]],
    },
    {
      name: 'user max_rewrites 1 overrides header 3',
      messages: [header({ max_rewrites: 3 }), snap(1, [span('b', { rewrite_count: 1 }), span('c', { rewrite_count: 3 })])],
      user: { max_rewrites: 1 },
      expect: [[1, ['b']]],
    },
  ],
  poisoned_span: [
    {
      name: 'rewrite_count > max_rewrites [2]',
      messages: [snap(1, [span('a', { rewrite_count: 5 }), span('c', { rewrite_count: 2 }), span('d', { rewrite_count: 3 })])],
      expect: [[1, ['a', 'd']]],
    },
    {
      name: 'boundary: rewrite_count == max_rewrites is rewrite_repeat, not poisoned',
      messages: [snap(1, [span('c', { rewrite_count: 2 })])],
      expect: [[1, null]],
    },
    {
      name: 'header max_rewrites 3',
      messages: [header({ max_rewrites: 3 }), snap(1, [span('c', { rewrite_count: 3 }), span('d', { rewrite_count: 4 })])],
      expect: [[1, ['d']]],
    },
    {
      name: 'user max_rewrites 1 overrides header 3',
      messages: [header({ max_rewrites: 3 }), snap(1, [span('b', { rewrite_count: 1 }), span('c', { rewrite_count: 2 })])],
      user: { max_rewrites: 1 },
      expect: [[1, ['c']]],
    },
  ],
  spread_collapse: [
    {
      name: 'stdev 0 over 8 scored spans on two snapshots',
      messages: [spread(1, 8, NARROW), spread(2, 8, NARROW)],
      expect: [
        [1, null],
        [2, []],
      ],
    },
    { name: 'first snapshot: one snapshot is not a run of 2', messages: [spread(1, 8, NARROW)], expect: [[1, null]] },
    { name: 'boundary: n_scored 7 < min_scored 8', messages: [spread(1, 7, NARROW), spread(2, 7, NARROW)], expect: [[2, null]] },
    {
      name: 'null scores do not count toward n_scored',
      messages: [spread(1, 8, NARROW, [span('n', { score: null })]), spread(2, 7, NARROW, [span('n', { score: null })])],
      expect: [[2, null]],
    },
    {
      name: 'boundary: stdev == spread_floor does not fire',
      messages: [header({ spread_floor: 0.125 }), spread(1, 8, [0.375, 0.625]), spread(2, 8, [0.375, 0.625])],
      expect: [[2, null]],
    },
    {
      name: 'just under the header floor fires',
      messages: [header({ spread_floor: 0.125 }), spread(1, 8, [0.376, 0.624]), spread(2, 8, [0.376, 0.624])],
      expect: [[2, []]],
    },
    { name: 'default floor 0.08: stdev 0.079 fires', messages: [spread(1, 8, [0.421, 0.579]), spread(2, 8, [0.421, 0.579])], expect: [[2, []]] },
    { name: 'default floor 0.08: stdev 0.081 does not', messages: [spread(1, 8, [0.419, 0.581]), spread(2, 8, [0.419, 0.581])], expect: [[2, null]] },
    {
      name: 'a wide snapshot breaks the run',
      messages: [spread(1, 8, NARROW), spread(2, 8, WIDE), spread(3, 8, NARROW), spread(4, 8, NARROW)],
      expect: [
        [3, null],
        [4, []],
      ],
    },
    { name: 'gaps in turn numbers: consecutive snapshots', messages: [spread(1, 8, NARROW), spread(10, 8, NARROW)], expect: [[10, []]] },
    { name: 'user collapse_turns 1 fires on the first snapshot', messages: [spread(1, 8, NARROW)], user: { collapse_turns: 1 }, expect: [[1, []]] },
    {
      name: 'header collapse_turns 3',
      messages: [header({ collapse_turns: 3 }), spread(1, 8, NARROW), spread(2, 8, NARROW), spread(3, 8, NARROW)],
      expect: [
        [2, null],
        [3, []],
      ],
    },
    {
      name: 'user min_scored 0 with n_scored 0: not evaluated',
      messages: [spread(1, 4, [null]), spread(2, 4, [null])],
      user: { min_scored: 0 },
      expect: [
        [1, null],
        [2, null],
      ],
    },
    {
      name: 'user min_scored 4 overrides header 20',
      messages: [header({ min_scored: 20 }), spread(1, 4, NARROW), spread(2, 4, NARROW)],
      user: { min_scored: 4 },
      expect: [[2, []]],
    },
    {
      name: 'interleaved sessions keep their own streaks',
      messages: [spread(1, 8, NARROW, [], 'A'), spread(1, 8, WIDE, [], 'B'), spread(2, 8, NARROW, [], 'A'), spread(2, 8, NARROW, [], 'B')],
      expect: [
        [2, [], 'A'],
        [2, null, 'B'],
      ],
    },
  ],
  canary_inversion: [
    {
      name: 'odd count: a pinned span at the median is not below it',
      messages: [snap(1, [span('a', { score: 0.25 }), span('p', { score: 0.5, pinned: true }), span('c', { score: 0.75 })])],
      expect: [[1, null]],
    },
    {
      name: 'even count: the median is the mean of the middle two',
      messages: [snap(1, [span('a', { score: 0.25 }), span('p', { score: 0.5, pinned: true }), span('c', { score: 0.75 }), span('d', { score: 1 })])],
      expect: [[1, ['p']]],
    },
    {
      name: 'two pinned spans below the median, in snapshot order',
      messages: [
        snap(1, [
          span('q', { score: 0.1, pinned: true }),
          span('a', { score: 0.5 }),
          span('b', { score: 0.6 }),
          span('p', { score: 0.2, pinned: true }),
          span('c', { score: 0.9 }),
        ]),
      ],
      expect: [[1, ['q', 'p']]],
    },
    {
      name: 'a pinned span with a null score is not compared',
      messages: [snap(1, [span('p', { score: null, pinned: true }), span('a', { score: 0.5 }), span('b', { score: 0.9 })])],
      expect: [[1, null]],
    },
    {
      name: 'an unpinned low span is no canary',
      messages: [snap(1, [span('a', { score: 0.1 }), span('b', { score: 0.5 }), span('c', { score: 0.9 })])],
      expect: [[1, null]],
    },
    { name: 'a lone pinned span equals its median', messages: [snap(1, [span('p', { score: 0.1, pinned: true })])], expect: [[1, null]] },
  ],
  relevance_collapse: [
    {
      name: 'spread collapse and canary inversion at the same turn; span_ids are the inverted canaries',
      messages: [spread(1, 7, NARROW, [span('p', { score: 0.45, pinned: true })]), spread(2, 7, NARROW, [span('p', { score: 0.45, pinned: true })])],
      expect: [
        [1, null],
        [2, ['p']],
      ],
    },
    {
      name: 'collapse with a healthy canary',
      messages: [spread(1, 8, NARROW, [span('p', { score: 0.5, pinned: true })]), spread(2, 8, NARROW, [span('p', { score: 0.5, pinned: true })])],
      expect: [[2, null]],
    },
    {
      name: 'inversion on a wide distribution',
      messages: [spread(1, 8, WIDE, [span('p', { score: 0.2, pinned: true })]), spread(2, 8, WIDE, [span('p', { score: 0.2, pinned: true })])],
      expect: [[2, null]],
    },
    {
      name: 'inversion from the first narrow turn: collapse needs the second',
      messages: [
        spread(1, 8, WIDE, [span('p', { score: 0.45, pinned: true })]),
        spread(2, 7, NARROW, [span('p', { score: 0.45, pinned: true })]),
        spread(3, 7, NARROW, [span('p', { score: 0.45, pinned: true })]),
      ],
      expect: [
        [2, null],
        [3, ['p']],
      ],
    },
  ],
  no_canary: [
    {
      name: 'the first turn of each run of turns without a scored pinned span',
      messages: [
        snap(1, [span('a')]),
        snap(2, [span('a', { pinned: false })]),
        snap(3, [span('a'), span('p', { pinned: true })]),
        snap(4, [span('a')]),
        snap(5, [span('a')]),
      ],
      expect: [
        [1, []],
        [2, null],
        [3, null],
        [4, []],
        [5, null],
      ],
    },
    { name: 'a pinned span with a null score is no canary', messages: [snap(1, [span('p', { pinned: true, score: null })])], expect: [[1, []]] },
    { name: 'empty span list', messages: [snap(1, [])], expect: [[1, []]] },
    { name: 'a scored pinned span', messages: [snap(1, [span('p', { pinned: true, score: 0 })])], expect: [[1, null]] },
    {
      name: 'interleaved sessions have their own runs',
      messages: [
        snap(1, [span('a')], {}, 'A'),
        snap(1, [span('a')], {}, 'B'),
        snap(2, [span('a')], {}, 'A'),
        snap(2, [span('p', { pinned: true })], {}, 'B'),
        snap(3, [span('a')], {}, 'B'),
      ],
      expect: [
        [1, [], 'A'],
        [1, [], 'B'],
        [2, null, 'A'],
        [2, null, 'B'],
        [3, [], 'B'],
      ],
    },
  ],
  pruned_on_stale_score: [
    {
      name: 'null, unbound and stale at the previous snapshot; span_ids in pruned order',
      messages: [
        snap(1, [span('a', { text_sha256: null }), span('b', { text_sha256: sha256('old') }), span('c', { score: null }), span('d')]),
        snap(2, [span('keep')], { pruned: ['d', 'c', 'a', 'never-seen', 'b'] }),
      ],
      expect: [[2, ['c', 'a', 'b']]],
    },
    { name: 'first snapshot: no previous snapshot to judge by', messages: [snap(1, [span('a')], { pruned: ['x'] })], expect: [[1, null]] },
    { name: 'bound at the previous snapshot', messages: [snap(1, [span('a'), span('b')]), snap(2, [span('b')], { pruned: ['a'] })], expect: [[2, null]] },
    {
      name: 'gaps in turn numbers',
      messages: [snap(2, [span('a', { text_sha256: '' }), span('b')]), snap(7, [span('b')], { pruned: ['a'] })],
      expect: [[7, ['a']]],
    },
    {
      name: 'interleaved sessions: judged by the same session',
      messages: [
        snap(1, [span('a', { text_sha256: null })], {}, 'A'),
        snap(1, [span('a')], {}, 'B'),
        snap(2, [], { pruned: ['a'] }, 'B'),
        snap(2, [], { pruned: ['a'] }, 'A'),
      ],
      expect: [
        [2, null, 'B'],
        [2, ['a'], 'A'],
      ],
    },
  ],
  pruned_during_freeze: [
    {
      name: 'pruned right after a freeze verdict; span_ids in pruned order',
      messages: [
        spread(1, 7, NARROW, [span('p', { score: 0.45, pinned: true })]),
        spread(2, 7, NARROW, [span('p', { score: 0.45, pinned: true })]),
        { ...spread(3, 6, NARROW, [span('p', { score: 0.45, pinned: true })]), pruned: ['s6', 'ghost'] },
      ],
      expect: [
        [2, null],
        [3, ['s6', 'ghost']],
      ],
    },
    {
      name: 'nothing pruned after a freeze',
      messages: [
        spread(1, 7, NARROW, [span('p', { score: 0.45, pinned: true })]),
        spread(2, 7, NARROW, [span('p', { score: 0.45, pinned: true })]),
        spread(3, 7, NARROW, [span('p', { score: 0.45, pinned: true })]),
      ],
      expect: [[3, null]],
    },
    {
      name: 'pruned after a recompute verdict',
      messages: [snap(1, [span('a', { score: null }), span('b')]), snap(2, [span('a', { score: null })], { pruned: ['b'] })],
      expect: [[2, null]],
    },
    { name: 'first snapshot', messages: [snap(1, [span('a')], { pruned: ['b'] })], expect: [[1, null]] },
  ],
};

describe('contract §4 detectors', () => {
  for (const [signal, cases] of Object.entries(table) as [EngineSignal, Case[]][]) {
    describe(signal, () => {
      it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => check(signal, c));
    });
  }

  it('covers every signal tested here with a positive and a negative case each', () => {
    const elsewhere: readonly string[] = TESTED_ELSEWHERE;
    expect(Object.keys(table).sort()).toEqual(SIGNALS.filter((s) => !elsewhere.includes(s)).sort());
    for (const [signal, cases] of Object.entries(table)) {
      const outcomes = cases.flatMap((c) => c.expect.map((e) => e[1] === null));
      expect(outcomes, signal).toContain(true);
      expect(outcomes, signal).toContain(false);
    }
  });
});

describe('contract §4 details beyond span_ids', () => {
  it("orphaned_parent's message names the missing parents and whether they were seen pruned", () => {
    const results = run([snap(1, [span('p'), span('c', { derived_from: ['p', 'q'] })]), snap(2, [span('c', { derived_from: ['p', 'q'] })], { pruned: ['p'] })]);
    const [pruned] = findingsOf(results, 's', 2).filter((f) => f.signal === 'orphaned_parent');
    expect(pruned!.message).toContain('"p"');
    expect(pruned!.message).toContain('"q"');
    const single = (parent: string, prunedIds: string[]): string => {
      const r = run([snap(1, [span(parent), span('c', { derived_from: [parent] })]), snap(2, [span('c', { derived_from: [parent] })], { pruned: prunedIds })]);
      return findingsOf(r, 's', 2).find((f) => f.signal === 'orphaned_parent')!.message;
    };
    // the same missing parent, once seen pruned and once simply gone: the messages must tell them apart
    expect(single('p', ['p'])).not.toBe(single('p', []));
  });

  it('a parent pruned at an earlier turn is still reported as seen pruned', () => {
    const msg = (prunedAt1: string[]): string => {
      const r = run([
        snap(1, [span('c', { derived_from: ['p'] }), span('p')]),
        snap(2, [span('c')], { pruned: prunedAt1 }),
        snap(3, [span('c', { derived_from: ['p'] })]),
      ]);
      return findingsOf(r, 's', 3).find((f) => f.signal === 'orphaned_parent')!.message;
    };
    expect(msg(['p'])).not.toBe(msg([]));
  });

  it('thresholds: default ← header config ← user setting, per key', () => {
    const engine = new Engine({ sha256, userThresholds: { max_rewrites: 1 } });
    engine.ingestLine(JSON.stringify(header({ spread_floor: 0.2, max_rewrites: 5 }, 'h')), 1);
    engine.ingestLine(JSON.stringify(snap(1, [], {}, 'h')), 2);
    engine.ingestLine(JSON.stringify(snap(1, [], {}, 'plain')), 3);
    expect(engine.thresholds('h')).toEqual({
      relevance_tolerance: 0.05,
      drift_turns: 2,
      max_rewrites: 1,
      min_scored: 8,
      spread_floor: 0.2,
      collapse_turns: 2,
      reference_agreement_floor: 0,
      compaction_loss_min: 1,
      pressure_threshold: 0.8,
    });
    expect(engine.thresholds('plain')).toEqual({
      relevance_tolerance: 0.05,
      drift_turns: 2,
      max_rewrites: 1,
      min_scored: 8,
      spread_floor: 0.08,
      collapse_turns: 2,
      reference_agreement_floor: 0,
      compaction_loss_min: 1,
      pressure_threshold: 0.8,
    });
  });

  it("a header's config applies to its session only", () => {
    const results = run([
      header({ max_rewrites: 5 }, 'A'),
      snap(1, [span('a', { rewrite_count: 3 })], {}, 'A'),
      snap(1, [span('a', { rewrite_count: 3 })], {}, 'B'),
    ]);
    expect(findingsOf(results, 'A', 1).map((f) => f.signal)).not.toContain('poisoned_span');
    expect(findingsOf(results, 'B', 1).find((f) => f.signal === 'poisoned_span')?.span_ids).toEqual(['a']);
  });

  it('an empty span list raises only no_canary', () => {
    const [r] = run([snap(1, [])]);
    expect(r!.findings.map((f) => f.signal)).toEqual(['no_canary']);
  });

  it('a healthy loop (tokens fall, mean within tolerance, invalidated == modified) raises only the info of a pending recompute', () => {
    const pinned = span('task', { pinned: true, score: 0.95 });
    const results = run([
      snap(1, [pinned, span('a', { text: 'a long original', score: 0.8, tokens: 50 }), span('b', { score: 0.8 })]),
      snap(
        2,
        [pinned, span('a', { text: 'short', score: null, text_sha256: null, tokens: 10, rewrite_count: 1 }), span('b', { score: 0.8 })],
        rewrite(1, 1, ['a']),
      ),
      snap(3, [pinned, span('a', { text: 'short', score: 0.8, tokens: 10 }), span('b', { score: 0.8 })]),
    ]);
    expect(results[0]!.findings).toEqual([]);
    expect(results[1]!.findings.map((f) => f.signal)).toEqual(['unscored_span']);
    expect(results[2]!.findings).toEqual([]);
  });
});
