// Issue 39 "Output streams": check --json and diff --json are written in pieces, never as one string, and the
// pieces are JSON.stringify's bytes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it, onTestFinished } from 'vitest';
import { checkTranscript } from '../../src/cli/check.ts';
import { runDiff, type DiffJson } from '../../src/cli/diff.ts';
import { writeCheckOutput } from '../../src/cli/checkOutput.ts';
import { jsonPieces, writeJsonPieces, type PieceCount } from '../../src/cli/jsonPieces.ts';
import crypto from 'node:crypto';
import { writeManyTurns } from './manyTurns.ts';

class Collect extends Writable {
  readonly chunks: string[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.chunks.push(chunk.toString('utf8'));
    done();
  }
}

describe('jsonPieces', () => {
  it('joins to JSON.stringify of the same value, undefined members and all', () => {
    const values: unknown[] = [
      { a: 1, b: undefined, c: [1, undefined, { d: 'é\u2028"' }], e: { f: { g: { h: { i: [null, true] } } } }, fn: () => 1 },
      [],
      {},
      [[[[[[1]]]]]],
      { 2: 'two', 1: 'one', z: new Date(0), s: Symbol('x') },
      'text',
      3.5,
      null,
      { sessions: [{ session_id: 'x', metrics: [{ turn: 1, mean_score: null }], compactions: undefined }], input_errors: [] },
    ];
    for (const v of values) expect([...jsonPieces(v)].join('')).toBe(JSON.stringify(v));
  });

  it('waits for a slow stream to drain, and writes everything in order', async () => {
    const rows = Array.from({ length: 5000 }, (_, i) => ({ turn: i, text: 'x'.repeat(50) }));
    const slow = new Collect({ highWaterMark: 1024 });
    const count: PieceCount = { writes: 0, longest: 0 };
    await writeJsonPieces(slow, { rows }, '\n', count);
    expect(slow.chunks.join('')).toBe(JSON.stringify({ rows }) + '\n');
    expect(count.writes).toBeGreaterThan(3);
  });
});

describe('check --json in pieces', () => {
  it('a session of 20,000 turns is written in pieces of at most ~64 KiB, and is the single string it used to be', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-pieces-'));
    const file = path.join(dir, 'many.jsonl');
    writeManyTurns(file, 20_000);
    onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
    const result = await checkTranscript(file, { userThresholds: {} });
    expect(result.report.sessions[0]!.turns).toBe(20_000);
    const sink = new Collect();
    const count: PieceCount = { writes: 0, longest: 0 };
    await writeCheckOutput(sink, result, { json: true, source: file, count });
    const text = sink.chunks.join('');
    expect(text).toBe(JSON.stringify(result.report) + '\n');
    // the whole is MBs; no piece is more than one element past the 64 KiB mark
    expect(text.length).toBeGreaterThan(2 << 20);
    expect(count.longest).toBeLessThan(70_000);
    expect(count.writes).toBeGreaterThan(text.length / 70_000);
  }, 60_000);
});

describe('diff --json in pieces', () => {
  it('a comparison of 10,000 incidents is written in pieces of at most ~64 KiB, and parses whole', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-pieces-'));
    onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
    // A: 20,000 turns, the one span unscored on every other one (unscored_span, an incident each); B: always scored
    const sha = crypto.createHash('sha256').update('tiny', 'utf8').digest('hex');
    const side = (name: string, unscoredEveryOther: boolean): string => {
      const lines = [JSON.stringify({ type: 'session', session_id: name })];
      for (let t = 1; t <= 20_000; t++) {
        const unscored = unscoredEveryOther && t % 2 === 1;
        lines.push(
          JSON.stringify({
            type: 'snapshot',
            session_id: name,
            turn: t,
            spans: [{ span_id: 's', text: 'tiny', score: unscored ? null : 0.5, text_sha256: unscored ? null : sha, tokens: 1 }],
          }),
        );
      }
      const file = path.join(dir, `${name}.jsonl`);
      fs.writeFileSync(file, lines.join('\n') + '\n');
      return file;
    };
    const a = side('a', true);
    const b = side('b', false);
    class Counted extends Collect {
      longest = 0;
      override _write(chunk: Buffer, enc: BufferEncoding, done: () => void): void {
        this.longest = Math.max(this.longest, chunk.length);
        super._write(chunk, enc, done);
      }
    }
    const stdout = new Counted();
    const stderr = new Collect();
    expect(await runDiff(['--json', '--fail-on-new', 'never', a, b], { stdout, stderr })).toBe(0);
    const text = stdout.chunks.join('');
    const parsed = JSON.parse(text) as DiffJson;
    expect(parsed.incidents.only_a).toHaveLength(10_000);
    expect(text.length).toBeGreaterThan(800_000);
    // never one string: many writes, none more than one element past the 64 KiB mark
    expect(stdout.chunks.length).toBeGreaterThan(text.length / 70_000);
    expect(stdout.longest).toBeLessThan(70_000);
  }, 60_000);
});
