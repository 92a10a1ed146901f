// EngineOptions.replayMemory and prunedMemory (what the relay sets so its memory and CPU do not
// grow with turns) leave every finding's signal, turn and span ids, and every verdict, as
// they are with unbounded memory, on every sample transcript.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine.ts';
import { CheckOutputBuilder } from '../../src/core/checkOutput.ts';

const sha256 = (t: string): string => createHash('sha256').update(t, 'utf8').digest('hex');
const SAMPLES = path.resolve(import.meta.dirname, '../../public/samples');

function analyse(lines: string[], replayMemory?: number) {
  const engine = new Engine({ sha256, ...(replayMemory === undefined ? {} : { replayMemory, prunedMemory: 2 }) });
  const report = new CheckOutputBuilder();
  lines.forEach((l, i) => report.add(engine.ingestLine(l, i + 1)));
  return report.build().sessions.map((s) => ({
    session: s.session_id,
    verdicts: s.verdicts,
    findings: s.findings.map((f) => ({ turn: f.turn, signal: f.signal, span_ids: f.span_ids })),
  }));
}

describe('bounded engine memory', () => {
  const files = fs.readdirSync(SAMPLES).filter((f) => f.endsWith('.jsonl'));
  it.each(files)('%s: the same findings and verdicts with replayMemory 1 or 0 (the relay: no fingerprints) and prunedMemory 2', (file) => {
    const lines = fs.readFileSync(path.join(SAMPLES, file), 'utf8').split('\n');
    const unbounded = analyse(lines);
    expect(analyse(lines, 1)).toEqual(unbounded);
    expect(analyse(lines, 0)).toEqual(unbounded);
  });
});
