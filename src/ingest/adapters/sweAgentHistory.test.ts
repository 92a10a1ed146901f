// docs/adapters.md "SWE-agent", history: trajectories as most published files are written
// (steps without `query`, the conversation in the top-level `history`), on the synthetic
// fixture test/fixtures/adapters/swe-agent-history.traj: a system prompt, a demonstration
// as one message and one put in the history step by step, a second agent (a reviewer)
// interleaved, and a final submit step the history never received.
// eslint-disable-next-line no-restricted-imports -- tests run on Node; the engine is handed its hash
import crypto from 'node:crypto';
// eslint-disable-next-line no-restricted-imports -- the fixture is read from disk
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Engine, type Outcome } from '../../core/engine.ts';
import type { Snapshot } from '../../core/wire.ts';
import { detectFormat } from './detect.ts';
import { TranscriptPipeline } from './pipeline.ts';

const sha256 = (t: string): string => crypto.createHash('sha256').update(t, 'utf8').digest('hex');
const text = fs.readFileSync(new URL('../../../test/fixtures/adapters/swe-agent-history.traj', import.meta.url), 'utf8');
const doc = JSON.parse(text) as { trajectory: Record<string, unknown>[]; history: Record<string, unknown>[] };

function convert(input: string) {
  const values: Record<string, unknown>[] = [];
  const errors: [number, string][] = [];
  const pipeline = new TranscriptPipeline(
    {
      text: () => {
        throw new Error('a trajectory must not reach the engine as raw lines');
      },
      value: (v) => values.push(v as Record<string, unknown>),
      error: (line, message) => errors.push([line, message]),
    },
    { fallbackSessionId: 'slug-fix' },
  );
  const lines = input.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  lines.forEach((l, i) => pipeline.line(l, i + 1));
  pipeline.end();
  return { values, errors, snapshots: values.filter((v): v is Snapshot => v.type === 'snapshot'), summary: pipeline.summary() };
}

const ids = (s: Snapshot): string[] => s.spans.map((x) => x.span_id);
const read = convert(text);
const DEMO = ['h0', 'h1', 'h2', 'h3', 'h4'];

describe('SWE-agent trajectories whose steps carry no query: read from the history (docs/adapters.md)', () => {
  it('reads as turns, not as 0 turns: one per model call of the main agent, and the final submit step', () => {
    expect(doc.trajectory.every((s) => !('query' in s) && !('messages' in s))).toBe(true);
    expect(read.errors).toEqual([]);
    expect(read.summary.format).toBe('swe-agent');
    expect(read.values[0]).toMatchObject({ type: 'session', session_id: 'slug-fix', source: 'swe-agent' });
    expect(read.snapshots.map((s) => s.turn)).toEqual([1, 2, 3, 4]);
  });

  it("spans of a call: the main agent's history before its assistant message, in order, by history index", () => {
    expect(read.snapshots.map(ids)).toEqual([
      DEMO,
      [...DEMO, 'h5', 'h6'],
      [...DEMO, 'h5', 'h6', 'h10', 'h11'],
      // the submit step: its call saw the whole history; its own response never reached the history
      [...DEMO, 'h5', 'h6', 'h10', 'h11', 'h12', 'h13'],
    ]);
    // the reviewer's messages (h7–h9) are another agent's context
    expect(read.summary.skipped).toEqual({ 'history message of agent reviewer': 3 });
  });

  it('demonstrations, one message or step by step (is_demo), are demonstrations and never a call', () => {
    const first = read.snapshots[0]!;
    expect(first.spans.map((s) => [s.span_id, s.role, s.kind])).toEqual([
      ['h0', 'system', 'system_prompt'],
      ['h1', 'demonstration', 'demonstration'],
      ['h2', 'demonstration', 'action'],
      ['h3', 'demonstration', 'observation'],
      ['h4', 'user', 'observation'],
    ]);
    // h2 is an assistant message of the demonstration: the first call is h5's
    expect(first.spans.filter((s) => s.pinned === true).map((s) => s.span_id)).toEqual(['h0', 'h4']);
    expect(first.spans[4]!.text).toMatch(/slugify\(\) drops the last character/);
  });

  it('ids are stable: a message keeps its id and text on every later turn; nothing is pruned or rewritten', () => {
    const last = read.snapshots[3]!;
    for (const s of read.snapshots) {
      for (const span of s.spans) expect(last.spans.find((x) => x.span_id === span.span_id)).toEqual(span);
      expect(s.pruned).toBeUndefined();
      expect(s.rewrite).toBeUndefined();
    }
    // the file holds the texts as appended: the full observation, whatever a history processor showed the model
    expect(last.spans.find((x) => x.span_id === 'h6')!.text.split('\n')).toHaveLength(61);
  });

  it('the unchanged engine accepts every message; tokens are estimated (the file records no per-call usage)', () => {
    const engine = new Engine({ sha256 });
    const outcomes: Outcome[] = read.values.map((v, i) => engine.ingestParsedLine(v, i + 1, false));
    expect(outcomes.filter((o) => o.kind === 'error')).toEqual([]);
    expect(read.snapshots.every((s) => s.spans.every((x) => x.tokens === undefined))).toBe(true);
  });

  it('a document with a history and no trajectory (how SWE-agent saves demonstrations) is recognised and read', () => {
    const historyOnly = { history: doc.history };
    expect(detectFormat(historyOnly)).toBe('swe-agent');
    expect(detectFormat({ history: [{ role: 'user' }] })).toBe('wire');
    const r = convert(JSON.stringify(historyOnly, null, 2));
    expect(r.snapshots.map((s) => s.turn)).toEqual([1, 2, 3]);
  });

  it('steps that carry their query still read from it, as before', () => {
    const withQuery = structuredClone(doc);
    withQuery.trajectory[0]!.query = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'task' },
    ];
    const r = convert(JSON.stringify(withQuery));
    expect(r.snapshots.map(ids)).toEqual([['m0', 'm1']]);
    expect(r.summary.skipped).toEqual({ 'step without query': 3 });
  });
});
