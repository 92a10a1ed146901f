// validateMessage with a spare table (the engine's from two turns back, whose id index it takes
// over): the same verdict, the same error and the same index as a validation from nothing, on
// snapshots that grow at the end, shrink, reorder and repeat ids.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Engine } from './engine.ts';
import { validateMessage } from './validate.ts';
import type { SpanTable } from './spanTable.ts';

const snapshot = (ids: readonly string[], turn = 1): unknown => ({
  type: 'snapshot',
  session_id: 's',
  turn,
  spans: ids.map((id) => ({ span_id: id, text: `text of ${id}`, score: null, text_sha256: null })),
});

/** The table validateMessage accepted `ids` with (a spare for the next). */
function tableOf(ids: readonly string[]): SpanTable {
  const v = validateMessage(snapshot(ids));
  if (!v.ok || v.spans === undefined) throw new Error('the spare must be valid');
  return v.spans;
}

function expectSameAsFresh(ids: readonly string[], spareIds: readonly string[]): void {
  const fresh = validateMessage(snapshot(ids));
  const reused = validateMessage(snapshot(ids), false, { spare: tableOf(spareIds), known: null, objectHashes: true });
  expect(reused.ok).toBe(fresh.ok);
  if (!fresh.ok || !reused.ok) {
    expect(reused).toEqual(fresh);
    return;
  }
  expect([...reused.spans!.index].sort()).toEqual([...fresh.spans!.index].sort());
}

describe('validateMessage with a spare table', () => {
  it('grown at the end, with a repeated id among the new ones or naming an old one', () => {
    expectSameAsFresh(['a', 'b', 'c', 'd'], ['a', 'b']);
    expectSameAsFresh(['a', 'b', 'c', 'c'], ['a', 'b']);
    expectSameAsFresh(['a', 'b', 'c', 'a'], ['a', 'b']);
    expectSameAsFresh(['a', 'b'], ['a', 'b']);
  });

  it('pruned in the middle, reordered, shorter than the spare, or empty', () => {
    expectSameAsFresh(['a', 'c', 'd'], ['a', 'b', 'c']);
    expectSameAsFresh(['b', 'a', 'c'], ['a', 'b', 'c']);
    expectSameAsFresh(['a'], ['a', 'b', 'c']);
    expectSameAsFresh(['a', 'c', 'c', 'b'], ['a', 'b']);
    expectSameAsFresh(['a', 'x', 'b', 'x'], ['a', 'b', 'c']);
    expectSameAsFresh([], ['a']);
  });

  it('any two id lists (property)', () => {
    const ids = fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { maxLength: 8 });
    const unique = fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(ids, unique, (now, spare) => {
        expectSameAsFresh(now, spare);
      }),
      { numRuns: 2000 },
    );
  });

  it('the engine reuses its tables turn after turn with the outcomes of fresh validation', () => {
    // every third turn prunes the oldest span; each new span cites the two before it, so a
    // pruned parent is an orphan edge, which the analysis finds through the index
    const turns: string[][] = [];
    let live = ['s0'];
    for (let t = 1; t <= 40; t++) {
      live = t % 3 === 0 ? [...live.slice(1), `s${t}`] : [...live, `s${t}`];
      turns.push(t === 20 ? [...live, live[1]!] : live);
    }
    const parentsOf = (id: string): string[] => {
      const n = Number(id.slice(1));
      return n < 2 ? [] : [`s${n - 1}`, `s${n - 2}`];
    };
    const withParents = (ids: readonly string[], turn: number): unknown => {
      const snap = snapshot(ids, turn) as { spans: { span_id: string; derived_from?: string[] }[] };
      for (const span of snap.spans) span.derived_from = parentsOf(span.span_id);
      return snap;
    };
    const engine = new Engine({ sha256: () => '' });
    turns.forEach((ids, i) => {
      const outcome = engine.ingestValue(withParents(ids, i + 1), i + 1);
      const fresh = validateMessage(withParents(ids, i + 1));
      if (!fresh.ok) {
        expect(outcome).toMatchObject({ kind: 'error', error: { message: fresh.error } });
        return;
      }
      expect(outcome.kind).toBe('turn');
      const live = new Set(ids);
      const edges = ids.reduce((n, id) => n + parentsOf(id).filter((p) => !live.has(p)).length, 0);
      if (outcome.kind === 'turn') expect(outcome.result.metrics.orphan_edges).toBe(edges);
    });
    expect(validateMessage(withParents(turns[19]!, 20)).ok).toBe(false);
  });
});

describe("validateMessage with the session's last accepted table (known)", () => {
  // texts from a small set, one with a lone surrogate; the same text is the same string, as an adapter hands it
  const TEXTS = ['plain', 'two-byte ✓ text', 'lone \ud800 surrogate', 'emoji 😀 pair', 'other'];
  const IDS = ['a', 'b', 'c', 'd', 'e\udc00'];
  const snapshotOf = (spans: readonly [number, number][]): unknown => ({
    type: 'snapshot',
    session_id: 's',
    turn: 2,
    spans: spans.map(([id, text]) => ({ span_id: IDS[id]!, text: TEXTS[text]!, score: null, text_sha256: null })),
  });
  const span = fc.tuple(fc.integer({ min: 0, max: IDS.length - 1 }), fc.integer({ min: 0, max: TEXTS.length - 1 }));

  it('gives the verdict and error of a validation from nothing (property)', () => {
    fc.assert(
      fc.property(fc.array(span, { maxLength: 7 }), fc.array(span, { maxLength: 7 }), (before, now) => {
        const accepted = validateMessage(snapshotOf(before));
        // only an accepted table is ever known: its texts were found well-formed
        fc.pre(accepted.ok && accepted.spans !== undefined);
        const known = accepted.ok ? accepted.spans! : null;
        const fresh = validateMessage(snapshotOf(now));
        const withKnown = validateMessage(snapshotOf(now), false, { spare: null, known, objectHashes: true });
        expect(withKnown.ok).toBe(fresh.ok);
        if (!fresh.ok) expect(withKnown).toEqual(fresh);
      }),
      { numRuns: 3000 },
    );
  });

  it('still finds a lone surrogate in a text that changed, in an adapter session the engine reads', () => {
    const engine = new Engine({ sha256: () => '' });
    const turn = (t: number, texts: string[]): unknown => ({
      type: 'snapshot',
      session_id: 's',
      turn: t,
      spans: texts.map((text, i) => ({ span_id: `s${i}`, text, score: null, text_sha256: null })),
    });
    const kinds = [turn(1, ['ok ✓']), turn(2, ['ok ✓', 'new ✓']), turn(3, ['ok ✓', 'new \ud800']), turn(4, ['ok \udfff', 'new ✓'])].map(
      (v, i) => engine.ingestParsedLine(v, i + 1, false).kind,
    );
    expect(kinds).toEqual(['turn', 'turn', 'error', 'error']);
  });
});
