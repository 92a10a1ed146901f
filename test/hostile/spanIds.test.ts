// A hostile file must not make an adapter give two spans of one snapshot the same span_id:
// the engine refuses such a snapshot (src/core/validate.ts), and since the context carries both
// spans on, every later turn too, so one crafted record disabled the analysis of the whole
// file. Each case below is a file whose ids are written to equal another span's id (a derived
// id, a fixed one, an earlier record's); every value the adapter hands on must validate, and the
// honest records around it must still be read. docs/adapters.md names each adapter's rule.
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/core/wire.ts';
import { validateMessage } from '../../src/core/validate.ts';
import { convertText } from '../../src/ingest/adapters/convert.testing.ts';

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
