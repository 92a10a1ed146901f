// The parsing threads' records (src/node/lineRecords.ts): a line's record, taken in, is the message
// and span table the ordinary path makes (the same values, -0 included, keys in the same
// order), or there is no record; and most lines of a plain transcript get one.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateMessage } from '../../src/core/validate.ts';
import { NodeLineParser } from '../../src/node/lineParser.ts';
import { RecordDecoder, RecordEncoder } from '../../src/node/lineRecords.ts';
import { nodeSha256 } from '../../src/node/platform.ts';
import { edgeLines } from './edgeLines.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Every value and key order, -0 told from 0 (JSON.stringify alone would not). */
function exactly(v: unknown): unknown {
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : v;
  if (Array.isArray(v)) return v.map(exactly);
  if (typeof v === 'object' && v !== null) return Object.entries(v).map(([k, x]) => [k, exactly(x)]);
  return v;
}

function records(lines: string[]): { made: number; lines: number } {
  const bytes = Buffer.from(lines.join('\n'));
  const encoder = new RecordEncoder(nodeSha256);
  const ranges: [number, number][] = [];
  for (let start = 0, i = 0; i < lines.length; i++) {
    const end = start + Buffer.byteLength(lines[i]!);
    ranges.push([start, end]);
    start = end + 1;
  }
  const encoded = ranges.map(([start, end]) => encoder.encode(bytes, start, end));
  // as the main thread does: the shapes the thread met by the end of the batch
  const decoder = new RecordDecoder(encoder.shapes.list, new Map());
  const parser = new NodeLineParser();
  let made = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const [start, end] = ranges[i]!;
    const record = encoded[i]!;
    if (record === null) decoder.skip();
    else {
      made++;
      const { checked } = decoder.take(record);
      const decoded = parser.decode(bytes, start, end);
      const value = typeof decoded === 'string' ? JSON.parse(decoded) : decoded.parsed;
      const ordinary = validateMessage(value, true);
      expect(ordinary.ok, line).toBe(true);
      if (!ordinary.ok) continue;
      expect(exactly(checked.message), line).toEqual(exactly(ordinary.message));
      const { index, objectHashes, ...columns } = checked.spans!;
      const { index: i2, objectHashes: o2, ...columns2 } = ordinary.spans!;
      expect(exactly(columns)).toEqual(exactly(columns2));
      expect([...index]).toEqual([...i2]);
      expect([...objectHashes]).toEqual([...o2]);
    }
  }
  return { made, lines: lines.length };
}

describe('line records', () => {
  it('every sample line with a record is the ordinary message; most have one', () => {
    for (const f of ['all-faults.jsonl', 'two-sessions-interleaved.jsonl', 'with-bad-lines.jsonl', 'drift-and-orphans.jsonl']) {
      const lines = fs
        .readFileSync(path.join(ROOT, 'public/samples', f), 'utf8')
        .split('\n')
        .filter((l) => l !== '');
      const { made } = records(lines);
      expect(made, f).toBeGreaterThan(lines.length / 2);
    }
  });

  it('edge lines: a record is exact, or there is none', () => {
    const { made } = records(edgeLines());
    expect(made).toBeGreaterThan(5);
  });
});
