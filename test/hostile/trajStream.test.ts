// Issue 39, "Bounded memory": a pretty-printed SWE-agent `.traj` is read as it streams
// (src/ingest/adapters/sweAgentDocument.ts), element by element, not held as lines and parsed
// whole. These check that it gives the very messages the whole document gives (the same
// document on one line takes the parsed path), in SWE-agent's member order and in others,
// and what a trajectory cut short keeps. Peak memory is `npm run bench -- traj-memory`.
import { describe, expect, it } from 'vitest';
import { trajPieces, type TrajShape } from '../../bench/sweAgentTraj.ts';
import { TranscriptPipeline } from '../../src/ingest/adapters/pipeline.ts';

interface Read {
  messages: string[];
  errors: { line: number; message: string }[];
  skipped: Record<string, number>;
  format: string;
}

function read(lines: string[]): Read {
  const out: Read = { messages: [], errors: [], skipped: {}, format: '' };
  const pipeline = new TranscriptPipeline({
    text: (text) => out.messages.push(`text ${text}`),
    value: (value, line) => out.messages.push(`${line} ${JSON.stringify(value)}`),
    error: (line, message) => out.errors.push({ line, message }),
  });
  lines.forEach((l, i) => pipeline.line(l, i + 1));
  pipeline.end();
  const s = pipeline.summary();
  out.skipped = s.skipped;
  out.format = s.format;
  return out;
}

const doc = (shape: TrajShape): string => [...trajPieces(shape)].join('');

/** The document's members in another order, pretty-printed (as another writer might). */
function reordered(text: string, keys: string[]): string {
  const value = JSON.parse(text) as Record<string, unknown>;
  return JSON.stringify(Object.fromEntries(keys.map((k) => [k, value[k]])), null, 2);
}

describe('a pretty-printed SWE-agent trajectory read as it streams', () => {
  for (const [name, shape] of [
    ['the history form (steps without query)', { steps: 30, observationChars: 300 }],
    ['the query form (each step with the messages it saw)', { steps: 12, observationChars: 200, queries: true }],
  ] as const) {
    it(`${name}: the messages of the same document on one line, in any member order`, () => {
      const text = doc(shape);
      const whole = read([JSON.stringify(JSON.parse(text))]);
      expect(whole.format).toBe('swe-agent');
      expect(whole.messages.length).toBeGreaterThan(10);
      const streamed = read(text.split('\n'));
      expect(streamed).toEqual(whole);
      // history before the trajectory (not SWE-agent's order): held until the trajectory says which rule holds
      const first = read(reordered(text, ['history', 'environment', 'trajectory', 'info']).split('\n'));
      expect(first).toEqual(whole);
    });
  }

  it('a step or history message that is not JSON is its line input error; the ids of the rest stand', () => {
    const lines = doc({ steps: 6, observationChars: 50 }).split('\n');
    const at = lines.findIndex((l) => l.startsWith('      "role": "assistant"'));
    lines[at] = '      "role": assistant,';
    const r = read(lines);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]!.message).toMatch(/not JSON|Unexpected token/);
    expect(r.skipped['history entry not an object']).toBe(1);
    // one call fewer (its assistant message is lost); every later span keeps its history index
    expect(r.messages.filter((m) => m.includes('"type":"snapshot"'))).toHaveLength(6);
    expect(r.messages.at(-1)).toContain('"span_id":"h13"');
  });

  it('a trajectory cut short keeps the calls read and counts a truncated last line, instead of reading its lines as the wire format', () => {
    const text = doc({ steps: 8, observationChars: 50 });
    const cut = text.slice(0, text.indexOf('"info"')).split('\n');
    const r = read(cut);
    expect(r.format).toBe('swe-agent');
    expect(r.errors).toEqual([]);
    expect(r.skipped['truncated last line']).toBe(1);
    expect(r.messages.filter((m) => m.includes('"type":"snapshot"'))).toHaveLength(8);
  });
});
