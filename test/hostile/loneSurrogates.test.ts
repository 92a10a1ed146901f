// A lone UTF-16 surrogate in another agent's transcript (docs/security.md "Hostile
// transcripts"): Claude Code and other Node agents cut long texts with String.slice, which can
// split an emoji, and JSON.stringify writes the half left as a `\ud83d` escape. The product's own
// format refuses such a text (contract §2.5 rule 8); an adapted transcript's record holding one
// reads it as U+FFFD, what it becomes when the text is sent as UTF-8, and is counted. Before, the
// span kept it, and every later snapshot listing that span was an input error: one cut emoji in
// a tool result lost every later turn of the session, each blamed on a good line.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkTranscript } from '../../src/cli/check.ts';
import { convertText } from '../../src/ingest/adapters/convert.testing.ts';
import { tempDir } from '../relay/helpers.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/adapters');
const COUNTED = 'record with a lone surrogate (read as U+FFFD)';

type Json = Record<string, unknown>;

/** The record with a lone high surrogate after each of its texts (strings of more than one word), and how many it got. */
function withLoneSurrogates(value: unknown): [unknown, number] {
  let n = 0;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (!/\s/.test(v.trim())) return v;
      n++;
      return `${v} cut 😀`.slice(0, -1);
    }
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  const out = walk(value);
  return [out, n];
}

async function outcome(file: string): Promise<{ errors: string[]; turns: number; skipped: Record<string, number> }> {
  const { report, adapter } = await checkTranscript(file, { userThresholds: {}, threads: 1 });
  const skipped = adapter.skipped;
  return { errors: report.input_errors.map((e) => `${e.line}: ${e.message}`), turns: report.sessions.reduce((n, s) => n + s.turns, 0), skipped };
}

describe('a lone surrogate in an adapted transcript', () => {
  for (const fixture of ['claude-code.jsonl', 'codex-rollout.jsonl', 'gemini-session.jsonl', 'openhands-v0-output.jsonl']) {
    it(`${fixture}: each record's texts cut in an emoji in turn: read as U+FFFD and counted, every turn kept`, async () => {
      const dir = tempDir('ch-lone-');
      const source = path.join(FIXTURES, fixture);
      const lines = fs.readFileSync(source, 'utf8').split('\n');
      const base = await outcome(source);
      expect(base.turns).toBeGreaterThan(0);
      const file = path.join(dir, fixture);
      let runs = 0;
      for (let i = 1; i < lines.length; i++) {
        let record: Json;
        try {
          record = JSON.parse(lines[i]!) as Json;
        } catch {
          continue; // a blank line, or the fixture's half-written last line
        }
        const [mutated, n] = withLoneSurrogates(record);
        if (n === 0) continue;
        const text = JSON.stringify(mutated);
        expect(text).toMatch(/\\ud83d/);
        fs.writeFileSync(file, [...lines.slice(0, i), text, ...lines.slice(i + 1)].join('\n'));
        const got = await outcome(file);
        const label = `${fixture} line ${i + 1}`;
        expect(got.errors, label).toEqual(base.errors);
        expect(got.turns, label).toBe(base.turns);
        expect(got.skipped[COUNTED], label).toBe(1);
        runs++;
      }
      expect(runs).toBeGreaterThan(0);
    }, 120_000);
  }

  // pretty-printed documents, read as they stream: each element (a message, a step, an event) parsed alone
  const documents: [string, (doc: Json) => Json[]][] = [
    ['gemini-session.json', (doc) => doc.messages as Json[]],
    ['swe-agent.traj', (doc) => doc.trajectory as Json[]],
    ['openhands-events.json', (doc) => doc as unknown as Json[]],
  ];
  for (const [fixture, elements] of documents) {
    it(`${fixture}: each element's texts cut in an emoji in turn (the document as the agent writes it): every turn kept`, async () => {
      const dir = tempDir('ch-lone-');
      const source = path.join(FIXTURES, fixture);
      const base = await outcome(source);
      expect(base.turns).toBeGreaterThan(0);
      const file = path.join(dir, fixture);
      const n = elements(JSON.parse(fs.readFileSync(source, 'utf8')) as Json).length;
      for (let i = 1; i < n; i++) {
        const doc = JSON.parse(fs.readFileSync(source, 'utf8')) as Json;
        const list = elements(doc);
        const [mutated, k] = withLoneSurrogates(list[i]);
        if (k === 0) continue;
        list[i] = mutated as Json;
        const text = JSON.stringify(doc, null, 2);
        expect(text).toMatch(/\\ud83d/);
        fs.writeFileSync(file, text);
        const got = await outcome(file);
        const label = `${fixture} element ${i}`;
        expect(got.errors, label).toEqual(base.errors);
        expect(got.turns, label).toBe(base.turns);
        expect(got.skipped[COUNTED], label).toBeGreaterThanOrEqual(1);
      }
    }, 120_000);
  }

  it('an OpenHands conversation folder (check <folder>): each event file cut in an emoji in turn, every turn kept', async () => {
    const source = path.join(FIXTURES, 'openhands-conversation', '7d1e9f20a3b44c5d8e6f7a8b9c0d1e2f');
    const base = await outcome(source);
    expect(base.turns).toBeGreaterThan(0);
    const names = fs.readdirSync(path.join(source, 'events')).sort();
    let runs = 0;
    for (const name of names.slice(1)) {
      const [mutated, k] = withLoneSurrogates(JSON.parse(fs.readFileSync(path.join(source, 'events', name), 'utf8')));
      if (k === 0) continue;
      const dir = path.join(tempDir('ch-lone-'), path.basename(source));
      fs.cpSync(source, dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'events', name), JSON.stringify(mutated));
      const got = await outcome(dir);
      expect(got.errors, name).toEqual(base.errors);
      expect(got.turns, name).toBe(base.turns);
      expect(got.skipped[COUNTED], name).toBe(1);
      runs++;
    }
    expect(runs).toBeGreaterThan(3);
  }, 120_000);

  it('Claude Code: the text reads U+FFFD where the half was, in the span and every later snapshot; a key is left as it is', () => {
    const T = '2026-11-30T10:00:00.000Z';
    const rec = (o: Json): string => JSON.stringify({ sessionId: 's', timestamp: T, ...o });
    const text = [
      rec({ type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'run it' } }),
      rec({
        type: 'assistant',
        uuid: 'a1',
        parentUuid: 'u1',
        requestId: 'r1',
        message: { id: 'm1', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }] },
      }),
      rec({ type: 'user', uuid: 'u2', parentUuid: 'a1', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] } }),
      rec({ type: 'content-replacement', replacements: [{ kind: 'tool-result', toolUseId: 't1', replacement: 'short \ud83d' }], '\udc00': 1 }),
      rec({
        type: 'assistant',
        uuid: 'a2',
        parentUuid: 'u2',
        requestId: 'r2',
        message: { id: 'm2', role: 'assistant', content: [{ type: 'text', text: 'a' }] },
      }),
      rec({ type: 'user', uuid: 'u3', parentUuid: 'a2', message: { role: 'user', content: 'more' } }),
      rec({
        type: 'assistant',
        uuid: 'a3',
        parentUuid: 'u3',
        requestId: 'r3',
        message: { id: 'm3', role: 'assistant', content: [{ type: 'text', text: 'b' }] },
      }),
    ].join('\n');
    expect(text).toContain('\\ud83d');
    const r = convertText(text);
    expect(r.errors).toEqual([]);
    expect(r.snapshots.map((s) => s.spans.find((x) => x.span_id === 'u2#0')?.text)).toEqual([undefined, 'short \ufffd', 'short \ufffd']);
    expect(r.summary.skipped).toEqual({ [COUNTED]: 1 });
  });
});
