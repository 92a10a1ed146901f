// A hostile file must not make an adapter give two spans of one snapshot the same span_id:
// the engine refuses such a snapshot (src/core/validate.ts), and since the context carries both
// spans on, every later turn too, so one crafted record disabled the analysis of the whole
// file. Each case below is a file whose ids are written to equal another span's id (a derived
// id, a fixed one, an earlier record's); every value the adapter hands on must validate, and the
// honest records around it must still be read. docs/adapters.md names each adapter's rule.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkTranscript } from '../../src/cli/check.ts';
import type { Snapshot } from '../../src/core/wire.ts';
import { validateMessage } from '../../src/core/validate.ts';
import { convertText } from '../../src/ingest/adapters/convert.testing.ts';
import { tempDir } from '../relay/helpers.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/adapters');

/** The file converted: no input error, every value valid, every snapshot's ids unique. */
function converted(text: string): Snapshot[] {
  const r = convertText(text);
  expect(r.errors).toEqual([]);
  for (const s of r.snapshots) {
    const ids = s.spans.map((x) => x.span_id);
    expect(new Set(ids).size, `turn ${s.turn}: ${ids.join(' ')}`).toBe(ids.length);
  }
  for (const v of r.values) {
    const checked = validateMessage(v);
    expect(checked.ok ? '' : checked.error).toBe('');
  }
  return r.snapshots;
}

const texts = (s: Snapshot): string[] => s.spans.map((x) => x.text);

describe('Gemini CLI: a message id written as another span id', () => {
  const meta = JSON.stringify({ sessionId: 'ids', projectHash: 'p', startTime: '2026-12-01T10:00:00Z', lastUpdated: '2026-12-01T10:00:00Z' });
  const user = (id: string, text: string): Record<string, unknown> => ({ id, timestamp: '2026-12-01T10:00:01Z', type: 'user', content: [{ text }] });
  const gemini = (id: string, input: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    id,
    timestamp: '2026-12-01T10:00:02Z',
    type: 'gemini',
    content: `answer ${id}`,
    tokens: { input, output: 5, cached: 0, total: input + 5 },
    model: 'gemini-2.5-pro',
    ...extra,
  });
  const thoughtsAndCall = {
    thoughts: [{ subject: 'Plan', description: 'read it', timestamp: '2026-12-01T10:00:02Z' }],
    toolCalls: [
      {
        id: 'c1',
        name: 'read_file',
        args: { file_path: '/a.ts' },
        result: [{ functionResponse: { id: 'c1', name: 'read_file', response: { output: 'x' } } }],
        status: 'success',
      },
    ],
  };
  // an id that equals a derived id of a2 (#thoughts, #call0, #result0), the placeholder's, and one with the empty id's
  const hostile = ['a2#thoughts', 'a2#call0', 'a2#result0', 'system', '#thoughts'];
  const records = [
    user('u1', 'first prompt'),
    gemini('a2', 50, thoughtsAndCall),
    ...hostile.map((id) => user(id, `evil ${id}`)),
    gemini('', 60, thoughtsAndCall),
    user('u3', 'second prompt'),
    gemini('a4', 100),
    user('u5', 'third prompt'),
    gemini('a6', 120),
  ];

  it('in the JSONL recording: every turn valid, every message read', () => {
    const turns = converted([meta, ...records.map((r) => JSON.stringify(r))].join('\n') + '\n');
    expect(turns).toHaveLength(4);
    expect(texts(turns[3]!)).toEqual(expect.arrayContaining(['first prompt', ...hostile.map((id) => `evil ${id}`), 'second prompt', 'third prompt']));
    // a real id keeps its span ids
    expect(turns[3]!.spans.map((s) => s.span_id)).toEqual(
      expect.arrayContaining(['system', 'u1', 'a2', 'a2#thoughts', 'a2#call0', 'a2#result0', 'u3', 'a4', 'u5']),
    );
  });

  it('in the legacy document', () => {
    const doc = JSON.stringify(
      { sessionId: 'ids', projectHash: 'p', startTime: '2026-12-01T10:00:00Z', lastUpdated: '2026-12-01T10:00:00Z', messages: records },
      null,
      2,
    );
    expect(converted(doc)).toHaveLength(4);
  });

  it('in a $set checkpoint, and a $rewindTo names the hostile message by the id the file gave it', () => {
    const lines = [meta, JSON.stringify(user('u1', 'first prompt')), JSON.stringify(gemini('a2', 50, thoughtsAndCall))];
    lines.push(
      JSON.stringify({
        $set: { messages: [user('u1', 'first prompt'), gemini('a2', 50, thoughtsAndCall), user('system', 'evil'), user('a2#thoughts', 'evil too')] },
      }),
    );
    lines.push(JSON.stringify(gemini('a4', 100)));
    lines.push(JSON.stringify({ $rewindTo: 'a2#thoughts' }));
    lines.push(JSON.stringify(user('u5', 'third prompt')), JSON.stringify(gemini('a6', 120)));
    const turns = converted(lines.join('\n') + '\n');
    expect(turns).toHaveLength(3);
    expect(texts(turns[2]!)).toContain('evil');
    expect(texts(turns[2]!)).not.toContain('evil too');
    expect(turns[2]!.pruned).toHaveLength(2); // the rewound message and a4's text
  });
});

/** The records of a JSONL fixture (its cut last line, if any, left out). */
function records(name: string): Record<string, unknown>[] {
  return fs
    .readFileSync(path.join(FIXTURES, name), 'utf8')
    .split('\n')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

/** `check` of the records written as one JSON array on one line, and as JSON Lines: the input errors and turns of each. */
async function oneLineAndJsonl(records: readonly unknown[]): Promise<{ errors: string[]; turns: number }[]> {
  const dir = tempDir('ch-span-ids-');
  try {
    const out = [];
    for (const [name, text] of [
      ['one-line.json', JSON.stringify(records)],
      ['lines.jsonl', records.map((r) => JSON.stringify(r)).join('\n') + '\n'],
    ] as const) {
      const file = path.join(dir, name);
      fs.writeFileSync(file, text);
      const { report } = await checkTranscript(file, { userThresholds: {}, threads: 1 });
      out.push({ errors: report.input_errors.map((e) => e.message), turns: report.sessions.reduce((n, s) => n + s.turns, 0) });
    }
    return out;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('a JSON array written on one line: every element is numbered line 1 (src/ingest/jsonArray.ts)', () => {
  // records without an id of their own take their line's id; with one line for all, they all took `line1`
  it.each(['codex-rollout.jsonl', 'codex-first-format.jsonl', 'codex-encrypted-compaction.jsonl'])(
    'Codex %s: every turn read as its JSONL file is',
    async (name) => {
      const [oneLine, jsonl] = await oneLineAndJsonl(records(name));
      expect(oneLine!.errors).toEqual([]);
      expect(oneLine!.turns).toBe(jsonl!.turns);
      expect(jsonl!.turns).toBeGreaterThan(1);
    },
  );

  it("Claude Code records without a uuid, and one whose uuid reads as a second record's line id", async () => {
    const plain = records('claude-code.jsonl').map(({ uuid: _uuid, ...rest }) => rest);
    // the third record claims `line1.2`, the id the second record on line 1 takes
    const hostile = plain.map((r, i) => (i === 2 ? { ...r, uuid: 'line1.2' } : r));
    for (const rs of [plain, hostile]) {
      const [oneLine, jsonl] = await oneLineAndJsonl(rs);
      expect(oneLine!.errors).toEqual([]);
      expect(oneLine!.turns).toBe(jsonl!.turns);
      expect(jsonl!.turns).toBeGreaterThan(1);
    }
  });
});

describe('OpenHands: an event id written as another span id, or read twice', () => {
  const lines = (events: readonly unknown[]): string => events.map((e) => JSON.stringify(e)).join('\n') + '\n';
  const withId = (id: string | number | undefined): Record<string, unknown> => (id === undefined ? {} : { id });

  describe('V1 (the SDK events)', () => {
    const system = (id?: string) => ({
      ...withId(id),
      source: 'agent',
      kind: 'SystemPromptEvent',
      system_prompt: { type: 'text', text: 'You are OpenHands' },
      tools: [{ name: 'terminal', description: 'run' }],
    });
    const user = (id: string | undefined, text: string) => ({
      ...withId(id),
      source: 'user',
      kind: 'MessageEvent',
      llm_message: { role: 'user', content: [{ type: 'text', text }] },
    });
    const action = (id: string | undefined, response: string) => ({
      ...withId(id),
      source: 'agent',
      kind: 'ActionEvent',
      thought: [{ type: 'text', text: `thinking ${String(id)}` }],
      reasoning_content: 'reasons',
      action: { kind: 'TerminalAction', command: 'ls' },
      tool_name: 'terminal',
      tool_call_id: `call_${response}`,
      tool_call: { id: `call_${response}`, name: 'terminal', arguments: '{"command": "ls"}' },
      llm_response_id: response,
    });
    const observation = (id: string, response: string) => ({
      id,
      source: 'environment',
      kind: 'ObservationEvent',
      tool_name: 'terminal',
      tool_call_id: `call_${response}`,
      observation: { content: [{ type: 'text', text: `out ${id}` }] },
    });
    const condensation = (id: string, forgotten: string[]) => ({
      id,
      source: 'environment',
      kind: 'Condensation',
      forgotten_event_ids: forgotten,
      summary: `summary ${id}`,
      summary_offset: 1,
    });
    const tail = [action('x1', 'r1'), observation('x2', 'r1'), action('x3', 'r2'), observation('x4', 'r2'), action('x5', 'r3')];

    it('an id equal to a derived id (#tools, #thought, #reasoning) or to a line id keeps its event, with ids of its own', () => {
      const turns = converted(
        lines([
          system('s'),
          user(undefined, 'first prompt'),
          user('s#tools', 'evil 1'),
          user('line2', 'evil 2'),
          action('a', 'r0'),
          user('a#thought', 'evil 3'),
          user('a#reasoning', 'evil 4'),
          ...tail,
        ]),
      );
      expect(turns).toHaveLength(4);
      expect(texts(turns[3]!)).toEqual(expect.arrayContaining(['first prompt', 'evil 1', 'evil 2', 'evil 3', 'evil 4']));
      expect(turns[3]!.spans.map((s) => s.span_id)).toEqual(expect.arrayContaining(['s', 's#tools', 'line2', 'a', 'a#thought', 'a#reasoning', 'x1']));
    });

    it('an id read twice, a second condensation of one id, and an event with a summary id are skipped and counted', () => {
      const events = [
        system('s'),
        user('u', 'first prompt'),
        user('u', 'again'),
        action('a', 'r0'),
        observation('b', 'r0'),
        condensation('c', ['a']),
        user('c-summary', 'evil'),
        condensation('c', ['b']),
      ];
      const turns = converted(lines([...events, ...tail]));
      expect(texts(turns.at(-1)!)).toContain('summary c');
      expect(texts(turns.at(-1)!)).not.toContain('again');
      expect(texts(turns.at(-1)!)).not.toContain('evil');
      expect(convertText(lines([...events, ...tail])).summary.skipped).toMatchObject({ 'repeated event': 3 });
      // an event that took the id first: the condensation forgets, and its summary is what is skipped
      const first = converted(
        lines([
          system('s'),
          user('u', 'first prompt'),
          action('a', 'r0'),
          observation('b', 'r0'),
          user('c-summary', 'there first'),
          condensation('c', ['a', 'b']),
          ...tail,
        ]),
      );
      expect(texts(first.at(-1)!)).toContain('there first');
      expect(texts(first.at(-1)!)).not.toContain('summary c');
    });

    it('events without ids in a JSON array written on one line', async () => {
      const events = [
        system(),
        user(undefined, 'first prompt'),
        user(undefined, 'second prompt'),
        action(undefined, 'r1'),
        action(undefined, 'r2'),
        action(undefined, 'r3'),
      ];
      const [oneLine, jsonl] = await oneLineAndJsonl(events);
      expect(oneLine).toEqual({ errors: [], turns: 3 });
      expect(jsonl).toEqual({ errors: [], turns: 3 });
    });
  });

  describe('V0 (the app events)', () => {
    const system = (id?: number) => ({
      ...withId(id),
      timestamp: '2025-11-01T10:00:00',
      source: 'agent',
      action: 'system',
      args: { content: 'You are OpenHands', tools: [{ function: { name: 'execute_bash', description: 'run' } }] },
    });
    const user = (id: string | number | undefined, text: string) => ({
      ...withId(id),
      timestamp: '2025-11-01T10:00:00',
      source: 'user',
      action: 'message',
      args: { content: text },
    });
    const run = (id: number | undefined, response: string) => ({
      ...withId(id),
      timestamp: '2025-11-01T10:00:00',
      source: 'agent',
      action: 'run',
      args: { command: 'ls', thought: `thinking ${String(id)}` },
      tool_call_metadata: {
        function_name: 'execute_bash',
        tool_call_id: `call_${response}`,
        model_response: { id: response, model: 'gpt-4o', choices: [], usage: { prompt_tokens: 900 } },
        total_calls_in_response: 1,
      },
    });
    const observation = (id: number, cause: number) => ({ id, source: 'agent', observation: 'run', content: `out ${id}`, cause, extras: {} });
    const condensation = (id: number, forgotten: number[]) => ({
      id,
      source: 'agent',
      action: 'condensation',
      args: { forgotten_event_ids: forgotten, summary: `summary ${id}`, summary_offset: 1 },
    });
    const tail = [run(10, 'r1'), observation(11, 10), run(12, 'r2'), observation(13, 12), run(14, 'r3')];

    it('a string id equal to a derived id (#tools, #thought) or to a line id keeps its event, with ids of its own', () => {
      const turns = converted(
        lines([
          system(0),
          user(undefined, 'first prompt'),
          user('0#tools', 'evil 1'),
          user('line2', 'evil 2'),
          run(3, 'r0'),
          user('3#thought', 'evil 3'),
          ...tail,
        ]),
      );
      expect(turns).toHaveLength(4);
      expect(texts(turns[3]!)).toEqual(expect.arrayContaining(['first prompt', 'evil 1', 'evil 2', 'evil 3']));
      expect(turns[3]!.spans.map((s) => s.span_id)).toEqual(expect.arrayContaining(['0', '0#tools', 'line2', '3', '3#thought', '10']));
    });

    it('an id read twice (also as a string) and an event with a summary id are skipped and counted', () => {
      const events = [
        system(0),
        user(1, 'first prompt'),
        user(1, 'again'),
        user('1', 'again as a string'),
        run(2, 'r0'),
        observation(3, 2),
        condensation(4, [2, 3]),
        user('4-summary', 'evil'),
        ...tail,
      ];
      const turns = converted(lines(events));
      expect(texts(turns.at(-1)!)).toContain('summary 4');
      expect(texts(turns.at(-1)!).join(' ')).not.toMatch(/again|evil/);
      expect(convertText(lines(events)).summary.skipped).toMatchObject({ 'repeated event': 3 });
    });

    it("an evaluation row whose instance_id reads as a rerun's session id (<id>#2)", async () => {
      const row = (instance: string) => ({
        instance_id: instance,
        instruction: 'fix it',
        history: [system(0), user(1, 'first prompt'), run(2, 'r1'), run(3, 'r2')],
        metrics: {},
      });
      const [, jsonl] = await oneLineAndJsonl([row('repo__1#2'), row('repo__1'), row('repo__1')]);
      expect(jsonl).toEqual({ errors: [], turns: 6 });
    });

    it("an evaluation row's events without ids (one line holds the whole row)", () => {
      const row = {
        instance_id: 'repo__1',
        instruction: 'fix it',
        history: [system(), user(undefined, 'first prompt'), user(undefined, 'second prompt'), run(undefined, 'r1'), run(undefined, 'r2')],
        metrics: {},
      };
      expect(converted(JSON.stringify(row) + '\n')).toHaveLength(2);
    });
  });
});
