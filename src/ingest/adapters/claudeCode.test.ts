// docs/adapters.md "Claude Code": each mapping rule, held on the synthetic fixture
// test/fixtures/adapters/claude-code.jsonl (every record type, a split call, a sidechain,
// a microcompaction, a compaction and a truncated last line).
// eslint-disable-next-line no-restricted-imports -- tests run on Node; the engine is handed its hash
import crypto from 'node:crypto';
// eslint-disable-next-line no-restricted-imports -- the fixture is read from disk
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../core/engine.ts';
import type { Snapshot } from '../../core/wire.ts';
import { CLEARED_TOOL_RESULT, SYSTEM_SPAN_ID } from './claudeCode.ts';
import { estimateTokens, fitTokens } from './tokens.ts';
import { detectFormat } from './detect.ts';
import { TranscriptPipeline, type AdapterSummary } from './pipeline.ts';

const FIXTURE = new URL('../../../test/fixtures/adapters/claude-code.jsonl', import.meta.url);
const sha256 = (t: string): string => crypto.createHash('sha256').update(t, 'utf8').digest('hex');

interface Converted {
  messages: { value: Record<string, unknown>; line: number }[];
  errors: { line: number; message: string }[];
  summary: AdapterSummary;
}

function convert(text: string): Converted {
  const out: Converted = { messages: [], errors: [], summary: { format: 'wire', skipped: {} } };
  const pipeline = new TranscriptPipeline({
    text: () => {
      throw new Error('a Claude Code transcript must not reach the engine as raw lines');
    },
    value: (value, line) => out.messages.push({ value: value as Record<string, unknown>, line }),
    error: (line, message) => out.errors.push({ line, message }),
  });
  const lines = text.split('\n');
  // like the line splitter: a final newline does not make one more line
  if (lines[lines.length - 1] === '') lines.pop();
  lines.forEach((l, i) => pipeline.line(l, i + 1));
  pipeline.end();
  out.summary = pipeline.summary();
  return out;
}

const fixtureText = fs.readFileSync(FIXTURE, 'utf8');
const records = fixtureText.split('\n').flatMap((l) => {
  try {
    return [JSON.parse(l) as Record<string, unknown>];
  } catch {
    return [];
  }
});
const fixture = convert(fixtureText);
const snapshots = fixture.messages.map((m) => m.value).filter((v): v is Snapshot => v.type === 'snapshot');
const ids = (s: Snapshot): string[] => s.spans.map((x) => x.span_id);
const spanOf = (s: Snapshot, id: string) => s.spans.find((x) => x.span_id === id);

describe('Claude Code adapter (docs/adapters.md)', () => {
  it('is recognised by content', () => {
    expect(detectFormat(records[0])).toBe('claude-code');
    expect(detectFormat(records[2])).toBe('claude-code');
    expect(detectFormat({ type: 'snapshot', session_id: 's', turn: 1, spans: [] })).toBe('wire');
    expect(fixture.summary.format).toBe('claude-code');
  });

  it('one session header, then a turn per distinct requestId of the main chain, numbered from 1', () => {
    expect(fixture.messages[0]!.value).toMatchObject({ type: 'session', session_id: 'cc-fixture' });
    expect(fixture.messages.filter((m) => m.value.type === 'session')).toHaveLength(1);
    expect(snapshots.map((s) => s.turn)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(snapshots.map((s) => s.request_id)).toEqual(['req_1', 'req_2', 'req_3', 'req_4', 'req_5', 'req_6']);
    // the sidechain's call (req_side) is not a turn, and its records are not context
    expect(snapshots.flatMap(ids).some((id) => id.startsWith('s1') || id.startsWith('s2'))).toBe(false);
  });

  it('counts every record it cannot map, by type; a truncated last line is not an input error', () => {
    expect(fixture.errors).toEqual([]);
    expect(fixture.summary.skipped).toEqual({
      summary: 1,
      'file-history-snapshot': 1,
      progress: 1,
      'user (sidechain)': 1,
      'assistant (sidechain)': 1,
      'assistant without requestId': 1,
      'system:turn_duration': 1,
      'weird-new-type': 1,
      'truncated last line': 1,
    });
  });

  it('a line that does not parse in the middle of the file is still an input error', () => {
    const lines = fixtureText.split('\n');
    lines.splice(4, 0, '{"type":"user", broken');
    const r = convert(lines.join('\n'));
    expect(r.errors.map((e) => e.line)).toEqual([5]);
    expect(r.summary.skipped['truncated last line']).toBe(1);
  });

  it('a turn holds what its call saw: the system placeholder, then the main chain before the call’s own output', () => {
    expect(ids(snapshots[0]!)).toEqual([SYSTEM_SPAN_ID, 'u1#0']);
    // turn 2: the split call req_1 (a1 thinking + a2 tool_use) and the tool result, not a3 (its own output)
    expect(ids(snapshots[1]!)).toEqual([SYSTEM_SPAN_ID, 'u1#0', 'a1#0', 'a2#0', 'u2#0']);
    expect(spanOf(snapshots[1]!, 'a1#0')).toMatchObject({ role: 'assistant', kind: 'thinking' });
    expect(spanOf(snapshots[1]!, 'a2#0')).toMatchObject({ role: 'assistant', kind: 'tool_use' });
    expect(spanOf(snapshots[1]!, 'u2#0')).toMatchObject({ role: 'tool', kind: 'tool_result' });
    // contract §8.1: a placeholder is never a canary
    expect(spanOf(snapshots[0]!, SYSTEM_SPAN_ID)).toMatchObject({ role: 'system', kind: 'placeholder' });
    expect(spanOf(snapshots[0]!, SYSTEM_SPAN_ID)?.pinned).toBeUndefined();
    expect(spanOf(snapshots[0]!, 'u1#0')).toMatchObject({ pinned: true, role: 'user', score: null, text_sha256: null });
    // a later prompt is user-authored but not pinned; a meta record is not user-authored
    expect(spanOf(snapshots[3]!, 'u4#0')).toMatchObject({ role: 'user' });
    expect(spanOf(snapshots[3]!, 'u4#0')?.pinned).toBeUndefined();
    expect(spanOf(snapshots[5]!, 'u6#0')).toMatchObject({ role: 'meta' });
  });

  it('span ids are stable across turns: the same block has the same id and text', () => {
    for (const s of snapshots.slice(0, 4)) expect(spanOf(s, 'u1#0')?.text).toBe(spanOf(snapshots[0]!, 'u1#0')?.text);
    expect(ids(snapshots[3]!).slice(0, 5)).toEqual(ids(snapshots[1]!));
  });

  it('tokens_total of every turn equals the call’s input + cache creation + cache read exactly', () => {
    const firstOfCall = new Map<string, Record<string, number>>();
    for (const r of records) {
      if (r.type === 'assistant' && r.isSidechain !== true && typeof r.requestId === 'string' && !firstOfCall.has(r.requestId)) {
        firstOfCall.set(r.requestId, (r.message as { usage: Record<string, number> }).usage);
      }
    }
    for (const s of snapshots) {
      const u = firstOfCall.get(s.request_id as string)!;
      const expected = u.input_tokens! + u.cache_creation_input_tokens! + u.cache_read_input_tokens!;
      const total = s.spans.reduce((n, x) => n + (x.tokens ?? Number.NaN), 0);
      expect(total, `turn ${s.turn}`).toBe(expected);
      for (const x of s.spans) expect(x.tokens, `${x.span_id} at turn ${s.turn}`).toBeGreaterThanOrEqual(0);
    }
    // turn 1's prompt (≈20 estimated tokens) does not fit a 5-token call: scaled down, system gets the rest
    expect(spanOf(snapshots[0]!, 'u1#0')!.tokens).toBeLessThanOrEqual(5);
  });

  it('fitTokens keeps estimates that fit and scales down those that do not', () => {
    expect(fitTokens([3, 4], 10)).toEqual([3, 4]);
    expect(fitTokens([10, 30], 20)).toEqual([5, 15]);
    expect(fitTokens([1, 1, 1], 2).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(2);
    // contract §2.3: code points, not UTF-16 units
    expect(estimateTokens('😀😀😀😀')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
  });

  it('microcompaction: the listed tool results keep their ids, their text becomes a placeholder, reported as a rewrite', () => {
    expect(spanOf(snapshots[1]!, 'u2#0')!.text).toMatch(/describe\('login'/);
    expect(spanOf(snapshots[2]!, 'u2#0')!.text).toBe(CLEARED_TOOL_RESULT);
    expect(snapshots[2]!.rewrite).toEqual({ spans_modified: 1, scores_invalidated: 1, modified_span_ids: ['u2#0'] });
    // not the other tool result, and not again on the next turn
    expect(spanOf(snapshots[2]!, 'u3#0')!.text).toMatch(/FAIL/);
    expect(spanOf(snapshots[3]!, 'u2#0')!.text).toBe(CLEARED_TOOL_RESULT);
    expect(snapshots[3]!.rewrite).toBeUndefined();
  });

  it('compaction: the first call after the boundary prunes every earlier span, and the summary derives from them', () => {
    const before = ['u1#0', 'a1#0', 'a2#0', 'u2#0', 'a3#0', 'a4#0', 'u3#0', 'a5#0', 'u4#0', 'a6#0'];
    expect(ids(snapshots[3]!)).toEqual([SYSTEM_SPAN_ID, ...before.slice(0, -1)]);
    const turn5 = snapshots[4]!;
    expect(ids(turn5)).toEqual([SYSTEM_SPAN_ID, 'u5#0']);
    expect(turn5.pruned).toEqual(before);
    expect(spanOf(turn5, 'u5#0')).toMatchObject({ role: 'summary', derived_from: before });
    // contract §8.2: the transcript still holds them
    expect(turn5.archived).toEqual(before);
    // contract §8.3: marked on that call only, with the boundary's metadata
    expect(turn5.compaction).toMatchObject({ kind: 'compact', trigger: 'manual', pre_tokens: 1950, replaced: before, summary: ['u5#0'] });
    // the microcompaction before it is its own record (turn 3), with no items
    expect(snapshots[2]!.compaction).toMatchObject({ kind: 'microcompact', replaced: ['u2#0'], summary: [], items: [] });
    expect(snapshots.filter((s) => s.compaction !== undefined).map((s) => s.turn)).toEqual([3, 5]);
    // lineage is kept on later turns; nothing more is pruned
    const turn6 = snapshots[5]!;
    expect(ids(turn6)).toEqual([SYSTEM_SPAN_ID, 'u5#0', 'a7#0', 'u6#0', 'u7#0']);
    expect(turn6.pruned).toBeUndefined();
    expect(spanOf(turn6, 'u5#0')!.derived_from).toEqual(before);
  });

  it('the unchanged engine accepts every message; the compacted parents are archived, not orphaned', () => {
    const engine = new Engine({ sha256 });
    const signals: [number, string, string[]][] = [];
    for (const m of fixture.messages) {
      const o = engine.ingestParsedLine(m.value, m.line, false);
      expect(o.kind, JSON.stringify(o)).not.toBe('error');
      if (o.kind === 'turn') for (const f of o.result.findings) signals.push([f.turn, f.signal, f.span_ids]);
    }
    // contract §8.2: the summary's sources are still in the transcript, so nothing is orphaned
    expect(signals.filter((s) => s[1] === 'orphaned_parent')).toEqual([]);
    // contract §8.5: each compaction once, at the turn it takes effect
    expect(signals.filter((s) => s[1] === 'compaction')).toEqual([
      [3, 'compaction', []],
      [5, 'compaction', ['u5#0']],
    ]);
    // contract §2.3: no scorer, so every span is unscored (Part B's reference scorer fills them)
    expect(signals.filter((s) => s[1] === 'unscored_span').map((s) => s[0])).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('records already seen (a resumed session repeats them) are skipped, so span ids stay unique', () => {
    const lines = fixtureText.split('\n');
    lines.splice(3, 0, lines[2]!); // u1 twice
    const r = convert(lines.join('\n'));
    expect(r.summary.skipped['repeated record']).toBe(1);
    const s = r.messages.map((m) => m.value).filter((v): v is Snapshot => v.type === 'snapshot');
    expect(ids(s[0]!)).toEqual([SYSTEM_SPAN_ID, 'u1#0']);
  });
});

// adapters.md rewinds: a prompt written after going back names an earlier record as its parent
function rec(type: 'user' | 'assistant', uuid: string, parentUuid: string | null, content: unknown, more: Record<string, unknown> = {}): string {
  const message =
    type === 'user'
      ? { role: 'user', content }
      : {
          id: `msg_${uuid}`,
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content,
          usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 5 },
        };
  const t = new Date(Date.UTC(2026, 10, 30, 10, 0, Number(uuid.replace(/\D/g, '')))).toISOString();
  return JSON.stringify({ type, uuid, parentUuid, sessionId: 'rw', timestamp: t, isSidechain: false, cwd: '/repo', message, ...more });
}
const say = (text: string): unknown[] => [{ type: 'text', text }];
const read = (id: string, path: string): unknown[] => [{ type: 'tool_use', id, name: 'Read', input: { file_path: path } }];
const result = (id: string, text: string): unknown[] => [{ type: 'tool_result', tool_use_id: id, content: text }];
type Item = { kind: string; text: string; status: string };
const snapshotsOf = (lines: string[]): Snapshot[] =>
  convert(lines.join('\n'))
    .messages.map((m) => m.value)
    .filter((v): v is Snapshot => v.type === 'snapshot');
/** `lines`, then a compact boundary after record `last`, a summary and a call: that compaction's audit items */
function auditAfter(lines: string[], last: string, summary: string): Item[] {
  const more = [
    boundary('c9', last, 'manual', 900),
    rec('user', 'u9', 'c9', summary, { isCompactSummary: true }),
    rec('assistant', 'a9', 'u9', say('Continuing.'), { requestId: 'req_9' }),
  ];
  return (snapshotsOf([...lines, ...more]).at(-1)!.compaction as { items: Item[] }).items;
}
const boundary = (uuid: string, logicalParentUuid: string, trigger: string, preTokens: number): string =>
  JSON.stringify({
    type: 'system',
    subtype: 'compact_boundary',
    uuid,
    parentUuid: null,
    logicalParentUuid,
    sessionId: 'rw',
    compactMetadata: { trigger, preTokens },
  });

/** u1 → a1 → u2 → a2 (Read x.ts) → u3 (its result) → a3; then u4 is written with a1 as its parent: u2 … a3 are abandoned */
const rewound = [
  rec('user', 'u1', null, 'Fix the login retry without touching the schema.'),
  rec('assistant', 'a1', 'u1', say('Looking at the login flow.'), { requestId: 'req_1' }),
  rec('user', 'u2', 'a1', 'Rewrite the whole cache layer in Rust.'),
  rec('assistant', 'a2', 'u2', read('toolu_x', '/repo/src/xcache.ts'), { requestId: 'req_2' }),
  rec('user', 'u3', 'a2', result('toolu_x', 'export const cache = new Map();')),
  rec('assistant', 'a3', 'u3', say('Starting the Rust rewrite.'), { requestId: 'req_3' }),
  JSON.stringify({ type: 'progress', uuid: 'p3', parentUuid: 'a3', sessionId: 'rw', data: { type: 'hook_progress' } }),
  rec('user', 'u4', 'a1', 'Make the retry count configurable instead.'),
  rec('assistant', 'a4', 'u4', say('Adding a retry option.'), { requestId: 'req_4' }),
];

describe('Claude Code rewinds (docs/adapters.md)', () => {
  it('a prompt written after going back continues from its parent: the abandoned branch leaves the context, pruned and archived', () => {
    const s = snapshotsOf(rewound);
    expect(s.map((x) => x.turn)).toEqual([1, 2, 3, 4]);
    expect(ids(s[2]!)).toEqual([SYSTEM_SPAN_ID, 'u1#0', 'a1#0', 'u2#0', 'a2#0', 'u3#0']);
    expect(ids(s[3]!)).toEqual([SYSTEM_SPAN_ID, 'u1#0', 'a1#0', 'u4#0']);
    expect(s[3]!.pruned).toEqual(['u2#0', 'a2#0', 'u3#0', 'a3#0']);
    expect(s[3]!.archived).toEqual(['u2#0', 'a2#0', 'u3#0', 'a3#0']);
    // the engine sees no orphan and no fault in it
    const engine = new Engine({ sha256 });
    const msgs = convert(rewound.join('\n')).messages;
    const orphans = msgs.flatMap((m) => {
      const o = engine.ingestValue(m.value, m.line);
      return o.kind === 'turn' ? [o.result.metrics.orphan_edges] : [];
    });
    expect(orphans).toEqual([0, 0, 0, 0]);
  });

  it('the abandoned branch gives the next compaction no items: its prompt and its file were never in the chain the summary replaced', () => {
    const items = auditAfter(rewound, 'a4', 'Summary: the user wants the login retry count configurable; not done yet.').map((i) => [i.kind, i.text]);
    expect(items).toEqual([
      ['user_prompt', 'Fix the login retry without touching the schema.'],
      ['user_prompt', 'Make the retry count configurable instead.'],
    ]);
  });

  it('a tool result or a prompt on the chain it continues changes nothing, nor a parent from before a compact boundary', () => {
    // u3's result names a2, the record before the progress record: no rewind
    expect(ids(snapshotsOf(rewound.slice(0, 6))[2]!)).toEqual([SYSTEM_SPAN_ID, 'u1#0', 'a1#0', 'u2#0', 'a2#0', 'u3#0']);
    // a prompt whose parent is the last record but one that added no spans (the progress record's parent)
    const onChain = [...rewound.slice(0, 7), rec('user', 'u4', 'a3', 'Go on.'), rec('assistant', 'a4', 'u4', say('On it.'), { requestId: 'req_4' })];
    const s = snapshotsOf(onChain);
    expect(ids(s[3]!)).toEqual([SYSTEM_SPAN_ID, 'u1#0', 'a1#0', 'u2#0', 'a2#0', 'u3#0', 'a3#0', 'u4#0']);
    expect(s[3]!.pruned).toBeUndefined();
    // after a compact boundary, a parent from before it: what the summary replaced is gone already, the file order stands
    const across = [
      ...rewound.slice(0, 2),
      boundary('c2', 'a1', 'auto', 500),
      rec('user', 'u3', 'c2', 'Summary: looking at the login flow.', { isCompactSummary: true }),
      rec('assistant', 'a3', 'u3', say('Continuing.'), { requestId: 'req_3' }),
      rec('user', 'u4', 'a1', 'Make the retry count configurable.'),
      rec('assistant', 'a4', 'u4', say('On it.'), { requestId: 'req_4' }),
    ];
    const t = snapshotsOf(across);
    expect(ids(t.at(-1)!)).toEqual([SYSTEM_SPAN_ID, 'u3#0', 'a3#0', 'u4#0']);
    expect(t.at(-1)!.pruned).toBeUndefined();
  });

  it('a record written before the one it follows is no rewind point: a turn_duration ahead of the turn’s last message (2.1.x)', () => {
    // the shape of a real 2.1.112 transcript: the turn's `turn_duration` (d2) names the answer
    // (a2) as its parent but comes first in the file, and the next prompt names d2
    const duration = (uuid: string, parentUuid: string): string =>
      JSON.stringify({ type: 'system', subtype: 'turn_duration', uuid, parentUuid, sessionId: 'rw', isSidechain: false, durationMs: 4200 });
    const lines = [
      rec('user', 'u1', null, 'Sketch the retry policy.'),
      rec('assistant', 'a1', 'u1', read('toolu_1', '/repo/src/retry.ts'), { requestId: 'req_1' }),
      rec('user', 'u2', 'a1', result('toolu_1', 'export const tries = 3;')),
      duration('d2', 'a2'),
      rec('assistant', 'a2', 'u2', say('Three tries, then give up.'), { requestId: 'req_2' }),
      rec('user', 'u3', 'd2', 'Make it five.'),
      rec('assistant', 'a3', 'u3', say('Five it is.'), { requestId: 'req_3' }),
    ];
    const s = snapshotsOf(lines);
    expect(ids(s.at(-1)!)).toEqual([SYSTEM_SPAN_ID, 'u1#0', 'a1#0', 'u2#0', 'a2#0', 'u3#0']);
    expect(s.at(-1)!.pruned).toBeUndefined();
    // a prompt naming it after the user went back further still cuts at the record it follows
    const back = [...lines, rec('user', 'u4', 'd2', 'No, make it four.'), rec('assistant', 'a4', 'u4', say('Four.'), { requestId: 'req_4' })];
    const b = snapshotsOf(back).at(-1)!;
    expect(ids(b)).toEqual([SYSTEM_SPAN_ID, 'u1#0', 'a1#0', 'u2#0', 'a2#0', 'u4#0']);
    expect(b.pruned).toEqual(['u3#0', 'a3#0']);
  });

  it('an edited first prompt is pinned in its place', () => {
    const lines = [
      JSON.stringify({ type: 'system', subtype: 'local_command', uuid: 's0', parentUuid: null, sessionId: 'rw', content: 'init' }),
      rec('user', 'u1', 's0', 'Fix the login test.'),
      rec('assistant', 'a1', 'u1', say('Looking.'), { requestId: 'req_1' }),
      rec('user', 'u2', 's0', 'Fix the logout test.'),
      rec('assistant', 'a2', 'u2', say('Looking.'), { requestId: 'req_2' }),
    ];
    const s = snapshotsOf(lines);
    expect(ids(s[1]!)).toEqual([SYSTEM_SPAN_ID, 'u2#0']);
    expect(spanOf(s[1]!, 'u2#0')!.pinned).toBe(true);
  });
});

describe('Claude Code pinning (docs/adapters.md)', () => {
  it('pins the first prompt, not a shell command or a slash command without arguments typed before it', () => {
    // the shape of a real 2.1.123 session: a `!` command and its output, then the task
    const lines = [
      rec(
        'user',
        'u1',
        null,
        '<local-command-caveat>Caveat: The messages below were generated by the user while running local commands.</local-command-caveat>',
        {
          isMeta: true,
        },
      ),
      rec('user', 'u2', 'u1', '<bash-input>make setup</bash-input>'),
      rec('user', 'u3', 'u2', '<bash-stdout>setup done</bash-stdout><bash-stderr></bash-stderr>'),
      rec('user', 'u4', 'u3', '<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>'),
      rec('user', 'u5', 'u4', 'Wire the retry count into the config loader.'),
      rec('assistant', 'a6', 'u5', say('On it.'), { requestId: 'req_6' }),
    ];
    const s = snapshotsOf(lines).at(-1)!;
    expect(s.spans.filter((x) => x.pinned === true).map((x) => x.span_id)).toEqual(['u5#0']);
  });
});

describe('Claude Code sub-agent files (docs/adapters.md)', () => {
  // <session>/subagents/agent-<id>.jsonl: every record is a sidechain's and names the agent
  const agent = (line: string): string =>
    JSON.stringify({ ...(JSON.parse(line) as object), isSidechain: true, agentId: 'a7f3c21', sessionId: 'parent-0123456789' });
  const file = [
    rec('user', 'u1', null, 'Find every caller of login() in src/.'),
    rec('assistant', 'a1', 'u1', read('toolu_1', '/repo/src/auth.ts'), { requestId: 'req_1' }),
  ]
    .concat([
      rec('user', 'u2', 'a1', result('toolu_1', 'export function login() {}')),
      rec('assistant', 'a2', 'u2', say('One caller.'), { requestId: 'req_2' }),
    ])
    .map(agent);

  it("reads a sub-agent's own file as its session, apart from its parent's, its first prompt not pinned (the parent agent wrote it)", () => {
    const r = convert(file.join('\n'));
    const header = r.messages[0]!.value;
    expect(header).toMatchObject({ type: 'session', session_id: 'parent-0123456789:agent-a7f3c21', source: 'claude-code' });
    expect(header.title).toMatch(/^sub-agent a7f3c21 of parent-0: repo — Find every caller/);
    // Claude Code's auto-compaction call (agent-acompact-<id>.jsonl) is named for what it is
    const compactor = convert(file.map((l) => l.replace('"agentId":"a7f3c21"', '"agentId":"acompact-9e1f"')).join('\n'));
    expect(compactor.messages[0]!.value.title).toMatch(/^auto-compaction call of parent-0: repo — /);
    const s = r.messages.map((m) => m.value).filter((v): v is Snapshot => v.type === 'snapshot');
    expect(s.map((x) => [x.session_id, x.turn])).toEqual([
      ['parent-0123456789:agent-a7f3c21', 1],
      ['parent-0123456789:agent-a7f3c21', 2],
    ]);
    expect(ids(s[1]!)).toEqual([SYSTEM_SPAN_ID, 'u1#0', 'a1#0', 'u2#0']);
    expect(spanOf(s[1]!, 'u1#0')!.pinned).toBeUndefined();
    expect(r.summary.skipped['user (sidechain)']).toBeUndefined();
  });

  it('a session file still leaves its inline sidechains out', () => {
    const r = convert([rewound[0]!, rewound[1]!, ...file.slice(0, 2), rewound[2]!, rewound[3]!].join('\n'));
    expect(r.messages[0]!.value.session_id).toBe('rw');
    expect(r.summary.skipped['user (sidechain)']).toBe(1);
    expect(r.messages.filter((m) => m.value.type === 'snapshot')).toHaveLength(2);
  });
});

describe('Claude Code IDE notes (docs/adapters.md)', () => {
  const opened =
    '<ide_opened_file>The user opened the file /repo/src/auth.ts in the IDE. This may or may not be related to the current task.</ide_opened_file>';
  const selected =
    '<ide_selection>The user selected the lines 3 to 9 from /repo/src/lru.rs:\nfn evict() {}\n\nThis may or may not be related to the current task.</ide_selection>';
  const lines = [
    rec('user', 'u1', null, opened), // a record of its own, as the extension writes it
    rec('user', 'u2', 'u1', [
      { type: 'text', text: selected },
      { type: 'text', text: 'Why does the login header wrap?' },
    ]),
    rec('assistant', 'a2', 'u2', say('Looking.'), { requestId: 'req_1' }),
    rec('user', 'u3', 'a2', `${opened}\nAnd make the retry count configurable.`),
    rec('assistant', 'a3', 'u3', say('Done.'), { requestId: 'req_2' }),
  ];

  it("names, pins and titles by what the user typed: an IDE's note of the open file or the selected lines is not the prompt", () => {
    const r = convert(lines.join('\n'));
    const s = r.messages.map((m) => m.value).filter((v): v is Snapshot => v.type === 'snapshot');
    const span = (id: string) => spanOf(s.at(-1)!, id)!;
    expect(span('u1#0').label).toBe('IDE: opened auth.ts');
    expect(span('u1#0').pinned).toBeUndefined();
    expect(span('u2#0').label).toBe('IDE: selected lines 3–9 of lru.rs');
    expect(span('u2#1').label).toBe('Why does the login header wrap?');
    expect(span('u2#1').pinned).toBe(true);
    expect(span('u3#0').label).toBe('And make the retry count configurable.');
    expect(span('u3#0').text).toBe(`${opened}\nAnd make the retry count configurable.`); // what the model saw
    expect(r.messages[0]!.value.title).toBe('repo — Why does the login header wrap?');
  });

  it('audits the prompts as typed (contract §8.4): a summary that keeps them keeps them, whatever became of the notes', () => {
    const items = auditAfter(lines, 'a3', 'Summary. Asked: "Why does the login header wrap?" and "And make the retry count configurable."');
    expect(items.filter((i) => i.kind === 'user_prompt').map((i) => [i.text, i.status])).toEqual([
      ['Why does the login header wrap?', 'kept'],
      ['And make the retry count configurable.', 'kept'],
    ]);
  });
});

describe('Claude Code attachments (docs/adapters.md)', () => {
  const att = (uuid: string, parentUuid: string, attachment: object, more: object = {}): string =>
    JSON.stringify({ type: 'attachment', uuid, parentUuid, sessionId: 'rw', timestamp: '2026-11-30T10:00:30.000Z', isSidechain: false, attachment, ...more });
  const lines = [
    rec('user', 'u1', null, 'Fix the login retry.'),
    att('h1', 'u1', { type: 'hook_additional_context', hookName: 'UserPromptSubmit', content: ['Branch policy: never push to main.'] }),
    att('m1', 'h1', { type: 'nested_memory', path: '/repo/src/CLAUDE.md', content: { path: '/repo/src/CLAUDE.md', content: 'Use pnpm, not npm.' } }),
    att('f1', 'm1', { type: 'file', filename: '/repo/a.ts' }),
    att('s1', 'f1', { type: 'hook_additional_context', content: ['a sub-agent’s'] }, { isSidechain: true }),
    rec('assistant', 'a1', 'f1', say('On it.'), { requestId: 'req_1' }),
    // typed while Claude worked, delivered at the next call; and a background task's report
    att('q1', 'a1', { type: 'queued_command', prompt: 'Also make the retry count configurable.' }),
    att('q2', 'q1', { type: 'queued_command', prompt: '<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n</task-notification>' }),
    rec('assistant', 'a2', 'q2', say('Both done.'), { requestId: 'req_2' }),
  ];

  it('reads a queued prompt as the user’s and the context a hook or a CLAUDE.md added as meta; other kinds are counted, a sidechain’s skipped', () => {
    const r = convert(lines.join('\n'));
    const last = snapshotsOf(lines).at(-1)!;
    expect(ids(last)).toEqual([SYSTEM_SPAN_ID, 'u1#0', 'h1#0', 'm1#0', 'a1#0', 'q1#0', 'q2#0']);
    expect([spanOf(last, 'h1#0')!.role, spanOf(last, 'h1#0')!.label]).toEqual(['meta', 'UserPromptSubmit context: Branch policy: never push to main.']);
    expect([spanOf(last, 'm1#0')!.role, spanOf(last, 'm1#0')!.label, spanOf(last, 'm1#0')!.text]).toEqual([
      'meta',
      'memory: src/CLAUDE.md',
      'Use pnpm, not npm.',
    ]);
    expect([spanOf(last, 'q1#0')!.role, spanOf(last, 'q1#0')!.label]).toEqual(['user', 'Also make the retry count configurable.']);
    expect(spanOf(last, 'q2#0')!.role).toBe('meta');
    expect(r.summary.skipped['attachment:file']).toBe(1);
    expect(r.summary.skipped['attachment (sidechain)']).toBe(1);
  });

  it('a queued prompt Claude Code sends as meta is no prompt: marked isMeta, a task’s (commandMode), or from another sender than a person (origin)', () => {
    const queued = [
      rec('user', 'u1', null, 'Fix the login retry.'),
      rec('assistant', 'a1', 'u1', say('On it.'), { requestId: 'req_1' }),
      att('q1', 'a1', { type: 'queued_command', prompt: 'Also make the retry count configurable.', origin: { kind: 'human' } }),
      att('q2', 'q1', { type: 'queued_command', prompt: 'The nightly build finished.', commandMode: 'task-notification' }),
      att('q3', 'q2', { type: 'queued_command', prompt: 'Reviewer: please keep the old flag.', origin: { kind: 'peer' } }),
      att('q4', 'q3', { type: 'queued_command', prompt: 'Scheduled check: run the linter.', isMeta: true }),
      rec('assistant', 'a2', 'q4', say('Noted.'), { requestId: 'req_2' }),
    ];
    const last = snapshotsOf(queued).at(-1)!;
    expect(['q1#0', 'q2#0', 'q3#0', 'q4#0'].map((id) => spanOf(last, id)!.role)).toEqual(['user', 'meta', 'meta', 'meta']);
    const items = auditAfter(queued, 'a2', 'Summary: fix the login retry.');
    expect(items.filter((i) => i.kind === 'user_prompt').map((i) => i.text)).toEqual(['Fix the login retry.', 'Also make the retry count configurable.']);
  });

  it('audits a queued prompt as a prompt (contract §8.4), and not a task’s report', () => {
    const items = auditAfter(lines, 'a2', 'Summary: fix the login retry; the retry count is configurable.');
    expect(items.filter((i) => i.kind === 'user_prompt').map((i) => i.text)).toEqual(['Fix the login retry.', 'Also make the retry count configurable.']);
  });

  // the shape a real 2.1.112 auto-compaction wrote: after the summary, Claude Code restores
  // the files read last (`file`, with their content) and names one too large to restore
  // (`compact_file_reference`); the model is sent both before the next call
  const restored = [
    rec('user', 'u1', null, 'Tidy the retry module.'),
    rec('assistant', 'a1', 'u1', read('toolu_1', '/repo/src/retry.ts'), { requestId: 'req_1' }),
    rec('user', 'u2', 'a1', result('toolu_1', 'export const tries = 3;')),
    rec('assistant', 'a2', 'u2', read('toolu_2', '/repo/src/backoff.ts'), { requestId: 'req_2' }),
    rec('user', 'u3', 'a2', result('toolu_2', 'export const delayMs = 250;')),
    rec('assistant', 'a3', 'u3', read('toolu_3', '/repo/docs/notes.md'), { requestId: 'req_3' }),
    rec('user', 'u4', 'a3', result('toolu_3', 'Notes on retries.')),
    rec('assistant', 'a4', 'u4', say('Read all three.'), { requestId: 'req_4' }),
    boundary('c5', 'a4', 'auto', 900),
    rec('user', 'u5', 'c5', 'Summary: the user asked to tidy the retry module; reading it.', { isCompactSummary: true }),
    att('f6', 'u5', {
      type: 'file',
      filename: '/repo/src/retry.ts',
      displayPath: 'src/retry.ts',
      content: { type: 'text', file: { filePath: '/repo/src/retry.ts', content: 'export const tries = 3;', numLines: 1, startLine: 1, totalLines: 1 } },
    }),
    att('f7', 'f6', { type: 'compact_file_reference', filename: '/repo/src/backoff.ts', displayPath: 'src/backoff.ts' }),
    rec('assistant', 'a8', 'f7', say('Continuing.'), { requestId: 'req_8' }),
  ];

  it('reads the files Claude Code restores after a compaction as meta spans; the audit finds them kept, not lost (contract §8.4)', () => {
    const r = convert(restored.join('\n'));
    const last = snapshotsOf(restored).at(-1)!;
    expect(ids(last)).toEqual([SYSTEM_SPAN_ID, 'u5#0', 'f6#0', 'f7#0']);
    const file = spanOf(last, 'f6#0')!;
    expect([file.role, file.kind, file.label]).toEqual(['meta', 'attachment', 'file: src/retry.ts']);
    expect(file.text).toBe(
      'Called the Read tool with the following input: {"file_path":"/repo/src/retry.ts"}\nResult of calling the Read tool: export const tries = 3;',
    );
    const note = spanOf(last, 'f7#0')!;
    expect([note.role, note.label]).toEqual(['meta', 'file named, not restored: src/backoff.ts']);
    expect(note.text).toContain('/repo/src/backoff.ts was read before the last conversation was summarized');
    expect(r.summary.skipped['attachment:file']).toBeUndefined();
    const items = (last.compaction as { items: Item[] }).items.filter((i) => i.kind === 'file');
    expect(items.map((i) => [i.text, i.status])).toEqual([
      ['/repo/src/retry.ts', 'kept'],
      ['/repo/src/backoff.ts', 'kept'],
      ['/repo/docs/notes.md', 'lost'],
    ]);
  });
});

// test/fixtures/adapters/claude-code-other-backend.jsonl (provenance beside it): Claude Code
// 2.1.14x on an Anthropic-compatible backend of another model: no requestId, one call per
// message.id streamed over several records with usage on one of them, and the record types
// 2.1.x writes around them
describe('Claude Code 2.1.x on another backend (docs/adapters.md)', () => {
  const text = fs.readFileSync(new URL('../../../test/fixtures/adapters/claude-code-other-backend.jsonl', import.meta.url), 'utf8');
  const lines = text.trimEnd().split('\n');
  const r = convert(text);
  const snaps = r.messages.map((m) => m.value).filter((v): v is Snapshot => v.type === 'snapshot');
  const total = (s: Snapshot): number | null => (s.spans.every((x) => x.tokens === undefined) ? null : s.spans.reduce((a, x) => a + x.tokens!, 0));

  it('is told by its records, whatever record opens the file; not by requestId', () => {
    expect(r.summary.format).toBe('claude-code');
    expect(r.errors).toEqual([]);
    const sessionId = 's';
    for (const type of [
      'permission-mode',
      'last-prompt',
      'ai-title',
      'custom-title',
      'agent-name',
      'queue-operation',
      'file-history-snapshot',
      'summary',
      'attachment',
      'system',
    ])
      expect(detectFormat({ type, sessionId }), type).toBe('claude-code');
    expect(detectFormat({ type: 'assistant', parentUuid: null, message: {} })).toBe('claude-code');
    // a record type alone, with none of Claude Code's fields, is not enough
    expect(detectFormat({ type: 'permission-mode' })).toBe('wire');
  });

  it("is told by the metadata a newer Claude Code writes first (2.1.332's writer table): a file that opens with it is read, not refused", () => {
    for (const type of ['session-owner', 'memory-mode', 'repl-mode', 'hybrid-organization', 'history-suppression', 'content-replacement', 'tools-used'])
      expect(detectFormat({ type, sessionId: 's' }), type).toBe('claude-code');
    const text = [
      { type: 'session-owner', sessionId: 's9' },
      { type: 'user', uuid: 'q1', parentUuid: null, sessionId: 's9', message: { role: 'user', content: 'rename the flag' } },
      {
        type: 'assistant',
        uuid: 'q2',
        parentUuid: 'q1',
        sessionId: 's9',
        requestId: 'req_q',
        message: { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
      },
    ]
      .map((o) => JSON.stringify(o))
      .join('\n');
    const read = convert(text);
    expect(read.summary.format).toBe('claude-code');
    expect(read.summary.skipped).toEqual({ 'session-owner': 1 });
    expect(read.messages.filter((m) => m.value.type === 'snapshot')).toHaveLength(1);
  });

  it('a call is its message.id when there is no requestId: records of one id are one turn; a synthetic error record is none', () => {
    expect(snaps.map((s) => s.turn)).toEqual([1, 2, 3, 4]);
    expect(snaps.map((s) => s.message_id)).toEqual(['msg_kimi_01', 'msg_kimi_02', 'msg_kimi_03', 'msg_kimi_04']);
    expect(snaps.every((s) => s.request_id === undefined)).toBe(true);
    // the call's later records add blocks, no turn: the second call saw all three of the first's
    expect(ids(snaps[1]!)).toEqual([SYSTEM_SPAN_ID, 'u1#0', 'u2#0', 'a1#0', 'a2#0', 'a3#0', 'r1#0']);
    expect(snaps.flatMap(ids).some((id) => id.startsWith('x1'))).toBe(false);
    expect(r.summary.skipped['assistant without requestId']).toBe(1);
  });

  it("tokens: the usage one of the call's records reports, wherever it is; estimated only when every record reports zero", () => {
    // call 1 reports on its third record, call 2 on its first, call 3 on none, call 4 on its second
    expect(snaps.map(total)).toEqual([14210, 14620 + 14200, null, 15100 + 14600]);
    // the first record of a call decides what it saw, also when its usage comes later
    expect(ids(snaps[0]!)).toEqual([SYSTEM_SPAN_ID, 'u1#0', 'u2#0']);
    expect(snaps[0]!.spans[0]!.tokens).toBe(14210 - estimateTokens(snaps[0]!.spans[1]!.text) - estimateTokens(snaps[0]!.spans[2]!.text));
  });

  it('the largest usage counts: a zero first record waits for the one that reports, later smaller reports change nothing', () => {
    const call = (uuid: string, parent: string | null, usage: Record<string, number>): string =>
      JSON.stringify({
        type: 'assistant',
        uuid,
        parentUuid: parent,
        sessionId: 'mx',
        message: { id: 'msg_1', role: 'assistant', model: 'glm-4.6', content: say(uuid), usage },
      });
    const zero = { input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 };
    const got = snapshotsOf([
      rec('user', 'u1', null, 'Count the words.'),
      call('b1', 'u1', zero),
      call('b2', 'b1', { input_tokens: 900, cache_read_input_tokens: 100, output_tokens: 3 }),
      call('b3', 'b2', { input_tokens: 20, output_tokens: 9 }),
      call('b4', 'b3', zero),
    ]);
    expect(got.map(total)).toEqual([1000]);
  });

  it('read as it grows (watch): a call waiting for its usage goes out when it is reported or the next call starts, the same snapshot as in the whole file', () => {
    const live: Snapshot[] = [];
    const pipeline = new TranscriptPipeline({
      text: () => {
        throw new Error('not a raw line');
      },
      value: (v) => {
        if ((v as Snapshot).type === 'snapshot') live.push(v as Snapshot);
      },
      error: () => undefined,
    });
    const counts: number[] = [];
    lines.forEach((l, i) => {
      pipeline.line(l, i + 1);
      counts.push(live.length);
    });
    // call 1 (line 7) waits for its usage (line 9); call 3 (line 15) for the next call (line 26),
    // which reports its own on its second record (line 27)
    expect(counts.indexOf(1)).toBe(8);
    expect(counts.indexOf(3)).toBe(25);
    expect(counts.indexOf(4)).toBe(26);
    expect(live).toEqual(snaps);
    pipeline.end();
  });

  it('titles: an ai-title before the first call names the session, a custom-title after it is counted (the header never changes)', () => {
    expect(r.messages[0]!.value).toMatchObject({ type: 'session', title: 'hooks — Debug slow stop hooks' });
    expect(r.summary.skipped['custom-title (after the first call)']).toBe(1);
    const named = convert([lines[0]!, JSON.stringify({ type: 'custom-title', customTitle: 'my name', sessionId: 's' }), ...lines.slice(1)].join('\n'));
    expect(named.messages[0]!.value).toMatchObject({ title: 'hooks — my name' });
  });

  it('every record type of 2.1.x here is mapped or counted by type, never an input error', () => {
    expect(r.summary.skipped).toEqual({
      'permission-mode': 1,
      'file-history-snapshot': 1,
      'attachment:deferred_tools_delta': 1,
      'system:api_error': 1,
      'system:turn_duration': 1,
      'last-prompt': 1,
      'system:informational': 1,
      'queue-operation': 2,
      'system:local_command': 1,
      'custom-title (after the first call)': 1,
      'agent-name': 1,
      'assistant without requestId': 1,
    });
    // the queued prompt reaches the model as an attachment: a user span of the last call
    expect(spanOf(snaps[3]!, 't2#0')).toMatchObject({ role: 'user', text: 'only run the tests when files changed' });
  });

  it("slash commands: the arguments are the user's words (label, title, audit); a command without arguments stays out", () => {
    expect(spanOf(snaps[0]!, 'u1#0')!.label).toBe('/systematic-debugging the stop hooks are running quite…');
    const untitled = convert(lines.filter((l) => !l.includes('"ai-title"')).join('\n'));
    expect(untitled.messages[0]!.value).toMatchObject({ title: 'hooks — the stop hooks are running quite slowly; can we…' });
    const items = auditAfter(lines, 'a7', 'Summary: the user said the stop hooks are running slowly and asked us to figure out why.');
    expect(items.filter((i) => i.kind === 'user_prompt').map((i) => [i.text, i.status])).toEqual([
      ['the stop hooks are running quite slowly; can we figure out why?', 'paraphrased'],
      ['only run the tests when files changed', 'lost'],
    ]);
  });
});

describe('Claude Code span ids', () => {
  it("a uuid written as another record's line id (line<N>, which Claude Code never writes) does not give two spans one id", () => {
    const rec = (r: Record<string, unknown>): string => JSON.stringify({ sessionId: 'ids', timestamp: '2026-11-30T10:00:00.000Z', isSidechain: false, ...r });
    const ask = (text: string, uuid?: string): string =>
      rec({ type: 'user', ...(uuid === undefined ? {} : { uuid }), message: { role: 'user', content: text } });
    const answer = (n: number): string =>
      rec({
        type: 'assistant',
        uuid: `a${n}`,
        requestId: `req_${n}`,
        message: { id: `msg_${n}`, role: 'assistant', content: [{ type: 'text', text: `answer ${n}` }], usage: { input_tokens: 10, output_tokens: 5 } },
      });
    // line 1 claims the id line 3 takes for want of a uuid; line 5 claims its own line's id
    const lines = [ask('first prompt', 'line3'), answer(1), ask('a prompt without a uuid'), answer(2), ask('third prompt', 'line5'), answer(3)];
    const r = convert(lines.join('\n') + '\n');
    expect(r.errors).toEqual([]);
    const turns = r.messages.map((m) => m.value).filter((v): v is Snapshot => v.type === 'snapshot');
    expect(turns).toHaveLength(3);
    for (const s of turns) expect(new Set(ids(s)).size, ids(s).join(' ')).toBe(ids(s).length);
    expect(turns[2]!.spans.filter((x) => x.role === 'user').map((x) => x.text)).toEqual(['first prompt', 'a prompt without a uuid', 'third prompt']);
    // a file's real uuids keep their ids
    expect(ids(turns[2]!)).toContain('a1#0');
  });
});
