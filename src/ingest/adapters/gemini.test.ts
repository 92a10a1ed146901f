// docs/adapters.md "Gemini CLI": each mapping rule, on fixtures written from gemini-cli's
// chatRecordingService.ts / chatRecordingTypes.ts (test/fixtures/adapters/README.md):
// gemini-session.json (the legacy pretty-printed document: user, gemini with thoughts,
// tokens, tool calls and results, info, error, a custom slash command) and
// gemini-session.jsonl (the JSONL file: a metadata line, messages written again as they
// change, tool responses repeated as user messages, `$set` updates, a compression
// checkpoint, `$rewindTo`).
// eslint-disable-next-line no-restricted-imports -- the fixtures are read from disk
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SessionHeader, Snapshot } from '../../core/wire.ts';
import { detectFormat } from './detect.ts';
import { GEMINI_SYSTEM_SPAN_ID } from './gemini.ts';
import { MAX_MESSAGE_PARTS } from './geminiParts.ts';
import { TranscriptPipeline, type AdapterSummary, type PipelineOptions } from './pipeline.ts';

const read = (name: string): string => fs.readFileSync(new URL(`../../../test/fixtures/adapters/${name}`, import.meta.url), 'utf8');

interface Converted {
  header: SessionHeader;
  snapshots: Snapshot[];
  errors: { line: number; message: string }[];
  summary: AdapterSummary;
}

/** The pipeline fed line by line, as the CLI's and the Worker's splitters feed it. */
export function convertLines(text: string, options: PipelineOptions = {}): Converted {
  const values: Record<string, unknown>[] = [];
  const errors: Converted['errors'] = [];
  const pipeline = new TranscriptPipeline(
    {
      text: () => {
        throw new Error('a Gemini CLI session must not reach the engine as raw lines');
      },
      value: (value) => values.push(value as Record<string, unknown>),
      error: (line, message) => errors.push({ line, message }),
    },
    options,
  );
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  lines.forEach((l, i) => pipeline.line(l, i + 1));
  pipeline.end();
  return {
    header: values.find((v) => v.type === 'session') as SessionHeader,
    snapshots: values.filter((v) => v.type === 'snapshot') as Snapshot[],
    errors,
    summary: pipeline.summary(),
  };
}

const legacy = read('gemini-session.json');
const jsonl = read('gemini-session.jsonl');
const legacyDoc = JSON.parse(legacy) as { messages: { type: string; tokens?: { input: number }; model?: string }[] };

describe('telling a Gemini CLI session', () => {
  it('knows the metadata line and the one-line document by sessionId and projectHash without a type', () => {
    expect(detectFormat(JSON.parse(jsonl.split('\n')[0]!))).toBe('gemini');
    expect(detectFormat(legacyDoc)).toBe('gemini');
    // a Claude Code record has a sessionId too, and a type
    expect(detectFormat({ type: 'user', sessionId: 's', projectHash: 'p', uuid: 'u' })).toBe('claude-code');
    expect(detectFormat({ sessionId: 's' })).toBe('wire');
  });

  it("Gemini CLI's prompt log (logs.json) is no format's transcript, though its entries carry Claude Code's type and sessionId", () => {
    // packages/core/src/core/logger.ts LogEntry, as the logger writes each prompt typed
    const entry = {
      sessionId: '0cbe84f9-f6fa-42ab-a3a1-86cbe3cab45c',
      messageId: 0,
      type: 'user',
      message: '/model set',
      timestamp: '2026-03-31T01:15:57.576Z',
    };
    expect(detectFormat(entry)).toBe('wire');
    // Claude Code's own messageId (a file-history-snapshot's) is a string, its message an object
    expect(detectFormat({ type: 'file-history-snapshot', messageId: 'm1', snapshot: {} })).toBe('claude-code');
    expect(detectFormat({ ...entry, message: { role: 'user', content: 'hi' } })).toBe('claude-code');
    expect(detectFormat({ ...entry, messageId: '0' })).toBe('claude-code');
  });

  it('streams the pretty-printed document (its first line a lone brace) and reads it as the same document on one line', () => {
    const streamed = convertLines(legacy);
    const oneLine = convertLines(JSON.stringify(legacyDoc));
    expect(streamed.summary.format).toBe('gemini');
    expect(streamed.errors).toEqual([]);
    expect(oneLine.snapshots.map((s) => s.spans)).toEqual(streamed.snapshots.map((s) => s.spans));
  });
});

describe('the legacy document (gemini-session.json)', () => {
  const { header, snapshots, summary } = convertLines(legacy);

  it('names the session by its sessionId and its first prompt, source gemini', () => {
    expect(header).toMatchObject({ session_id: '5f1c2a9e-7b3d-4e21-9a0c-3d2b8e6f4a11', source: 'gemini', started_at: '2026-01-14T10:01:58.412Z' });
    expect(header.title).toBe('Fix the failing test in src/math.ts: add() returns…');
  });

  it('one turn per gemini message that reports tokens, tokens_total = tokens.input, model as written', () => {
    const calls = legacyDoc.messages.filter((m) => m.type === 'gemini' && m.tokens !== undefined);
    expect(snapshots.map((s) => s.spans.reduce((n, sp) => n + (sp.tokens ?? 0), 0))).toEqual(calls.map((m) => m.tokens!.input));
    expect(snapshots.map((s) => s.model)).toEqual(calls.map((m) => m.model));
    expect(snapshots.map((s) => s.turn)).toEqual([1, 2, 3, 4, 5]);
  });

  it('spans: the placeholder, prompts, thoughts, tool calls and results, answers, each labelled', () => {
    const last = snapshots[snapshots.length - 1]!;
    expect(last.spans.map((s) => [s.span_id, s.role, s.kind, s.label])).toEqual([
      [GEMINI_SYSTEM_SPAN_ID, 'system', 'placeholder', 'system prompt and tools (not in the session file)'],
      ['a1', 'user', 'text', 'Fix the failing test in src/math.ts: add() returns the…'],
      ['a2#thoughts', 'assistant', 'thinking', 'thinking'],
      ['a2#call0', 'assistant', 'tool_use', 'read_file /home/dev/calc/src/math.ts'],
      ['a2#result0', 'tool', 'tool_result', 'result of read_file /home/dev/calc/src/math.ts'],
      ['a3#call0', 'assistant', 'tool_use', 'replace /home/dev/calc/src/math.ts'],
      ['a3#result0', 'tool', 'tool_result', 'result of replace /home/dev/calc/src/math.ts'],
      ['a4', 'assistant', 'text', 'I fixed `add`: it subtracted instead of adding.'],
      ['a6', 'user', 'text', '/test run the math suite only'],
      ['a7#call0', 'assistant', 'tool_use', 'shell: npm test -- math'],
      ['a7#result0', 'tool', 'tool_result', 'result of shell: npm test -- math'],
    ]);
    expect(last.spans.find((s) => s.span_id === 'a2#result0')!.text).toContain('return a - b;');
    expect(last.spans.find((s) => s.span_id === 'a2#thoughts')!.text).toBe('Locating the bug: I should read src/math.ts first.');
    // only the first prompt is pinned; the placeholder never is (contract §8.1)
    expect(last.spans.filter((s) => s.pinned === true).map((s) => s.span_id)).toEqual(['a1']);
    // the custom command: the span is what the model read, the expanded prompt
    expect(last.spans.find((s) => s.span_id === 'a6')!.text).toMatch(/^Run the project's unit tests/);
  });

  it('a call sees the messages before the one it wrote, never its own', () => {
    expect(snapshots[0]!.spans.map((s) => s.span_id)).toEqual([GEMINI_SYSTEM_SPAN_ID, 'a1']);
  });

  it('info and error messages are the UI’s: counted, not mapped', () => {
    expect(summary.skipped).toEqual({ 'error (not sent to the model)': 1, 'info (not sent to the model)': 1 });
  });
});

describe('the JSONL session (gemini-session.jsonl)', () => {
  const { header, snapshots, errors, summary } = convertLines(jsonl);
  const byTurn = (t: number): Snapshot => snapshots.find((s) => s.turn === t)!;

  it('reads every record type without an input error', () => {
    expect(errors).toEqual([]);
    expect(summary).toEqual({ format: 'gemini', skipped: {} });
    expect(header.session_id).toBe('c0ffee12-3456-4789-abcd-ef0123456789');
    expect(snapshots).toHaveLength(6);
  });

  it('a message written again replaces its earlier version: the tool call and its result once', () => {
    const ids = byTurn(2).spans.map((s) => s.span_id);
    expect(ids.filter((i) => i.startsWith('g1#'))).toEqual(['g1#thoughts', 'g1#call0', 'g1#result0']);
  });

  it('a tool response repeated as a user message is not counted twice', () => {
    expect(byTurn(4).spans.some((s) => s.span_id.startsWith('u2') || s.span_id.startsWith('u3') || s.span_id.startsWith('u4'))).toBe(false);
  });

  it('the environment context is meta, labelled so', () => {
    expect(byTurn(1).spans[1]).toMatchObject({ span_id: 'env-5b2e', role: 'meta', label: 'environment context' });
  });

  it('a $set checkpoint with a new <state_snapshot> message is one compaction at the next call, with its audit', () => {
    const snap = byTurn(5);
    const c = snap.compaction as { kind: string; replaced: string[]; summary: string[]; items: { kind: string; text: string; status: string }[] };
    expect(c.kind).toBe('compact');
    expect(c.summary).toEqual(['s1']);
    expect(c.replaced).toEqual(['u1', 'g1#thoughts', 'g1#call0', 'g1#result0', 'g2#call0', 'g2#result0', 'g3#call0', 'g3#result0', 'g4']);
    expect(snap.pruned).toEqual(c.replaced);
    expect(snap.archived).toEqual(c.replaced);
    // the environment context keeps its stable id across the compression: not replaced
    expect(snap.spans.map((s) => s.span_id)).toEqual([GEMINI_SYSTEM_SPAN_ID, 'env-5b2e', 's1', 's2', 'u5']);
    expect(snap.spans.find((s) => s.span_id === 's1')).toMatchObject({ role: 'summary', label: 'compaction summary' });
    expect(c.items.map((i) => [i.kind, i.text, i.status])).toEqual([
      ['user_prompt', 'Add a discount field to the Cart model in /srv/shop/cart.py and keep the tests green', 'paraphrased'],
      ['file', '/srv/shop/cart.py', 'kept'],
    ]);
  });

  it('a read_file of an audited path after the compaction is its refetch', () => {
    expect(byTurn(6).refetched).toEqual([{ compaction_turn: 5, kind: 'file', text: '/srv/shop/cart.py', turn: 5 }]);
  });

  it('$rewindTo drops the message and what follows: pruned, archived, the first prompt still pinned', () => {
    const snap = byTurn(6);
    expect(snap.pruned).toEqual(['u6']);
    expect(snap.spans.some((s) => s.span_id === 'u6')).toBe(false);
    expect(snap.spans.filter((s) => s.pinned === true)).toEqual([]);
  });

  it('a custom slash command: the user_prompt item is its arguments; a command without any is no prompt', () => {
    const text = [
      JSON.stringify({ sessionId: 's', projectHash: 'p', startTime: 't', lastUpdated: 't' }),
      JSON.stringify({
        id: 'p1',
        type: 'user',
        content: [{ text: 'Expanded review prompt for: the parser' }],
        displayContent: [{ text: '/review the parser' }],
      }),
      JSON.stringify({ id: 'p2', type: 'user', content: [{ text: 'Expanded status prompt' }], displayContent: [{ text: '/status' }] }),
      JSON.stringify({ id: 'g', type: 'gemini', content: 'ok', tokens: { input: 900, output: 1, cached: 0, total: 901 } }),
      JSON.stringify({ $set: { messages: [{ id: 's9', type: 'user', content: [{ text: '<state_snapshot>nothing</state_snapshot>' }] }] } }),
      JSON.stringify({ id: 'g2', type: 'gemini', content: 'ok', tokens: { input: 300, output: 1, cached: 0, total: 301 } }),
    ].join('\n');
    const c = convertLines(text).snapshots[1]!.compaction as { items: { kind: string; text: string }[] };
    expect(c.items.filter((i) => i.kind === 'user_prompt').map((i) => i.text)).toEqual(['the parser']);
  });

  it('a checkpoint without a summary (a rollback) prunes what it leaves out, no compaction', () => {
    const lines = jsonl.split('\n').slice(0, 8);
    lines.push(JSON.stringify({ $set: { messages: [{ id: 'env-5b2e', type: 'user', content: [{ text: 'x' }] }] } }));
    lines.push(JSON.stringify({ id: 'gz', type: 'gemini', content: 'hi', tokens: { input: 500, output: 1, cached: 0, total: 501 } }));
    const last = convertLines(lines.join('\n')).snapshots.at(-1)!;
    expect(last.compaction).toBeUndefined();
    expect(last.pruned).toEqual(['u1', 'g1#thoughts', 'g1#call0', 'g1#result0']);
  });
});

describe('a prompt cancelled before any answer (geminiChat.ts rolls the history back: a $set.messages checkpoint)', () => {
  const at = (s: number): string => `2026-12-01T09:00:${String(s).padStart(2, '0')}.000Z`;
  const env = {
    id: 'env-1',
    timestamp: at(1),
    type: 'user',
    content: [{ text: '<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n</session_context>' }],
  };
  const lines = [
    { sessionId: 'cancel-first', projectHash: 'p', startTime: at(0), lastUpdated: at(0), kind: 'main' },
    env,
    { id: 'u1', timestamp: at(2), type: 'user', content: [{ text: 'Drop the staging tables.' }] },
    { $set: { messages: [env], lastUpdated: at(3) } },
    { id: 'i1', timestamp: at(3), type: 'info', content: 'Request cancelled.' },
    { id: 'u2', timestamp: at(4), type: 'user', content: [{ text: 'List the staging tables instead.' }] },
    { id: 'g1', timestamp: at(5), type: 'gemini', content: 'orders_tmp, users_tmp.', tokens: { input: 9000, output: 5, cached: 0, total: 9005 } },
  ];
  const out = convertLines(lines.map((l) => JSON.stringify(l)).join('\n'));

  it('the cancelled first prompt leaves the title and the pin to the next one, as a rewind does', () => {
    expect(out.header.title).toBe('List the staging tables instead.');
    const snap = out.snapshots[0]!;
    expect(snap.pruned).toEqual(['u1']);
    expect(snap.spans.filter((s) => s.pinned === true).map((s) => s.span_id)).toEqual(['u2']);
  });
});

describe('audio or video that read_file returns (gemini-cli geminiChat.ts extractBinaryInjections)', () => {
  // Gemini CLI cannot send audio or video inside a function response: the tool response says so,
  // a synthetic model thought follows, and the media parts go to the model as the next user
  // turn, recorded as an `info` message. That message is context; a UI info line is not.
  const at = (s: number): string => `2026-11-30T08:00:${String(s).padStart(2, '0')}.000Z`;
  const lines = [
    { sessionId: 'b1n4-aud10', projectHash: 'f00d', startTime: at(0), lastUpdated: at(0), kind: 'main' },
    { id: 'u1', timestamp: at(1), type: 'user', content: [{ text: 'What is said in standup.mp3?' }] },
    {
      id: 'g1',
      timestamp: at(2),
      type: 'gemini',
      content: '',
      model: 'gemini-3-flash',
      tokens: { input: 4100, output: 20, cached: 0, total: 4120 },
      toolCalls: [{ id: 'rf1', name: 'read_file', args: { file_path: '/rec/standup.mp3' }, status: 'success', timestamp: at(2) }],
    },
    {
      id: 'u2',
      timestamp: at(3),
      type: 'user',
      content: [
        {
          functionResponse: {
            id: 'rf1',
            name: 'read_file',
            response: { output: 'Binary content (audio/mpeg) read successfully. Content will be injected for analysis in the next sequence.' },
          },
        },
      ],
    },
    { id: 'g2', timestamp: at(3), type: 'gemini', content: [{ text: 'Binary content received. Proceeding with analysis.', thought: true }] },
    { id: 'i1', timestamp: at(3), type: 'info', content: [{ inlineData: { mimeType: 'audio/mpeg', data: 'SUQzBAAAAAAA' } }] },
    { id: 'i2', timestamp: at(4), type: 'info', content: 'Request cancelled.' },
    {
      id: 'g3',
      timestamp: at(5),
      type: 'gemini',
      content: 'The team agrees to ship on Friday.',
      model: 'gemini-3-flash',
      tokens: { input: 6300, output: 12, cached: 0, total: 6312 },
    },
  ];
  const out = convertLines(lines.map((l) => JSON.stringify(l)).join('\n'));

  it('the info message holding the media parts is a span the next call saw; a UI info line is still skipped', () => {
    expect(out.errors).toEqual([]);
    expect(out.summary.skipped).toEqual({ 'info (not sent to the model)': 1 });
    const spans = out.snapshots[1]!.spans;
    const media = spans.find((s) => s.span_id === 'i1');
    expect(media).toMatchObject({ role: 'user', kind: 'text', text: '[audio/mpeg]', label: 'media read by a tool: audio/mpeg' });
    expect(media!.pinned).toBeUndefined();
    expect(spans.some((s) => s.span_id === 'i2')).toBe(false);
    // not the user's prompt: the audit has the typed one only
    expect(out.header.title).toBe('What is said in standup.mp3?');
  });
});

describe('a Gemini session file that is cut short or damaged', () => {
  it('a document cut mid-message keeps the turns before it and counts the cut', () => {
    const cut = legacy.slice(0, legacy.indexOf('"id": "a7"') + 20);
    const { snapshots, errors, summary } = convertLines(cut);
    expect(errors).toEqual([]);
    // a2, a3 and a4 report their calls; a7, cut, is not read
    expect(snapshots).toHaveLength(3);
    expect(summary.skipped['truncated last line']).toBe(1);
  });

  it('a message that is not JSON is one input error naming its line; the next ones are read', () => {
    const broken = legacy.replace('"id": "a4"', '"id": "a4" oops');
    const { snapshots, errors } = convertLines(broken);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.line).toBe(legacy.slice(0, legacy.indexOf('"id": "a4"')).split('\n').length - 1);
    expect(errors[0]!.message).toMatch(/^not valid JSON/);
    expect(snapshots).toHaveLength(4);
  });

  it('a message nested past the limit is one input error, not walked', () => {
    const deep = '['.repeat(200) + ']'.repeat(200);
    const text = legacy.replace('"thoughts": [],', `"thoughts": [], "extra": ${deep},`);
    const { errors, snapshots } = convertLines(text);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => /more than 64 levels/.test(e.message))).toBe(true);
    expect(snapshots.length).toBeGreaterThan(0);
  });

  it('--from gemini on a document that is not one says so once', () => {
    const { errors, snapshots } = convertLines('{\n  "trajectory": 1\n}', { from: 'gemini' });
    expect(snapshots).toEqual([]);
    expect(errors).toEqual([{ line: 1, message: 'not a Gemini CLI session: the file is not one JSON object with a "messages" array' }]);
  });

  it('a message over the part limit is one input error naming it and the limit; one at the limit is read, and the turns after it', () => {
    const meta = JSON.stringify({ sessionId: 's', projectHash: 'p', startTime: 't' });
    const calls = (n: number): unknown[] =>
      Array.from({ length: n }, (_, i) => ({ functionCall: { id: `c${i}`, name: 'read_file', args: { file_path: `/f${i}` } } }));
    const gemini = (id: string, input: number, content: unknown): string => JSON.stringify({ id, type: 'gemini', content, tokens: { input } });
    const at = convertLines(
      [meta, gemini('g1', 10, calls(MAX_MESSAGE_PARTS)), JSON.stringify({ id: 'u1', type: 'user', content: 'next' }), gemini('g2', 20, 'ok')].join('\n'),
    );
    expect(at.errors).toEqual([]);
    expect(at.snapshots[1]!.spans.filter((s) => s.span_id.startsWith('g1#p'))).toHaveLength(MAX_MESSAGE_PARTS);
    // content parts, tool calls and thoughts are counted together
    const over = {
      id: 'g1',
      type: 'gemini',
      content: calls(MAX_MESSAGE_PARTS - 1),
      toolCalls: [{ id: 'x', name: 'ls', args: {} }],
      thoughts: [{ subject: 'a' }],
      tokens: { input: 10 },
    };
    const refused = convertLines([meta, JSON.stringify(over), JSON.stringify({ id: 'u1', type: 'user', content: 'next' }), gemini('g2', 20, 'ok')].join('\n'));
    expect(refused.errors).toEqual([
      {
        line: 2,
        message: `the message "g1" holds ${MAX_MESSAGE_PARTS + 1} parts (content parts, tool calls and thoughts); a Gemini CLI message is read with at most ${MAX_MESSAGE_PARTS}: it was skipped, not read`,
      },
    ]);
    expect(refused.snapshots.map((s) => s.spans.map((x) => x.span_id))).toEqual([['system', 'u1']]);
    // a checkpoint holding one is refused whole: the history stands as it was
    const checkpoint = JSON.stringify({ $set: { messages: [{ id: 'u1', type: 'user', content: 'next' }, over] } });
    const set = convertLines([meta, JSON.stringify({ id: 'u1', type: 'user', content: 'next' }), checkpoint, gemini('g2', 20, 'ok')].join('\n'));
    expect(set.errors.map((e) => e.line)).toEqual([3]);
    expect(set.snapshots.map((s) => s.spans.map((x) => x.span_id))).toEqual([['system', 'u1']]);
  });
});
