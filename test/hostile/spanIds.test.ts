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
