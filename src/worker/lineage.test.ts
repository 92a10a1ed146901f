// The lineage graph and the span inspector tell a parent that is gone but archived (contract
// §8.2: what a compaction replaced, which the agent's transcript still holds) from one that
// is missing (orphaned_parent).
// eslint-disable-next-line no-restricted-imports -- tests run on Node; the Worker is handed its hash
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { resolveThresholds } from '../core/config.ts';
import { Engine } from '../core/engine.ts';
import { TurnColumnStore } from '../results/store.ts';
import { spanDetail } from './details.ts';
import { archivedGroupId, lineageGraph, MAX_ARCHIVED_SHOWN } from './lineage.ts';

const sha256 = (t: string): string => createHash('sha256').update(t, 'utf8').digest('hex');

function span(id: string, score: number, derivedFrom?: string[]): Record<string, unknown> {
  const text = `text of ${id}`;
  return { span_id: id, text, score, text_sha256: sha256(text), ...(derivedFrom === undefined ? {} : { derived_from: derivedFrom }) };
}

function session(archivedAt2: string[]): { store: TurnColumnStore; orphanEdges: number[] } {
  const engine = new Engine({ sha256 });
  const store = new TurnColumnStore('s', resolveThresholds(undefined, {}));
  const orphanEdges: number[] = [];
  const messages = [
    { type: 'session', session_id: 's' },
    { type: 'snapshot', session_id: 's', turn: 1, spans: [span('a', 0.9), span('b', 0.8), span('c', 0.7)] },
    {
      type: 'snapshot',
      session_id: 's',
      turn: 2,
      // a summary of a and b, which are gone; d cites x, which never was
      spans: [span('sum', 0.9, ['a', 'b']), span('c', 0.7), span('d', 0.6, ['x'])],
      ...(archivedAt2.length > 0 ? { archived: archivedAt2 } : {}),
    },
    { type: 'snapshot', session_id: 's', turn: 3, spans: [span('sum', 0.9, ['a', 'b']), span('c', 0.7), span('d', 0.6, ['x'])] },
  ];
  messages.forEach((m, i) => {
    const o = engine.ingestValue(m, i + 1);
    if (o.kind !== 'turn') return;
    store.record(o.result, o.snapshot);
    orphanEdges.push(o.result.metrics.orphan_edges);
  });
  return { store, orphanEdges };
}

describe('archived parents (contract §8.2)', () => {
  it('draws an archived parent as archived, not missing, from the turn it was declared on, as the engine counts it', () => {
    const { store, orphanEdges } = session(['a', 'b']);
    expect(orphanEdges).toEqual([0, 1, 1]); // only d → x
    for (const t of [1, 2]) {
      const g = lineageGraph(store, t)!;
      const kind = Object.fromEntries(g.nodes.map((n) => [n.id, n.kind]));
      expect(kind).toEqual({ a: 'archived', b: 'archived', sum: 'live', x: 'ghost', d: 'citer' });
      const edge = Object.fromEntries(g.edges.map((e) => [`${e.source}>${e.target}`, [e.missing, e.archived]]));
      expect(edge).toEqual({ 'a>sum': [false, true], 'b>sum': [false, true], 'x>d': [true, false] });
    }
    const d = spanDetail(store, 3, 'sum', sha256)!;
    expect(d.archivedParents).toEqual(['a', 'b']);
    expect(d.missingParents).toEqual([]);
    expect(spanDetail(store, 3, 'd', sha256)!.missingParents).toEqual(['x']);
  });

  it('without archived, the same parents are missing, as before', () => {
    const { store, orphanEdges } = session([]);
    expect(orphanEdges).toEqual([0, 3, 3]);
    const g = lineageGraph(store, 1)!;
    expect(
      g.nodes
        .filter((n) => n.kind === 'ghost')
        .map((n) => n.id)
        .sort(),
    ).toEqual(['a', 'b', 'x']);
    expect(g.nodes.find((n) => n.id === 'sum')!.kind).toBe('citer');
    expect(g.edges.every((e) => e.missing && !e.archived)).toBe(true);
    expect(spanDetail(store, 3, 'sum', sha256)!.missingParents).toEqual(['a', 'b']);
  });
});

describe('a compaction summary of many archived parents', () => {
  it('draws them as one node past MAX_ARCHIVED_SHOWN, keeping one a live span also cites; the count in the head is every parent', () => {
    const engine = new Engine({ sha256 });
    const store = new TurnColumnStore('s', resolveThresholds(undefined, {}));
    const many = Array.from({ length: MAX_ARCHIVED_SHOWN + 4 }, (_, i) => `old${i}`);
    const messages = [
      { type: 'session', session_id: 's' },
      { type: 'snapshot', session_id: 's', turn: 1, spans: many.map((id) => span(id, 0.5)) },
      // the summary derives from all of them; a note cites old0 alone
      { type: 'snapshot', session_id: 's', turn: 2, spans: [span('sum', 0.9, many), span('note', 0.4, ['old0'])], archived: many },
    ];
    messages.forEach((m, i) => {
      const o = engine.ingestValue(m, i + 1);
      if (o.kind === 'turn') store.record(o.result, o.snapshot);
    });
    const g = lineageGraph(store, 1)!;
    const group = g.nodes.find((n) => n.id === archivedGroupId('sum'))!;
    expect(group).toMatchObject({ kind: 'archived', members: many.length, label: `${many.length} archived parents` });
    expect(g.nodes.map((n) => n.id).sort()).toEqual([archivedGroupId('sum'), 'note', 'old0', 'sum'].sort());
    expect(g.edges.map((e) => [e.source, e.target, e.archived])).toEqual(
      expect.arrayContaining([
        [archivedGroupId('sum'), 'sum', true],
        ['old0', 'note', true],
      ]),
    );
    expect(g.edges).toHaveLength(2);
  });

  it('draws up to MAX_ARCHIVED_SHOWN of them one by one', () => {
    const { store } = session(['a', 'b']);
    expect(lineageGraph(store, 1)!.nodes.some((n) => n.members !== undefined)).toBe(false);
  });
});
