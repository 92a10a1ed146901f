// What each chart receives from the Worker, on a simulated session with every fault, and
// the stores' memory bounds.
// eslint-disable-next-line no-restricted-imports -- tests run on Node; the Worker is handed its hash
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { resolveThresholds } from '../core/config.ts';
import { Engine } from '../core/engine.ts';
import { SIGNALS, type Signal } from '../core/signals.ts';
import { allFaults, simulateSession } from '../sim/scenario.ts';
import { spanDetail, turnDetail } from './details.ts';
import { MAX_GRAPH_NODES } from './lineage.ts';
import { ROW_FINDING, ROW_INCIDENT } from './protocol.ts';
import { TurnColumnStore, type StoreLimits } from '../results/store.ts';
import { findingsIndex, shapeView, signalBands, transferables, windowOf } from '../results/shape.ts';

const sha256 = (t: string): string => createHash('sha256').update(t, 'utf8').digest('hex');

function build(turns: number, limits?: StoreLimits, spans = 30): { store: TurnColumnStore; fired: Map<Signal, number[]> } {
  const engine = new Engine({ sha256 });
  const store = new TurnColumnStore('run', resolveThresholds(undefined, {}), limits);
  const fired = new Map<Signal, number[]>();
  let line = 0;
  for (const m of simulateSession({ seed: 3, sessionId: 'run', turns, spans, faults: allFaults(turns) }, sha256)) {
    const o = engine.ingestValue(m, ++line);
    if (o.kind !== 'turn') continue;
    store.record(o.result, o.snapshot);
    for (const f of o.result.findings) fired.set(f.signal, [...(fired.get(f.signal) ?? []), f.turn]);
  }
  return { store, fired };
}

/** Runs of consecutive turns, as [first, last] pairs. */
function runs(turns: number[]): number[] {
  const out: number[] = [];
  for (const t of turns) {
    if (out.length > 0 && out[out.length - 1] === t - 1) out[out.length - 1] = t;
    else out.push(t, t);
  }
  return out;
}

describe('shaping', () => {
  const { store, fired } = build(300);

  it('decimates every chart to about the point budget, over the requested window', () => {
    const v = shapeView(store, { sessionId: 'run', window: null, points: 60, ribbon: 200 });
    expect(v.turnCount).toBe(300);
    expect([v.from, v.to]).toEqual([1, 300]);
    for (const x of [v.spread.x, v.canary.x, v.drift.x, v.orphans.x]) {
      expect(x.length).toBeGreaterThan(20);
      expect(x.length).toBeLessThanOrEqual(3 * 60);
      expect(x[0]).toBe(1);
      expect(x[x.length - 1]).toBe(300);
    }
    const w = shapeView(store, { sessionId: 'run', window: { from: 100, to: 140 }, points: 500, ribbon: 10 });
    expect(w.spread.x.length).toBe(41); // under budget: every turn
    expect(w.spread.x[0]).toBe(100);
  });

  it('marks fault runs from every turn (never from the decimated points)', () => {
    const w = windowOf(store, { window: null });
    for (const sig of ['spread_collapse', 'orphaned_parent', 'relevance_inflation', 'canary_inversion'] as const) {
      const bands = signalBands(store, w, 1 << SIGNALS.indexOf(sig), 0);
      expect([...bands]).toEqual(runs(fired.get(sig) ?? []));
    }
    const v = shapeView(store, { sessionId: 'run', window: null, points: 40, ribbon: 50 });
    expect([...v.spread.collapse]).toEqual(runs(fired.get('spread_collapse') ?? []));
    expect(v.drift.inflationX.length).toBe(fired.get('relevance_inflation')?.length ?? 0);
  });

  it('draws the band the drift detector uses: previous mean ± tolerance', () => {
    const v = shapeView(store, { sessionId: 'run', window: { from: 50, to: 60 }, points: 100, ribbon: 10 });
    const i = 3;
    const t = store.indexOf(v.drift.x[i]!);
    const prev = store.col.mean.get(t - 1);
    expect(v.drift.bandLow[i]).toBeCloseTo(prev * 0.95, 12);
    expect(v.drift.bandHigh[i]).toBeCloseTo(prev * 1.05, 12);
  });

  it('gives each canary its rank per turn and the median rank', () => {
    const v = shapeView(store, { sessionId: 'run', window: null, points: 1000, ribbon: 10 });
    expect(v.canary.hasCanary).toBe(true);
    expect(v.canary.canaries.length).toBeGreaterThan(0);
    const t = store.indexOf(v.canary.x[10]!);
    expect(v.canary.medianRank[10]).toBe((store.col.nScored.get(t) + 1) / 2);
    expect(v.canary.inversionX.length).toBeGreaterThan(0);
  });

  it('shows the worst severity per pixel column in the ribbon', () => {
    const v = shapeView(store, { sessionId: 'run', window: null, points: 100, ribbon: 300 });
    const firstFault = Math.min(...[...fired.entries()].filter(([s]) => ['stale_score', 'unbound_score', 'orphaned_parent'].includes(s)).flatMap(([, t]) => t));
    expect(v.ribbon[firstFault - 1]).toBe(3);
    expect(v.ribbon[0]).toBeLessThan(3);
  });

  it('transfers copies: the store still works after its replies are transferred', () => {
    const v = shapeView(store, { sessionId: 'run', window: null, points: 100, ribbon: 100 });
    const ix = findingsIndex(store);
    const buffers = [...transferables(v), ...transferables(ix)];
    structuredClone({ v, ix }, { transfer: buffers });
    expect(v.turns.length).toBe(0); // detached
    expect(store.col.turn.length).toBe(300);
    expect(shapeView(store, { sessionId: 'run', window: null, points: 10, ribbon: 10 }).turns.length).toBe(300);
  });

  it('lists findings grouped in incidents: a header, then each turn of the run', () => {
    const ix = findingsIndex(store);
    let findings = 0;
    for (let r = 0; r < ix.rowKind.length; r++) {
      if (ix.rowKind[r] === ROW_INCIDENT) {
        const k = ix.rowRef[r]!;
        const count = ix.incidentCount[k]!;
        for (let j = 1; j <= count; j++) {
          expect(ix.rowKind[r + j]).toBe(ROW_FINDING);
          expect(ix.rowIncident[r + j]).toBe(k);
          expect(ix.rowSignal[r + j]).toBe(ix.incidentSignal[k]);
        }
        expect(ix.rowTurn[r + count]! - ix.rowTurn[r + 1]!).toBe(count - 1); // consecutive turns
      } else findings++;
    }
    expect(findings).toBe([...fired.values()].reduce((n, l) => n + l.length, 0));
  });
});

describe('turn and span details', () => {
  const { store } = build(200);

  it('lists the verdict, findings, spans and a laid-out lineage graph for a turn', () => {
    const orphanTurn = [...Array(store.turnCount).keys()].find((t) => store.col.orphanEdges.get(t) > 0)!;
    const d = turnDetail(store, store.col.turn.get(orphanTurn))!;
    expect(d.findings.some((f) => f.signal === 'orphaned_parent')).toBe(true);
    expect(d.graph!.nodes.some((n) => n.kind === 'ghost')).toBe(true);
    expect(d.graph!.edges.some((e) => e.missing)).toBe(true);
    expect(d.graph!.nodes.length).toBeLessThanOrEqual(MAX_GRAPH_NODES);
    for (const n of d.graph!.nodes) expect(Number.isFinite(n.x) && Number.isFinite(n.y)).toBe(true);
    expect(turnDetail(store, 99_999)).toBeNull();
  });

  it("gives a span's hashes, history and a diff against its previous turn", () => {
    const staleTurn = [...Array(store.turnCount).keys()].find((t) =>
      turnDetail(store, store.col.turn.get(t))!.spans!.some((s) => s.binding === 'stale' && s.textChanged),
    )!;
    const turn = store.col.turn.get(staleTurn);
    const span = turnDetail(store, turn)!.spans!.find((s) => s.binding === 'stale' && s.textChanged)!;
    const d = spanDetail(store, turn, span.spanId, sha256)!;
    expect(d.binding).toBe('stale');
    expect(d.claimedSha256).not.toBe(d.computedSha256);
    expect(d.computedSha256).toBe(sha256(d.text!));
    expect(d.diff).not.toBeNull();
    expect(d.textVersions.length).toBeGreaterThan(1);
    expect(d.historyX.length).toBeGreaterThan(1);
  });
});

describe('memory bounds', () => {
  it('releases the oldest per-span rows past the row budget, keeping recent turns inspectable', () => {
    // at least maxSpanRows recent rows are kept; whole 65,536-row chunks go once past it
    const { store } = build(500, { maxSpanRows: 20_000, maxTextChars: 1_000_000 }, 200);
    expect(store.rows.heldFrom).toBeGreaterThan(0);
    const held = store.spansHeldFromIndex;
    expect(held).toBeGreaterThan(0);
    expect(turnDetail(store, store.col.turn.get(0))!.spans).toBeNull();
    expect(turnDetail(store, store.col.turn.get(store.turnCount - 1))!.spans!.length).toBeGreaterThan(0);
    // metrics and findings of every turn are kept
    expect(store.turnCount).toBe(500);
  });

  it('releases old text versions past the character budget but never a current text', () => {
    const { store } = build(200, { maxSpanRows: 1 << 22, maxTextChars: 20_000 });
    let released = 0;
    for (const info of store.spans) {
      const current = info.texts[info.texts.length - 1];
      if (current !== undefined) expect(current.text).not.toBeNull();
      released += info.texts.filter((v) => v.text === null).length;
    }
    expect(released).toBeGreaterThan(0);
  });
});
