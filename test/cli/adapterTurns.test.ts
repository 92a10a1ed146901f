// `check` keeps no replay fingerprints for another agent's transcript (Engine.forgoReplays,
// docs/adapters.md "Turns"): that rests on every adapter numbering a session's turns itself,
// one more per model call, so no earlier turn comes again. Held here over every sample,
// fixture and generated transcript the byte-identity record covers: were an adapter to
// repeat a turn, the engine would now say so as an input error ("does not increase").
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../src/core/engine.ts';
import { checkTranscript } from '../../src/cli/check.ts';
import { generated, inputs } from './checkDigests.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe("adapters number a session's turns, one more per call", () => {
  it('in every sample, fixture and generated transcript read through an adapter', async () => {
    let adapted = 0;
    for (const file of [...inputs(), ...generated()]) {
      const outcomes: Outcome[] = [];
      const result = await checkTranscript(path.join(ROOT, file), { userThresholds: {}, audit: true, onOutcome: (o) => outcomes.push(o) });
      if (result.adapter.format === 'wire') continue;
      adapted++;
      const last = new Map<string, number>();
      for (const o of outcomes) {
        expect(o.kind === 'ignored' && o.reason === 'replayed', `${file}: a replayed frame`).toBe(false);
        if (o.kind === 'error') expect(o.error.message, file).not.toMatch(/does not increase/);
        if (o.kind !== 'turn') continue;
        const before = last.get(o.result.sessionId);
        if (before !== undefined) expect(o.result.turn, `${file}: session ${o.result.sessionId}`).toBeGreaterThan(before);
        last.set(o.result.sessionId, o.result.turn);
      }
    }
    // the samples and fixtures hold every adapter's formats
    expect(adapted).toBeGreaterThanOrEqual(15);
  });
});
