// Properties over random and mutated messages: the fast validator agrees with the zod
// schema (the contract, wire.ts), the engine never throws, every non-blank line has
// exactly one outcome, and replays are told from different snapshots (contract §2).
// eslint-disable-next-line no-restricted-imports -- the tests run on Node; the engine itself is handed its hash
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Engine, type Outcome } from './engine.ts';
import { CheckOutputBuilder } from './checkOutput.ts';
import { fastAccepts, validateMessage } from './validate.ts';
import { messageSchema } from './wire.ts';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** The engine sees parsed JSON: a JSON round trip (which also drops -0 and undefined). */
const asParsed = (v: unknown): unknown => JSON.parse(JSON.stringify(v) ?? 'null') as unknown;

const agrees = (v: unknown): boolean => fastAccepts(v) === messageSchema.safeParse(v).success;

// ---------------------------------------------------------------- arbitraries

const ids = fc.constantFrom('a', 'b', 'c', 'm17', 'ü', '🌍');
const text = fc.oneof(fc.constantFrom('', 'same text', 'naïve 🌍', 'x'.repeat(300)), fc.string({ unit: 'grapheme', maxLength: 30 }));
const finite = fc.double({ noNaN: true, noDefaultInfinity: true });
const natural = fc.oneof(fc.nat({ max: 10 }), fc.constantFrom(0, 2, 3, 2 ** 53 - 1));

const spanArb = fc
  .record(
    {
      span_id: ids,
      text,
      score: fc.oneof(fc.constant(null), fc.double({ min: 0, max: 1, noNaN: true }), finite),
      text_sha256: fc.oneof(fc.constant(null), fc.constant(''), fc.stringMatching(/^[0-9a-f]{64}$/), fc.constant('bind')),
      tokens: natural,
      rewrite_count: natural,
      derived_from: fc.array(ids, { maxLength: 3 }),
      pinned: fc.boolean(),
      role: fc.constantFrom('assistant', 'user', 'tool'),
      note: fc.jsonValue({ maxDepth: 1 }),
    },
    { requiredKeys: ['span_id', 'text', 'score', 'text_sha256'] },
  )
  .map((s) => (s.text_sha256 === 'bind' ? { ...s, text_sha256: sha256(s.text) } : s));

const snapshotArb = fc.record(
  {
    type: fc.constant('snapshot' as const),
    session_id: fc.constantFrom('s', 't', 'run-42'),
    turn: fc.integer({ min: -2, max: 12 }),
    ts: fc.constant('2026-11-11T10:03:00Z'),
    spans: fc.array(spanArb, { maxLength: 6 }),
    rewrite: fc.record(
      {
        spans_modified: natural,
        scores_invalidated: natural,
        modified_span_ids: fc.array(ids, { maxLength: 3 }),
        invalidated_span_ids: fc.array(ids, { maxLength: 3 }),
      },
      { requiredKeys: ['spans_modified', 'scores_invalidated'] },
    ),
    pruned: fc.array(ids, { maxLength: 3 }),
    extra: fc.jsonValue({ maxDepth: 1 }),
  },
  { requiredKeys: ['type', 'session_id', 'turn', 'spans'] },
);

const headerArb = fc.record(
  {
    type: fc.constant('session' as const),
    session_id: fc.constantFrom('s', 't', 'run-42'),
    title: fc.string({ maxLength: 10 }),
    started_at: fc.constant('2026-11-11T10:00:00Z'),
    config: fc.record(
      {
        relevance_tolerance: fc.oneof(fc.constant(0), finite),
        drift_turns: fc.integer({ min: -1, max: 4 }),
        max_rewrites: fc.integer({ min: -1, max: 4 }),
        min_scored: fc.integer({ min: -1, max: 10 }),
        spread_floor: fc.oneof(fc.constant(0.08), finite),
        collapse_turns: fc.integer({ min: 0, max: 4 }),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['type', 'session_id'] },
);

const messageArb = fc.oneof({ weight: 4, arbitrary: snapshotArb }, { weight: 1, arbitrary: headerArb });

/** Values that break a rule somewhere: wrong kinds, fractions, negatives, unsafe integers, empties. */
const odd = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, -0.5, 2 ** 53, 1e20, -(2 ** 53), '', 'x', 'snapshot', 'session', [], {}, ['a'], [1], { a: 1 }),
  fc.jsonValue({ maxDepth: 2 }),
);

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Every path inside a JSON value (the root excluded). */
function pathsOf(v: Json, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [];
  if (Array.isArray(v)) v.forEach((x, i) => out.push([...prefix, i], ...pathsOf(x, [...prefix, i])));
  else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) out.push([...prefix, k], ...pathsOf(x, [...prefix, k]));
  return out;
}

type Mutation = { kind: 'set'; value: unknown } | { kind: 'delete' } | { kind: 'add'; key: string; value: unknown };

/** Applies one mutation at the `pick`-th path (modulo the number of paths) of a copy of `v`. */
function mutate(v: unknown, pick: number, m: Mutation): unknown {
  const root = asParsed(v) as Json;
  const paths = pathsOf(root);
  if (paths.length === 0) return root;
  const path = paths[pick % paths.length]!;
  let parent: Json = root;
  for (const key of path.slice(0, -1)) parent = (parent as Record<string | number, Json>)[key]!;
  const last = path.at(-1)!;
  const container = parent as Record<string | number, unknown>;
  if (m.kind === 'set') container[last] = m.value;
  else if (m.kind === 'delete') {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete container[last];
  } else {
    const target = container[last];
    if (typeof target === 'object' && target !== null && !Array.isArray(target)) (target as Record<string, unknown>)[m.key] = m.value;
    else container[last] = { [m.key]: m.value };
  }
  return asParsed(root);
}

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), value: odd }),
  fc.constant({ kind: 'delete' as const }),
  fc.record({
    kind: fc.constant('add' as const),
    key: fc.constantFrom('type', 'session_id', 'turn', 'spans', 'score', 'text', 'tokens', 'unknown', 'config', 'rewrite'),
    value: odd,
  }),
);

const mutatedArb = fc.tuple(messageArb, fc.nat(), mutationArb).map(([m, pick, how]) => mutate(m, pick, how));

// ---------------------------------------------------------------- properties

const RUNS = { numRuns: 400 };

describe('fastAccepts agrees with the zod schema (wire.ts is the contract)', () => {
  it('on arbitrary JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => agrees(asParsed(v))),
      RUNS,
    );
  });

  it('on objects with the message keys and arbitrary values', () => {
    const loose = fc.record(
      {
        type: fc.oneof(fc.constantFrom('snapshot', 'session'), odd),
        session_id: fc.oneof(fc.constant('s'), odd),
        turn: odd,
        spans: fc.oneof(fc.array(fc.oneof(spanArb, odd), { maxLength: 3 }), odd),
        config: odd,
        title: odd,
        rewrite: odd,
        pruned: odd,
        ts: odd,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(loose, (v) => agrees(asParsed(v))),
      RUNS,
    );
  });

  it('on valid messages (which it accepts)', () => {
    fc.assert(
      fc.property(messageArb, (m) => {
        const v = asParsed(m);
        const valid = messageSchema.safeParse(v).success;
        return agrees(v) && (valid || m.type === 'session'); // a generated header may carry an out-of-range config
      }),
      RUNS,
    );
  });

  it('on mutations of valid messages', () => {
    fc.assert(
      fc.property(mutatedArb, (v) => agrees(v)),
      { numRuns: 2000 },
    );
  });

  it('the boundary values, one by one', () => {
    const base = { type: 'snapshot', session_id: 's', turn: 1, spans: [{ span_id: 'a', text: 't', score: 0.5, text_sha256: null }] };
    for (const turn of [0, -1, 1.5, 2 ** 53 - 1, 2 ** 53, 1e20, -(2 ** 53 - 1), -(2 ** 53)]) expect(agrees({ ...base, turn }), `turn ${turn}`).toBe(true);
    for (const tokens of [0, 1, -1, 0.5, 2 ** 53 - 1, 2 ** 53, 1e300])
      expect(agrees({ ...base, spans: [{ ...base.spans[0], tokens }] }), `tokens ${tokens}`).toBe(true);
    for (const score of [0, -1e308, 1e308, 5e-324, null]) expect(agrees({ ...base, spans: [{ ...base.spans[0], score }] }), `score ${score}`).toBe(true);
    for (const drift_turns of [0, 1, 2 ** 53, 1.5])
      expect(agrees({ type: 'session', session_id: 's', config: { drift_turns } }), `drift_turns ${drift_turns}`).toBe(true);
  });
});

describe('the engine on random lines', () => {
  const lineArb = fc.oneof(
    { weight: 4, arbitrary: messageArb.map((m) => JSON.stringify(m)) },
    { weight: 3, arbitrary: mutatedArb.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 1, arbitrary: fc.constantFrom('', '  ', '\t', '\r', '[]', 'null', '{}', 'NaN', '{"type":"snapshot"') },
    { weight: 1, arbitrary: messageArb.map((m) => JSON.stringify(m).slice(0, -3)) },
    { weight: 1, arbitrary: messageArb.map((m) => JSON.stringify(m).replace(/"text":"[^"]*"/, '"text":"\\ud800"')) },
  );

  it('never throws, and every non-blank line has exactly one outcome', () => {
    fc.assert(
      fc.property(fc.array(lineArb, { maxLength: 30 }), (lines) => {
        const engine = new Engine({ sha256 });
        const report = new CheckOutputBuilder();
        const outcomes: Outcome[] = lines.map((t, i) => engine.ingestLine(t, i + 1));
        outcomes.forEach((o) => report.add(o));
        lines.forEach((t, i) => {
          const o = outcomes[i]!;
          expect(['turn', 'header', 'ignored', 'error']).toContain(o.kind);
          if (/^[ \t\r\n]*$/.test(t)) expect(o).toEqual({ kind: 'ignored', reason: 'blank' });
          else expect(o).not.toEqual({ kind: 'ignored', reason: 'blank' });
          if (o.kind === 'error') {
            expect(o.error.line).toBe(i + 1);
            expect(o.error.message.length).toBeGreaterThan(0);
          }
        });
        const built = report.build();
        expect(built.input_errors).toHaveLength(outcomes.filter((o) => o.kind === 'error').length);
        expect(built.sessions.reduce((n, s) => n + s.turns, 0)).toBe(outcomes.filter((o) => o.kind === 'turn').length);
        for (const s of built.sessions) {
          const turns = s.verdicts.map((v) => v.turn);
          for (let k = 1; k < turns.length; k++) expect(turns[k]).toBeGreaterThan(turns[k - 1]!);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('validateMessage never throws, whatever it is given', () => {
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withBoxedValues: true, withMap: true, withSet: true }), (v) => {
        const r = validateMessage(v);
        return r.ok || r.error.length > 0;
      }),
      RUNS,
    );
  });
});

describe('contract §2 replays: equal as parsed JSON is ignored, anything else with an old turn is an error', () => {
  const canonical = (v: unknown): string =>
    JSON.stringify(v, (_k, x: unknown) =>
      typeof x === 'object' && x !== null && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1))) : x,
    );
  const shuffledKeys = (v: unknown, seed: number): unknown => {
    if (Array.isArray(v)) return v.map((x, i) => shuffledKeys(x, seed + i));
    if (typeof v !== 'object' || v === null) return v;
    const entries = Object.entries(v);
    const rotated = entries.map((_, i) => entries[(i + seed) % entries.length]!);
    return Object.fromEntries(rotated.map(([k, x]) => [k, shuffledKeys(x, seed * 7 + 1)]));
  };

  // a session of valid snapshots with increasing turns and unique span ids, texts changing now and then
  const sessionArb = fc
    .array(
      fc
        .uniqueArray(spanArb, { selector: (s) => s.span_id, maxLength: 6 })
        .chain((spans) => fc.record({ spans: fc.constant(spans), gap: fc.integer({ min: 1, max: 3 }), pruned: fc.array(ids, { maxLength: 2 }) })),
      { minLength: 2, maxLength: 8 },
    )
    .map((turns) => {
      let turn = 0;
      return turns.map(({ spans, gap, pruned }) => {
        turn += gap;
        return { type: 'snapshot', session_id: 's', turn, spans, pruned } as const;
      });
    });

  it('an older snapshot re-sent, re-serialised, is ignored; a changed one is an error', () => {
    fc.assert(
      fc.property(sessionArb, fc.nat(), fc.nat(), mutationArb, (snaps, pickTurn, seed, how) => {
        const engine = new Engine({ sha256 });
        snaps.forEach((s, i) => expect(engine.ingestLine(JSON.stringify(s), i + 1).kind).toBe('turn'));
        const old = snaps[pickTurn % snaps.length]!;
        expect(engine.ingestLine(JSON.stringify(shuffledKeys(old, seed), null, seed % 3), 100).kind).toBe('ignored');
        // a changed but still valid snapshot of the same turn
        const changed = mutate(old, seed, how) as { turn?: unknown; session_id?: unknown };
        const stillSame = canonical(changed) === canonical(asParsed(old));
        const o = engine.ingestLine(JSON.stringify(changed), 101);
        if (stillSame) expect(o.kind).toBe('ignored');
        else if (changed.session_id === 's' && typeof changed.turn === 'number' && changed.turn <= snaps.at(-1)!.turn) expect(o.kind).toBe('error');
      }),
      { numRuns: 500 },
    );
  });
});
