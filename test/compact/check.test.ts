// contract §7 compact wire in `check` (the Worker: src/worker/compactWire.test.ts): a transcript and its compact form
// (texts left out where unchanged) give the same analysis, whatever the chunk size; a
// compact snapshot that cannot carry its texts is an input error naming line, turn and
// span; a version-1 transcript reads exactly as before.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compactTranscript } from '../../src/core/compactTranscript.ts';
import { Engine } from '../../src/core/engine.ts';
import { CheckOutputBuilder, type CheckOutput } from '../../src/core/checkOutput.ts';
import { nodeSha256 } from '../../src/node/platform.ts';
import { ROOT, run, tempDir } from '../relay/helpers.ts';

const SAMPLES = path.join(ROOT, 'public/samples');
const samples = fs.readdirSync(SAMPLES).filter((f) => f.endsWith('.jsonl'));

function analyse(lines: readonly string[]): CheckOutput {
  const engine = new Engine({ sha256: nodeSha256 });
  const report = new CheckOutputBuilder();
  lines.forEach((l, i) => report.add(engine.ingestLine(l, i + 1)));
  return report.build();
}

/** The report without line numbers: the compact form adds header lines. */
function comparable(r: CheckOutput): unknown {
  return { sessions: r.sessions, input_errors: r.input_errors.map((e) => e.message) };
}

const linesOf = (file: string): string[] => fs.readFileSync(path.join(SAMPLES, file), 'utf8').replace(/\n$/, '').split('\n');

describe('compact wire (contract §7): check and the Worker', () => {
  it.each(samples)('%s: the compact form analyses as the whole one, and is smaller', (file) => {
    const lines = linesOf(file);
    const compact = compactTranscript(lines, nodeSha256);
    expect(compact.snapshotBytesAfter).toBeLessThan(compact.snapshotBytesBefore);
    expect(compact.lines.some((l) => l.includes('"base_turn"'))).toBe(true);
    expect(comparable(analyse(compact.lines))).toEqual(comparable(analyse(lines)));
  });

  it('check --json prints the same sessions for both forms', async () => {
    const lines = linesOf('all-faults.jsonl');
    const dir = tempDir('ch-compact-');
    const whole = path.join(dir, 'whole.jsonl');
    const compactFile = path.join(dir, 'compact.jsonl');
    fs.writeFileSync(whole, lines.join('\n') + '\n');
    const compactLines = compactTranscript(lines, nodeSha256).lines;
    fs.writeFileSync(compactFile, compactLines.join('\n') + '\n');
    const a = await run(process.execPath, ['bin/context-health.mjs', 'check', whole, '--json', '--fail-on', 'never']);
    const b = await run(process.execPath, ['bin/context-health.mjs', 'check', compactFile, '--json', '--fail-on', 'never']);
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    expect(comparable(JSON.parse(b.stdout) as CheckOutput)).toEqual(comparable(JSON.parse(a.stdout) as CheckOutput));
  });

  it('a left-out text that cannot be carried is an input error naming line, turn and span; the rest is analysed', () => {
    const span = (id: string, text?: string): Record<string, unknown> => ({
      span_id: id,
      ...(text === undefined ? {} : { text }),
      score: 0.5,
      text_sha256: null,
    });
    const snap = (turn: number, spans: object[], base?: number): string =>
      JSON.stringify({ type: 'snapshot', session_id: 's', turn, ...(base === undefined ? {} : { base_turn: base }), spans });
    const lines = [
      JSON.stringify({ type: 'session', session_id: 's', wire: '1.1' }),
      snap(1, [span('a')], 0), // nothing to carry from
      snap(2, [span('a', 'hello'), span('b', 'x')]),
      snap(3, [span('a'), span('c')], 2), // c is new
      snap(4, [span('a'), span('b', 'y')]), // no base_turn
      snap(5, [span('a'), span('b', 'y')], 4), // the previous accepted is turn 2
      snap(6, [span('a'), span('b', 'z')], 2),
      snap(6, [span('a'), span('b', 'z')], 2), // a resent copy of the last turn: ignored
    ];
    const r = analyse(lines);
    expect(r.input_errors.map((e) => e.line)).toEqual([2, 4, 5, 6]);
    expect(r.input_errors[0]!.message).toMatch(/^turn 1: span 0 \("a"\) leaves out its text, but session "s" has no previous snapshot/);
    expect(r.input_errors[1]!.message).toMatch(
      /^turn 3: span 1 \("c"\) leaves out its text, but the previous snapshot \(turn 2\) of session "s" has no span of that id/,
    );
    expect(r.input_errors[2]!.message).toMatch(/it has no base_turn while the previous snapshot of session "s" is turn 2/);
    expect(r.input_errors[3]!.message).toMatch(/its base_turn is 4 while the previous snapshot of session "s" is turn 2/);
    expect(r.sessions[0]!.turns).toBe(2);
    // turn 6 carried "hello" for a: its texts_changed counts b only (contract §3)
    const engine = new Engine({ sha256: nodeSha256 });
    const outcomes = lines.map((l, i) => engine.ingestLine(l, i + 1));
    const t6 = outcomes[6]!;
    expect(t6.kind).toBe('turn');
    if (t6.kind === 'turn') {
      expect(t6.snapshot.spans.map((s) => s.text)).toEqual(['hello', 'z']);
      expect(t6.result.metrics.texts_changed).toBe(1);
      expect('base_turn' in t6.snapshot).toBe(false);
    }
    expect(outcomes[7]).toEqual({ kind: 'ignored', reason: 'replayed' });
  });

  it('version 1: a session that does not declare the compact wire gets the version-1 error for a missing text', () => {
    const lines = [
      JSON.stringify({ type: 'snapshot', session_id: 'v', turn: 1, spans: [{ span_id: 'a', text: 't', score: null, text_sha256: null }] }),
      JSON.stringify({ type: 'snapshot', session_id: 'v', turn: 2, base_turn: 1, spans: [{ span_id: 'a', score: null, text_sha256: null }] }),
    ];
    expect(analyse(lines).input_errors).toEqual([{ line: 2, message: 'span 0 ("a") text is required but missing' }]);
  });
});
