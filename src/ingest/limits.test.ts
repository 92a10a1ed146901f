// Hostile input (docs/engine.md): a line or .json element over maxLineBytes is one input
// error naming the limit, never held or decoded, and reading goes on after it; input that
// is nothing but white space or empty lines is read in one linear pass.
import { describe, expect, it } from 'vitest';
import { webDecoder, type DecodeFailure } from './lines.ts';
import { TranscriptReader } from './transcript.ts';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const msg = (turn: number): string => JSON.stringify({ type: 'snapshot', session_id: 's', turn, spans: [] });

type Got = [line: number, text: string | DecodeFailure];

/** Feeds the parts in chunks of `size` bytes (each part is chunked on its own: a part may be large and made of one byte). */
function read(parts: readonly (Uint8Array | string)[], size: number, maxLineBytes?: number): { got: Got[]; structure: [number, string][] } {
  const got: Got[] = [];
  const structure: [number, string][] = [];
  const reader = new TranscriptReader(
    (text, line) => got.push([line, text]),
    (line, message) => structure.push([line, message]),
    webDecoder,
    maxLineBytes === undefined ? {} : { maxLineBytes },
  );
  for (const p of parts) {
    const bytes = typeof p === 'string' ? utf8(p) : p;
    for (let at = 0; at < bytes.length; at += size) reader.push(bytes.subarray(at, at + size));
  }
  reader.end();
  return { got, structure };
}

const errorOf = (g: Got | undefined): string => (g !== undefined && typeof g[1] !== 'string' ? g[1].error : `not an error: ${JSON.stringify(g)}`);

describe('the line limit', () => {
  it.each([1, 7, 100, 4096, 1 << 20])('a JSONL line over the limit is an input error naming it, and the next lines are read (chunks of %i)', (size) => {
    const long = new Uint8Array(5000); // NUL bytes: not UTF-8 text either, and the limit is what is said
    const { got } = read([msg(1) + '\n', long, '\n', msg(2) + '\n', 'x'.repeat(300)], size, 256);
    expect(got.map(([line]) => line)).toEqual([1, 2, 3, 4]);
    expect(errorOf(got[1])).toBe('the line is 5000 bytes long, over the limit of 256 bytes per line (--max-line-bytes): it was skipped, not read');
    expect(got[2]).toEqual([3, msg(2)]);
    expect(errorOf(got[3])).toContain('the line is 300 bytes long');
  });

  it('a line of exactly the limit is read', () => {
    const line = msg(1) + ' '.repeat(100 - msg(1).length);
    expect(read([line + '\n', line], 7, 100).got).toEqual([
      [1, line],
      [2, line],
    ]);
  });

  it.each([1, 7, 4096])('a .json array element over the limit is an input error at its line, and the next elements are read (chunks of %i)', (size) => {
    const big = JSON.stringify({ type: 'snapshot', session_id: 's', turn: 2, spans: [], pad: 'p'.repeat(1000) });
    const { got, structure } = read(['\n\n[', msg(1), ',\n', big, ',\n', msg(3), ']\n'], size, 256);
    expect(structure).toEqual([]);
    expect(got.map(([line]) => line)).toEqual([3, 4, 5]);
    expect(got[0]![1]).toBe(msg(1));
    expect(errorOf(got[1])).toBe(
      `the element is ${big.length} bytes long, over the limit of 256 bytes per element (--max-line-bytes): it was skipped, not read`,
    );
    expect(got[2]![1]).toBe(msg(3));
  });

  it('names the default limit in MiB', () => {
    const { got } = read([new Uint8Array(65 << 20)], 1 << 20);
    expect(errorOf(got[0])).toContain('over the limit of 64 MiB per line');
  });
});

describe('white space and empty lines', () => {
  it('counts them for line numbers, before the first message of JSONL or of an array', () => {
    expect(read(['\n \r\n\t\n', msg(1)], 3).got).toEqual([[4, msg(1)]]);
    expect(read(['\n\n  [\n', msg(1), ']'], 3).got).toEqual([[4, msg(1)]]);
    expect(read(['\n\n  \n'], 3).got).toEqual([]);
  });

  it('reads 50 MB of newlines or spaces in one linear pass (it was quadratic), holding none of it', () => {
    const newlines = new Uint8Array(50 << 20).fill(0x0a);
    const spaces = new Uint8Array(50 << 20).fill(0x20);
    const t0 = performance.now();
    // 16 KiB chunks: 3,200 of them, each rescanning all the ones before, did not finish in minutes
    expect(read([newlines, msg(1)], 16 << 10).got).toEqual([[(50 << 20) + 1, msg(1)]]);
    expect(read([spaces], 16 << 10).got).toEqual([]);
    expect(read([msg(1), newlines, msg(2)], 16 << 10).got).toEqual([
      [1, msg(1)],
      [(50 << 20) + 1, msg(2)],
    ]);
    // a generous ceiling: the linear pass takes well under a second
    expect(performance.now() - t0).toBeLessThan(15_000);
  });
});
