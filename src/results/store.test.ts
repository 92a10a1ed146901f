// The results model on a simulated session with every fault: each declared column holds one
// value per turn, read back as the engine gave it, and the store's incidents are core's.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TurnResult } from '../core/analyse.ts';
import { resolveThresholds } from '../core/config.ts';
import { Engine } from '../core/engine.ts';
import { incidentsOf } from '../core/incidents.ts';
import { SIGNALS, type Finding } from '../core/signals.ts';
import { allFaults, simulateSession } from '../sim/scenario.ts';
import { TurnColumnStore } from './store.ts';
import { metricsAt, TURN_COLUMNS, type TurnColumnName } from './turnColumns.ts';

const sha256 = (t: string): string => createHash('sha256').update(t, 'utf8').digest('hex');

function build(turns: number): { store: TurnColumnStore; results: TurnResult[] } {
  const engine = new Engine({ sha256 });
  const store = new TurnColumnStore('run', resolveThresholds(undefined, {}));
  const results: TurnResult[] = [];
  let line = 0;
  for (const m of simulateSession({ seed: 5, sessionId: 'run', turns, spans: 20, faults: allFaults(turns) }, sha256)) {
    const o = engine.ingestValue(m, ++line);
    if (o.kind !== 'turn') continue;
    store.record(o.result, o.snapshot);
    results.push(o.result);
  }
  return { store, results };
}

describe('the declared per-turn columns', () => {
  const { store, results } = build(160);

  it('every column holds one value per recorded turn, of its declared type', () => {
    for (const name of Object.keys(TURN_COLUMNS) as TurnColumnName[]) {
      expect(store.col[name].length, name).toBe(results.length);
      expect(store.col[name].view(), name).toBeInstanceOf(TURN_COLUMNS[name].type);
    }
  });

  it('gives back each turn’s contract §3 metrics as the engine computed them', () => {
    results.forEach((r, t) => {
      const { turn: _turn, canaries: _canaries, tokens_by_kind: _byKind, ...metrics } = r.metrics;
      expect(metricsAt(store.col, t)).toEqual(metrics);
    });
  });

  it('holds the signals and the worst severity of each turn’s findings', () => {
    const level = { info: 1, warning: 2, fault: 3 } as const;
    results.forEach((r, t) => {
      const mask = r.findings.reduce((m, f) => m | (1 << SIGNALS.indexOf(f.signal)), 0);
      expect(store.col.signals.get(t)).toBe(mask);
      expect(store.col.severity.get(t)).toBe(Math.max(0, ...r.findings.map((f) => level[f.severity])));
    });
    expect(results.some((r) => r.findings.length > 0)).toBe(true);
  });
});

describe('incidents', () => {
  it('are the ones src/core/incidents.ts groups from the same findings', () => {
    const { store, results } = build(160);
    const findings: Finding[] = results.flatMap((r) => r.findings);
    const order = results.map((r) => r.turn);
    const core = incidentsOf(findings, order);
    expect(core.length).toBeGreaterThan(3);
    const ours = Array.from({ length: store.incidentSignal.length }, (_, k) => ({
      signal: SIGNALS[store.incidentSignal.get(k)]!,
      first: store.incidentStart.get(k),
      last: store.incidentEnd.get(k),
      firstTurn: store.col.turn.get(store.incidentStart.get(k)),
      lastTurn: store.col.turn.get(store.incidentEnd.get(k)),
    }));
    expect(ours).toEqual(core);
  });
});
