// The relay's analysis takes the gate's parsed and validated message (sessionGate.ts
// inspect → Engine.ingestValidated) instead of parsing and validating the stored line
// again: on every sample, whole and in the compact wire of contract §7, it gives the same
// findings and verdicts as the engine reading the lines itself.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compactTranscript } from '../../src/core/compactTranscript.ts';
import { Engine, type Outcome } from '../../src/core/engine.ts';
import { DEFAULT_RELAY_LIMITS, inspect } from '../../src/server/sessionGate.ts';
import { engineReport, SAMPLES, sha256 } from './engineReport.ts';

const byLine = (engine: Engine, line: string, n: number): Outcome => engine.ingestLine(line, n);

const asTheRelay = (engine: Engine, line: string, n: number): Outcome => {
  const ins = inspect(Buffer.from(line), DEFAULT_RELAY_LIMITS, true);
  if (ins.kind === 'blank') return { kind: 'ignored', reason: 'blank' };
  if (ins.kind === 'error') return { kind: 'error', error: { line: n, message: ins.message } };
  expect(ins.parsed?.validated).toBeDefined();
  return engine.ingestValidated(ins.parsed!.validated!, n);
};

describe("the gate's validated message feeds the analysis", () => {
  const files = fs.readdirSync(SAMPLES).filter((f) => f.endsWith('.jsonl'));
  it.each(files)('%s: the same findings and verdicts as reading the lines, whole and compact', (file) => {
    const lines = fs.readFileSync(path.join(SAMPLES, file), 'utf8').replace(/\n$/, '').split('\n');
    const compact = compactTranscript(lines, sha256);
    expect(compact.snapshotBytesAfter).toBeLessThan(compact.snapshotBytesBefore);
    const expected = engineReport(lines, byLine);
    expect(expected.some((s) => s.verdicts.length > 0)).toBe(true);
    expect(engineReport(lines, asTheRelay)).toEqual(expected);
    expect(engineReport(compact.lines, asTheRelay)).toEqual(engineReport(compact.lines, byLine));
  });
});
