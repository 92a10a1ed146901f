// Issue 39 "Output streams": check --json is written in pieces, never as one string, and the
// pieces are JSON.stringify's bytes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it, onTestFinished } from 'vitest';
import { checkTranscript } from '../../src/cli/check.ts';
import { writeCheckOutput } from '../../src/cli/checkOutput.ts';
import { jsonPieces, writeJsonPieces, type PieceCount } from '../../src/cli/jsonPieces.ts';
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
