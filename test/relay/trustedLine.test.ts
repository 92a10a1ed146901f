// The relay's analysis threads read the lines the gate accepted and stored, and do not
// validate them a second time (Engine.ingestTrustedLine → validateTrusted): on every
// sample, whole and in the compact wire of contract §7, the lines the gate accepts give the
// same findings and verdicts as the engine reading them with full validation; a line the
// fast check refuses still gets the full validation's error.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compactTranscript } from '../../src/core/compactTranscript.ts';
import { Engine } from '../../src/core/engine.ts';
import { DEFAULT_RELAY_LIMITS, inspect } from '../../src/server/sessionGate.ts';
import { engineReport, SAMPLES, sha256 } from './engineReport.ts';

/** what the relay stores: the lines its gate accepts */
const accepted = (lines: readonly string[]): string[] => lines.filter((l) => inspect(Buffer.from(l), DEFAULT_RELAY_LIMITS).kind === 'valid');

describe('stored lines analysed without a second validation', () => {
  const files = fs.readdirSync(SAMPLES).filter((f) => f.endsWith('.jsonl'));
  it.each(files)('%s: the same findings and verdicts as with full validation, whole and compact', (file) => {
    const lines = accepted(fs.readFileSync(path.join(SAMPLES, file), 'utf8').replace(/\n$/, '').split('\n'));
    const compact = accepted(compactTranscript(lines, sha256).lines);
    for (const ls of [lines, compact]) {
      const expected = engineReport(ls, (e, l, n) => e.ingestLine(l, n));
      expect(expected.some((s) => s.verdicts.length > 0)).toBe(true);
      expect(engineReport(ls, (e, l, n) => e.ingestTrustedLine(l, n))).toEqual(expected);
    }
  });

  it('a line the fast check refuses gets the full validation’s error', () => {
    const bad = [
      '{"type":"snapshot","session_id":"s","turn":1}',
      '{"type":"snapshot","session_id":"s","turn":"one","spans":[]}',
      '[1,2]',
      '{"type":"snapshot","session_id":"s","turn":1,"spans":[',
    ];
    for (const l of bad) {
      const full = new Engine({ sha256, replayMemory: 0 }).ingestLine(l, 1);
      const trusted = new Engine({ sha256, replayMemory: 0 }).ingestTrustedLine(l, 1);
      expect(full.kind).toBe('error');
      expect(trusted).toEqual(full);
    }
  });

  it('an engine that keeps replay fingerprints validates in full (duplicate span ids refused)', () => {
    const dup = '{"type":"snapshot","session_id":"s","turn":1,"spans":[{"span_id":"a","text":"x","score":0.5},{"span_id":"a","text":"y","score":0.4}]}';
    const out = new Engine({ sha256 }).ingestTrustedLine(dup, 1);
    expect(out.kind).toBe('error');
    expect(out).toEqual(new Engine({ sha256 }).ingestLine(dup, 1));
  });
});
