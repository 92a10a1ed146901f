// The fault table against the list of fault kinds: one strategy per FaultKind, each run once
// per phase, each built for some signal (the types already say which names are valid). What each fault does to a session is measured
// in src/sim/scenario.test.ts; that the split into strategies changed no byte, in
// src/sim/scenario.golden.test.ts.
import { describe, expect, it } from 'vitest';
import { FAULT_KINDS } from '../options.ts';
import { FAULT_SIGNALS } from '../scenario.ts';
import { FAULTS, RUN_ORDER } from './index.ts';

describe('FAULTS', () => {
  it('has one strategy per fault kind, and no other', () => {
    expect(Object.keys(FAULTS).sort()).toEqual([...FAULT_KINDS].sort());
    expect(new Set(Object.values(FAULTS)).size).toBe(FAULT_KINDS.length);
  });

  it('runs every fault exactly once per phase', () => {
    expect(RUN_ORDER.length).toBe(FAULT_KINDS.length);
    expect([...RUN_ORDER].sort()).toEqual([...FAULT_KINDS].sort());
  });

  it('gives each fault at least one signal, none twice', () => {
    for (const kind of FAULT_KINDS) {
      const { signals } = FAULTS[kind];
      expect(signals.length, kind).toBeGreaterThan(0);
      expect(new Set(signals).size, kind).toBe(signals.length);
    }
  });

  it('is where FAULT_SIGNALS comes from, in FAULT_KINDS order', () => {
    expect(Object.keys(FAULT_SIGNALS)).toEqual([...FAULT_KINDS]);
    for (const kind of FAULT_KINDS) expect(FAULT_SIGNALS[kind]).toBe(FAULTS[kind].signals);
  });
});
