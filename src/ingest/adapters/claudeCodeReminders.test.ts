// docs/adapters.md "Claude Code" attachments: the todo and task reminders Claude Code sends the
// model, and the away summary it shows the user only. The records are in the shapes real
// transcripts hold (`{"type":"todo_reminder","content":[],"itemCount":0}` of 2.1.121,
// `task_reminder` of 2.1.126; items and `statusKeeper` as @anthropic-ai/claude-code 2.1.332
// makes them, a 1.x item's `priority` as 1.0.56 does); texts invented.
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../../core/wire.ts';
import { convertText } from './convert.testing.ts';

const base = (uuid: string, parentUuid: string | null, second: number, version: string) => ({
  uuid,
  parentUuid,
  sessionId: 'rm',
  timestamp: new Date(Date.UTC(2026, 4, 2, 9, 0, second)).toISOString(),
  isSidechain: false,
  cwd: '/repo',
  version,
});
const user = (uuid: string, parent: string | null, s: number, text: string, v = '2.1.126') =>
  JSON.stringify({ type: 'user', ...base(uuid, parent, s, v), message: { role: 'user', content: text } });
const assistant = (uuid: string, parent: string, s: number, text: string, v = '2.1.126') =>
  JSON.stringify({
    type: 'assistant',
    ...base(uuid, parent, s, v),
    requestId: `req_${uuid}`,
    message: {
      id: `msg_${uuid}`,
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text }],
      usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 5 },
    },
  });
const attachment = (uuid: string, parent: string, s: number, a: object, v = '2.1.126') =>
  JSON.stringify({ type: 'attachment', ...base(uuid, parent, s, v), attachment: a });

const lines = [
  user('u1', null, 1, 'Port the invoice export to the new API.'),
  assistant('a1', 'u1', 2, 'Starting with the export module.'),
  attachment('r1', 'a1', 3, { type: 'todo_reminder', content: [], itemCount: 0 }, '2.1.121'),
  attachment('r2', 'r1', 4, {
    type: 'todo_reminder',
    content: [
      { content: 'Map the old fields', status: 'completed', activeForm: 'Mapping the old fields' },
      { content: 'Call the new endpoint', status: 'in_progress', activeForm: 'Calling the new endpoint' },
    ],
    itemCount: 2,
  }),
  attachment('r3', 'r2', 5, { type: 'task_reminder', content: [], itemCount: 0 }),
  attachment('r4', 'r3', 6, { type: 'task_reminder', content: [{ id: '3', subject: 'Retry on 429', status: 'pending' }], itemCount: 1, statusKeeper: 'app' }),
  JSON.stringify({
    type: 'system',
    subtype: 'away_summary',
    ...base('s1', 'r4', 7, '2.1.126'),
    content: 'While you were away: the export module builds.',
    isMeta: false,
  }),
  assistant('a2', 's1', 8, 'The endpoint call is next.'),
];

const spans = (s: Snapshot) => s.spans.map((x) => [x.span_id, x.role, x.kind, x.label]);

describe('Claude Code reminders and the away summary (docs/adapters.md attachments)', () => {
  const out = convertText(lines.join('\n'));

  it('a todo or task reminder is meta context of the next call; the away summary is counted by name, never context', () => {
    expect(out.errors).toEqual([]);
    expect(out.summary.skipped).toEqual({ 'system:away_summary (a recap shown to the user, not sent to the model)': 1 });
    expect(spans(out.snapshots.at(-1)!).slice(3)).toEqual([
      ['r1#0', 'meta', 'attachment', 'todo reminder: no items'],
      ['r2#0', 'meta', 'attachment', 'todo reminder: 2 items'],
      ['r3#0', 'meta', 'attachment', 'task reminder: no tasks'],
      ['r4#0', 'meta', 'attachment', 'task reminder: 1 task'],
    ]);
  });

  it('the text is what Claude Code words for it: the nudge, then the list as it numbers it', () => {
    const text = (id: string) => out.snapshots.at(-1)!.spans.find((x) => x.span_id === id)!.text;
    expect(text('r1#0')).toMatch(/^The TodoWrite tool hasn't been used recently\. .* Also consider cleaning up the todo list .*ignore if not applicable\.\n$/);
    expect(text('r2#0')).toMatch(
      /applicable\.\n\n\nHere are the existing contents of your todo list:\n\n\[1\. \[completed\] Map the old fields\n2\. \[in_progress\] Call the new endpoint\]$/,
    );
    expect(text('r3#0')).toMatch(/^The task tools haven't been used recently\. .*TaskCreate.*TaskUpdate/);
    expect(text('r4#0')).toMatch(
      /^If new work would benefit from tracking progress, add it with TaskCreate\. .*\n\n\nHere are the existing tasks:\n\n#3\. \[pending\] Retry on 429$/,
    );
  });

  it('a 1.x todo reminder has the shorter nudge and each item’s priority', () => {
    const v1 = [
      user('u1', null, 1, 'Fix the flaky date test.', '1.0.56'),
      attachment(
        'r1',
        'u1',
        2,
        { type: 'todo_reminder', content: [{ id: '1', content: 'Pin the time zone', status: 'pending', priority: 'high' }], itemCount: 1 },
        '1.0.56',
      ),
      assistant('a1', 'r1', 3, 'Pinning it.', '1.0.56'),
    ];
    const text = convertText(v1.join('\n')).snapshots[0]!.spans.find((x) => x.span_id === 'r1#0')!.text;
    expect(text).not.toMatch(/cleaning up/);
    expect(text).toMatch(/todo list:\n\n\[1\. \[pending\] Pin the time zone \(high\)\]$/);
  });

  it('a reminder without a content list is counted, not guessed', () => {
    const bad = [user('u1', null, 1, 'Hi.'), attachment('r1', 'u1', 2, { type: 'task_reminder', itemCount: 0 }), assistant('a1', 'r1', 3, 'Hello.')];
    expect(convertText(bad.join('\n')).summary.skipped).toEqual({ 'attachment:task_reminder (no content)': 1 });
  });
});
