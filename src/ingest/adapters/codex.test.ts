// docs/adapters.md "Codex CLI": each mapping rule, on fixtures written from the rollout
// recorder and protocol types of openai/codex: test/fixtures/adapters/codex-rollout.jsonl
// (every record type, every response item kind, repeated and estimated token counts, a
// compaction with replacement history, an older one without, a truncated last line) and
// codex-legacy.jsonl (an older rollout: `instructions` in the meta, token counts written
// before the call's own items).
// eslint-disable-next-line no-restricted-imports -- tests run on Node; the engine is handed its hash
import crypto from 'node:crypto';
// eslint-disable-next-line no-restricted-imports -- the fixtures are read from disk
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../core/engine.ts';
import type { SessionHeader, Snapshot, Span } from '../../core/wire.ts';
import { estimateTokens } from './tokens.ts';
import { CodexAdapter, INSTRUCTIONS_SPAN_ID } from './codex.ts';
import { detectFormat } from './detect.ts';
import { TranscriptPipeline, type AdapterSummary, type PipelineOptions } from './pipeline.ts';

const sha256 = (t: string): string => crypto.createHash('sha256').update(t, 'utf8').digest('hex');
const read = (name: string): string => fs.readFileSync(new URL(`../../../test/fixtures/adapters/${name}`, import.meta.url), 'utf8');

interface Converted {
  messages: { value: Record<string, unknown>; line: number }[];
  errors: { line: number; message: string }[];
  summary: AdapterSummary;
  header: SessionHeader;
  snapshots: Snapshot[];
}

function convert(text: string, options: PipelineOptions = {}): Converted {
  const messages: Converted['messages'] = [];
  const errors: Converted['errors'] = [];
  const pipeline = new TranscriptPipeline(
    {
      text: () => {
        throw new Error('a Codex rollout must not reach the engine as raw lines');
      },
      value: (value, line) => messages.push({ value: value as Record<string, unknown>, line }),
      error: (line, message) => errors.push({ line, message }),
    },
    options,
  );
  const lines = text.split('\n');
  // like the line splitter: a final newline does not make one more line
  if (lines[lines.length - 1] === '') lines.pop();
  lines.forEach((l, i) => pipeline.line(l, i + 1));
  pipeline.end();
  const values = messages.map((m) => m.value);
  return {
    messages,
    errors,
    summary: pipeline.summary(),
    header: values.find((v) => v.type === 'session') as SessionHeader,
    snapshots: values.filter((v): v is Snapshot => v.type === 'snapshot'),
  };
}

const fixtureText = read('codex-rollout.jsonl');
const records = fixtureText.split('\n').flatMap((l, i) => {
  try {
    return [{ line: i + 1, record: JSON.parse(l) as Record<string, unknown> & { payload: Record<string, unknown> } }];
  } catch {
    return [];
  }
});
const fixture = convert(fixtureText);
const snaps = fixture.snapshots;
const ids = (s: Snapshot): string[] => s.spans.map((x) => x.span_id);
const spanOf = (s: Snapshot, id: string): Span => s.spans.find((x) => x.span_id === id)!;
const total = (s: Snapshot): number => s.spans.reduce((a, x) => a + x.tokens!, 0);
const lineOf = (predicate: (r: Record<string, unknown> & { payload: Record<string, unknown> }) => boolean): number =>
  records.find((r) => predicate(r.record))!.line;

/** The fixture's model calls, read independently of the adapter: token counts whose total grew and whose input is not 0. */
function callsOf(rs: typeof records): { line: number; input: number; ts: string }[] {
  const calls: { line: number; input: number; ts: string }[] = [];
  let lastTotals = '';
  for (const { line, record } of rs) {
    const info =
      record.type === 'event_msg' && record.payload.type === 'token_count' ? (record.payload.info as Record<string, Record<string, number>> | null) : null;
    if (info === null) continue;
    const totals = JSON.stringify(info.total_token_usage);
    if (totals === lastTotals || info.last_token_usage!.input_tokens! <= 0) continue;
    lastTotals = totals;
    calls.push({ line, input: info.last_token_usage!.input_tokens!, ts: record.timestamp as string });
  }
  return calls;
}
const calls = callsOf(records);

describe('Codex CLI adapter (docs/adapters.md)', () => {
  it('is recognised by content: every rollout record type names the format', () => {
    for (const type of ['session_meta', 'response_item', 'compacted', 'turn_context', 'event_msg']) {
      expect(detectFormat({ timestamp: '2025-10-04T09:12:00.000Z', type, payload: {} }), type).toBe('codex');
    }
    expect(detectFormat({ type: 'session_meta' }), 'no payload').toBe('wire');
    expect(detectFormat({ type: 'session', session_id: 's' })).toBe('wire');
    expect(fixture.summary.format).toBe('codex');
    expect(convert(fixtureText, { from: 'codex' }).snapshots).toEqual(snaps);
  });

  it('the session: the meta id, a title from the project folder and the first prompt, the start and the context window', () => {
    expect(fixture.messages[0]!.value.type).toBe('session');
    expect(fixture.header).toEqual({
      type: 'session',
      session_id: '0199a6c2-5b7e-7d20-9c41-3f2e8a1b6d09',
      title: 'ferris-cache — Fix the failing eviction test in src/lru.rs and…',
      source: 'codex',
      started_at: '2025-10-04T09:12:00.000Z',
      context_window: 272000,
    });
    expect(snaps.every((s) => s.session_id === fixture.header.session_id)).toBe(true);
    // without an id in the meta, the file's name
    const bare = convert('{"timestamp":"t","type":"session_meta","payload":{}}\n' + fixtureText.split('\n').slice(1).join('\n'), {
      fallbackSessionId: 'rollout-x',
    });
    expect(bare.header.session_id).toBe('rollout-x');
    expect(bare.header.title).toBe('Fix the failing eviction test in src/lru.rs and…');
  });

  it('a turn is one model call: a token count with new usage; rate-limit repeats and Codex estimates are not calls', () => {
    expect(snaps.map((s) => s.turn)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(calls).toHaveLength(8);
    expect(snaps.map((s) => s.ts)).toEqual(calls.map((c) => c.ts));
    expect(fixture.messages.filter((m) => m.value.type === 'snapshot').map((m) => m.line)).toEqual(calls.map((c) => c.line));
    expect(fixture.summary.skipped['event_msg:token_count (no new call)']).toBe(3);
    expect(snaps.map((s) => s.model)).toEqual(Array(8).fill('gpt-5-codex'));
  });

  it("tokens: each turn's total is exactly the call's last_token_usage.input_tokens (cached included)", () => {
    expect(snaps.map(total)).toEqual(calls.map((c) => c.input));
    for (const s of snaps) {
      for (const span of s.spans) expect(Number.isInteger(span.tokens) && span.tokens! >= 0, `${s.turn} ${span.span_id}`).toBe(true);
    }
    // estimates that fit keep their value; the rest is on the instructions span
    const first = snaps[0]!;
    for (const span of first.spans.slice(1)) expect(span.tokens).toBe(estimateTokens(span.text));
    expect(first.spans[0]!.span_id).toBe(INSTRUCTIONS_SPAN_ID);
    // turn 2's history (a 12 000-character test log) is more than its 2 400 tokens: scaled down, still exact
    const second = snaps[1]!;
    const estimated = second.spans.reduce((a, x) => a + estimateTokens(x.text), 0);
    expect(estimated).toBeGreaterThan(2400);
    for (const span of second.spans.slice(1)) expect(span.tokens).toBeLessThanOrEqual(estimateTokens(span.text));
    expect(total(second)).toBe(2400);
  });

  it('spans of a turn: the history before the call, not what the call itself produced', () => {
    const reasoning = `line${lineOf((r) => r.payload.type === 'reasoning')}`;
    const shell = `line${lineOf((r) => r.payload.type === 'function_call')}`;
    expect(ids(snaps[0]!)).toEqual([INSTRUCTIONS_SPAN_ID, 'line2', 'line3', 'line4', 'line5', 'line7']);
    expect(ids(snaps[0]!)).not.toContain(reasoning);
    expect(ids(snaps[1]!)).toEqual([...ids(snaps[0]!), reasoning, shell, 'line13']);
  });

  it('every response item kind: role, kind and a label a person can read', () => {
    const turn6 = snaps[5]!;
    expect(turn6.spans.map((s) => [s.role, s.kind, s.label])).toEqual([
      ['system', 'instructions', 'system prompt (base instructions)'],
      ['system', 'developer', 'permissions instructions'],
      ['system', 'developer', 'developer instructions'],
      ['system', 'instructions', 'AGENTS.md instructions'],
      ['meta', 'text', 'environment context'],
      ['user', 'text', 'Fix the failing eviction test in src/lru.rs and make cargo…'],
      ['assistant', 'thinking', 'reasoning'],
      ['assistant', 'tool_use', 'shell: cargo test'],
      ['tool', 'tool_result', 'result of shell: cargo test'],
      ['assistant', 'thinking', 'reasoning'],
      ['assistant', 'tool_use', 'apply_patch src/lru.rs (+1 files)'],
      ['tool', 'tool_result', 'result of apply_patch src/lru.rs (+1 files)'],
      ['assistant', 'tool_use', 'shell: cargo test'],
      ['tool', 'tool_result', 'result of shell: cargo test'],
      ['assistant', 'tool_use', 'web search: rust lru cache eviction order test'],
      ['assistant', 'text', 'The eviction test passes now: put() evicted the newest…'],
      ['user', 'text', 'Now also add a test for a cache of capacity zero'],
      ['assistant', 'tool_use', 'shell: rg -n capacity src'],
      ['tool', 'tool_result', 'result of shell: rg -n capacity src'],
    ]);
    expect(turn6.spans.map((s) => s.tool ?? null)).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      'shell',
      'shell',
      null,
      'apply_patch',
      'apply_patch',
      'local_shell',
      'local_shell',
      'web_search',
      null,
      null,
      'exec_command',
      'exec_command',
    ]);
    // texts: the raw reasoning when kept, else its summary; outputs as the model read them
    expect(spanOf(turn6, 'line15').text).toBe('put() pops the back of the list, which is the newest entry; it must pop the front.');
    expect(spanOf(turn6, 'line10').text).toMatch(/^\*\*Running the tests first\*\*/);
    expect(spanOf(turn6, 'line21').text).toBe('test result: ok. 300 passed; 0 failed');
    expect(spanOf(turn6, 'line32').text).toBe('src/lru.rs:12:        if self.capacity == 0 {');
    expect(spanOf(snaps[7]!, INSTRUCTIONS_SPAN_ID).text).toMatch(/^You are Codex/);
  });

  it('pinned: only what the operator wrote, the instructions and the first prompt', () => {
    const pinned = snaps[5]!.spans.filter((s) => s.pinned === true).map((s) => s.label);
    expect(pinned).toEqual([
      'system prompt (base instructions)',
      'developer instructions',
      'AGENTS.md instructions',
      'Fix the failing eviction test in src/lru.rs and make cargo…',
    ]);
  });

  it('pinned: not the untagged notes Codex writes itself (a team hint, a saved command prefix), as real 0.14x rollouts do', () => {
    const at = (s: number): string => new Date(Date.UTC(2026, 6, 10, 9, 0, s)).toISOString();
    const msg = (s: number, role: string, text: string): string =>
      JSON.stringify({ timestamp: at(s), type: 'response_item', payload: { type: 'message', role, content: [{ type: 'input_text', text }] } });
    const usage = { input_tokens: 900, cached_input_tokens: 0, output_tokens: 5, reasoning_output_tokens: 0, total_tokens: 905 };
    const count = (s: number, n: number): string =>
      JSON.stringify({
        timestamp: at(s),
        type: 'event_msg',
        payload: {
          type: 'token_count',
          info: { total_token_usage: { ...usage, input_tokens: 900 * n }, last_token_usage: usage, model_context_window: 272000 },
        },
      });
    const r = convert(
      [
        JSON.stringify({ timestamp: at(0), type: 'session_meta', payload: { id: 'notes-1', timestamp: at(0), cwd: '/repo' } }),
        msg(1, 'developer', 'You are `/root`, the primary agent in a team of agents collaborating to fulfill the user’s goals.'),
        msg(2, 'developer', 'Answer in British English.'),
        msg(3, 'user', 'Add a retry to the uploader.'),
        count(4, 1),
        msg(5, 'developer', 'Approved command prefix saved:\n- ["cargo", "test"]'),
        msg(6, 'user', 'Approved command prefix saved: is what the toast said, why?'),
        count(7, 2),
      ].join('\n'),
    );
    const last = r.snapshots.at(-1)!;
    expect(last.spans.map((s) => [s.role, s.label, s.pinned ?? false])).toEqual([
      ['system', 'multi-agent instructions', false],
      ['system', 'developer instructions', true],
      ['user', 'Add a retry to the uploader.', true],
      ['system', 'approved command prefix', false],
      ['user', 'Approved command prefix saved: is what the toast said, why?', false],
    ]);
  });

  it('span ids are stable: a span keeps its id, text and label on every turn until it is pruned', () => {
    for (const s of snaps) expect(new Set(ids(s)).size, `turn ${s.turn}`).toBe(s.spans.length);
    for (let t = 1; t < snaps.length; t++) {
      const prev = snaps[t - 1]!;
      const next = snaps[t]!;
      const pruned = new Set(next.pruned ?? []);
      for (const span of prev.spans) {
        if (pruned.has(span.span_id)) continue;
        const again = spanOf(next, span.span_id);
        expect(again, `turn ${next.turn} lost ${span.span_id}`).toBeDefined();
        expect([again.text, again.label, again.role]).toEqual([span.text, span.label, span.role]);
      }
    }
  });

  it('compaction: the replacement history replaces the context; what it carries over keeps its id, the rest is pruned and archived', () => {
    const compactedLine = lineOf((r) => r.type === 'compacted' && Array.isArray(r.payload.replacement_history));
    const before = snaps[5]!;
    const after = snaps[6]!;
    const carried = [INSTRUCTIONS_SPAN_ID, 'line2', 'line3', 'line4', 'line5', 'line7', 'line27'];
    const summaryId = `line${compactedLine}/6`;
    expect(ids(after)).toEqual([...carried, summaryId]);
    // and the tool search the last call before it made (line 33, its own output: in no snapshot)
    const replaced = [...ids(before).filter((id) => !carried.includes(id)), 'line33'];
    expect(after.pruned).toEqual(replaced);
    expect(after.archived).toEqual(replaced);
    expect(after.compaction).toMatchObject({ kind: 'compact', trigger: null, pre_tokens: null, replaced, summary: [summaryId] });
    const summary = spanOf(after, summaryId);
    expect([summary.role, summary.kind, summary.label]).toEqual(['summary', 'text', 'compaction summary']);
    expect(summary.derived_from).toEqual(replaced);
    expect(summary.text).toMatch(/^Another language model started/);
    // only the first snapshot after it says so
    expect(snaps.filter((s) => s.compaction !== undefined).map((s) => s.turn)).toEqual([7, 8]);
  });

  it('compaction without replacement history (older rollouts): the summary message alone replaces the context', () => {
    const line = lineOf((r) => r.type === 'compacted' && !('replacement_history' in r.payload));
    const before = snaps[6]!;
    const after = snaps[7]!;
    // what turn 7's call produced was never in a snapshot, and is replaced too
    const replaced = [...ids(before).slice(1), 'line39', 'line40', 'line42', 'line43'];
    expect(after.compaction).toMatchObject({ kind: 'compact', trigger: null, pre_tokens: null, replaced, summary: [`line${line}`] });
    expect(after.pruned).toEqual(replaced);
    expect(ids(after)).toEqual([INSTRUCTIONS_SPAN_ID, `line${line}`, `line${line + 1}`]);
    expect(spanOf(after, `line${line}`)).toMatchObject({
      role: 'summary',
      text: 'Fixed LRU eviction order and added a capacity-zero test; all tests pass.',
      derived_from: replaced,
    });
  });

  it('records not mapped are counted by kind; a truncated last line is not an input error, a broken line elsewhere is', () => {
    expect(fixture.errors).toEqual([]);
    expect(fixture.summary.skipped).toEqual({
      'event_msg:token_count (no new call)': 3,
      'event_msg:user_message': 2,
      'event_msg:agent_message': 1,
      'event_msg:context_compacted': 1,
      future_kind: 1,
      'response_item:ghost_snapshot (not sent to the model)': 1,
      'truncated last line': 1,
    });
    const lines = fixtureText.split('\n');
    const broken = convert([...lines.slice(0, 10), '{"timestamp":', ...lines.slice(10)].join('\n'));
    expect(broken.errors.map((e) => e.line)).toEqual([11]);
  });

  it('bad input never throws: odd values are skipped and counted', () => {
    const adapter = new CodexAdapter('odd');
    const odd: unknown[] = [
      null,
      [],
      'text',
      { type: 'response_item' },
      { type: 'response_item', payload: [] },
      { type: 'session_meta', payload: { id: 7, cwd: ['x'], base_instructions: { text: 3 }, instructions: null } },
      { type: 'response_item', payload: { type: 'message', role: 'user', content: 'a plain string prompt' } },
      { type: 'response_item', payload: { type: 'message', role: 'critic', content: [] } },
      { type: 'response_item', payload: { type: 'function_call', name: 5, arguments: '{not json' } },
      { type: 'response_item', payload: { type: 'function_call_output', call_id: 'nobody', output: 42 } },
      { type: 'response_item', payload: { type: 'local_shell_call', action: 'run' } },
      { type: 'response_item', payload: { type: 'reasoning', summary: 'x', content: [1, null] } },
      { type: 'compacted', payload: { message: 3, replacement_history: [null, 4, { type: 'message', role: 'user', content: [{ type: 'input_image' }] }] } },
      { type: 'event_msg', payload: { type: 'token_count', info: { last_token_usage: { input_tokens: '9' } } } },
      { type: 'event_msg', payload: { type: 'token_count', info: { last_token_usage: { input_tokens: 1.5 } } } },
      { type: 'event_msg', payload: {} },
      { type: 'event_msg', payload: { type: 'token_count', info: { last_token_usage: { input_tokens: 10 } } } },
    ];
    const out = odd.flatMap((v, i) => adapter.record(v, i + 1));
    expect(out.map((m) => m.value.type)).toEqual(['session', 'snapshot']);
    const snap = out[1]!.value as Snapshot;
    expect(snap.spans.reduce((a, s) => a + s.tokens!, 0)).toBe(10);
    expect(adapter.skipped.total).toBeGreaterThan(8);
  });

  it('read as it grows (watch): the snapshots of any first part of the file are the first snapshots of the whole', () => {
    const lines = fixtureText.split('\n');
    for (const n of [12, 20, 37, 45]) {
      const part = convert(lines.slice(0, n).join('\n') + '\n');
      expect(part.snapshots).toEqual(snaps.slice(0, part.snapshots.length));
    }
  });

  it('the unchanged engine accepts every message; the replaced spans are archived, so each compaction is one event, not orphans', () => {
    const engine = new Engine({ sha256 });
    const signals: [number, string][] = [];
    for (const m of fixture.messages) {
      const o = engine.ingestParsedLine(m.value, m.line, false);
      expect(o.kind, JSON.stringify(o)).not.toBe('error');
      if (o.kind === 'turn') for (const f of o.result.findings) signals.push([f.turn, f.signal]);
    }
    // contract §8.2: the rollout still holds what a compaction replaced
    expect(signals.filter((s) => s[1] === 'orphaned_parent')).toEqual([]);
    expect(signals.filter((s) => s[1] === 'compaction').map((s) => s[0])).toEqual([7, 8]);
  });
});

describe('Codex CLI adapter, an older rollout', () => {
  const legacy = convert(read('codex-legacy.jsonl'));

  it('token counts written before the call produced its items: the call saw everything before the count', () => {
    expect(legacy.snapshots.map(ids)).toEqual([
      [INSTRUCTIONS_SPAN_ID, 'line3', 'line5'],
      [INSTRUCTIONS_SPAN_ID, 'line3', 'line5', 'line7', 'line8', 'line9'],
    ]);
    expect(legacy.snapshots.map(total)).toEqual([3100, 3300]);
    expect(spanOf(legacy.snapshots[1]!, 'line9')).toMatchObject({
      label: 'result of shell: rg -n Math.floor src',
      text: 'src/invoice.ts:41: return Math.floor(total * 100) / 100;',
    });
  });

  it("the meta's `instructions` (AGENTS.md) is the instructions span; its copy in the history is not counted twice", () => {
    expect(spanOf(legacy.snapshots[0]!, INSTRUCTIONS_SPAN_ID)).toMatchObject({ text: 'Use pnpm, never npm.', label: 'AGENTS.md instructions', pinned: true });
    expect(legacy.summary.skipped).toEqual({ 'response_item:message (the session instructions again)': 1 });
    expect(legacy.header.title).toBe('billing — Why does the invoice total round down?');
  });
});

describe('Codex rollbacks (docs/adapters.md)', () => {
  let n = 0;
  const at = (): string => new Date(Date.UTC(2026, 0, 5, 9, 0, n++)).toISOString();
  const line = (type: string, payload: object): string => JSON.stringify({ timestamp: at(), type, payload });
  const user = (text: string): string => line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
  const answer = (text: string): string => line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
  let total = 0;
  const call = (): string => {
    total += 100;
    const usage = { input_tokens: total, cached_input_tokens: 0, output_tokens: 5, reasoning_output_tokens: 0, total_tokens: total + 5 };
    return line('event_msg', {
      type: 'token_count',
      info: { total_token_usage: { ...usage, input_tokens: total * 2 }, last_token_usage: usage, model_context_window: 272000 },
    });
  };
  const rollout = (): string[] => [
    line('session_meta', { id: 'rb-1', timestamp: at(), cwd: '/repo' }),
    user('<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>'),
    user('Make the cache eviction LRU.'),
    call(),
    answer('Done: LRU eviction.'),
    user('Now rewrite it all in Go.'),
    call(),
    answer('Rewriting in Go.'),
    line('event_msg', { type: 'thread_rolled_back', num_turns: 1 }),
    user('Add a test for the eviction instead.'),
    call(),
  ];

  it('thread_rolled_back drops the last n user turns: the next call sees the history without them, which it prunes and archives', () => {
    const r = convert(rollout().join('\n'));
    const last = r.snapshots.at(-1)!;
    const texts = last.spans.map((s) => s.text);
    expect(texts).toContain('Make the cache eviction LRU.');
    expect(texts).toContain('Done: LRU eviction.');
    expect(texts).not.toContain('Now rewrite it all in Go.');
    expect(texts).not.toContain('Rewriting in Go.');
    const before = r.snapshots.at(-2)!;
    const gone = before.spans.filter((s) => s.text === 'Now rewrite it all in Go.').map((s) => s.span_id);
    expect(gone).toHaveLength(1);
    expect(last.pruned).toEqual(expect.arrayContaining(gone));
    expect(last.archived).toEqual(last.pruned);
    expect(r.errors).toEqual([]);
  });

  it('more turns than were typed drops them all but what came before the first', () => {
    const lines = rollout();
    lines[8] = line('event_msg', { type: 'thread_rolled_back', num_turns: 5 });
    const texts = convert(lines.join('\n'))
      .snapshots.at(-1)!
      .spans.map((s) => s.text);
    expect(texts.some((t) => t.includes('<environment_context>'))).toBe(true);
    expect(texts).not.toContain('Make the cache eviction LRU.');
    expect(texts).toContain('Add a test for the eviction instead.');
  });
});

describe('Codex IDE prompts (docs/adapters.md)', () => {
  const tokenCount = (ts: string, total: number, last: number): string =>
    JSON.stringify({
      timestamp: ts,
      type: 'event_msg',
      payload: {
        type: 'token_count',
        info: {
          total_token_usage: { input_tokens: total, output_tokens: 5 },
          last_token_usage: { input_tokens: last, output_tokens: 5 },
          model_context_window: 272000,
        },
      },
    });
  const ide =
    '# Context from my IDE setup:\n\n## Active file: src/lru.rs\n\n## Open tabs:\n- lru.rs: src/lru.rs\n\n## My request for Codex:\nMake the eviction test pass';
  const lines = [
    JSON.stringify({
      timestamp: '2026-01-05T09:00:00.000Z',
      type: 'session_meta',
      payload: { id: 'ide-1', timestamp: '2026-01-05T09:00:00.000Z', cwd: '/repo' },
    }),
    JSON.stringify({
      timestamp: '2026-01-05T09:00:01.000Z',
      type: 'response_item',
      payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: ide }] },
    }),
    tokenCount('2026-01-05T09:00:02.000Z', 300, 300),
  ];

  it("names an IDE's prompt by the request the user typed, keeping the whole message as its text", () => {
    const r = convert(lines.join('\n'));
    const span = r.snapshots[0]!.spans.find((s) => s.role === 'user')!;
    expect(span.text).toBe(ide);
    expect(span.label).toBe('Make the eviction test pass');
    expect(span.pinned).toBe(true);
    expect(r.header.title).toMatch(/Make the eviction test pass/);
    expect(r.header.title).not.toMatch(/Context from my IDE/);
  });

  it('audits the request as the user wrote it (contract §8.4), not the editor context before it', () => {
    const compacted = [
      ...lines,
      JSON.stringify({ timestamp: '2026-01-05T09:00:03.000Z', type: 'compacted', payload: { message: 'The user wants the eviction test to pass.' } }),
      tokenCount('2026-01-05T09:00:04.000Z', 400, 100),
    ];
    const items = (convert(compacted.join('\n')).snapshots.at(-1)!.compaction as { items: { kind: string; text: string; status: string }[] }).items;
    expect(items.filter((i) => i.kind === 'user_prompt').map((i) => [i.text, i.status])).toEqual([['Make the eviction test pass', 'paraphrased']]);
  });
});

// test/fixtures/adapters/codex-first-format.jsonl (provenance beside it): a rollout of Codex's
// first format, before session_meta: a bare metadata line, bare response items, state lines
describe('Codex CLI adapter, the first rollout format (docs/adapters.md "Codex\'s first format")', () => {
  const text = read('codex-first-format.jsonl');
  const first = convert(text);

  it('is told by its bare metadata line, and so is nothing else that lacks a type', () => {
    expect(detectFormat(JSON.parse(text.split('\n')[0]!))).toBe('codex');
    expect(detectFormat({ id: 'x' })).toBe('wire');
    expect(detectFormat({ record_type: 'state', id: 'x', timestamp: 't' })).toBe('wire');
    expect(convert(text, { from: 'codex' }).snapshots).toEqual(first.snapshots);
  });

  it("the session's metadata comes from the first line: id, start, the AGENTS.md instructions (its copy in the history not counted twice)", () => {
    expect(first.errors).toEqual([]);
    expect(first.header).toEqual({
      type: 'session',
      session_id: '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0',
      title: 'The tally command counts blank lines as words;…',
      source: 'codex',
      started_at: '2025-07-14T16:20:05.118Z',
    });
    expect(spanOf(first.snapshots[0]!, INSTRUCTIONS_SPAN_ID)).toMatchObject({ text: 'Always run `cargo fmt` before you finish.', pinned: true });
  });

  it('one turn per assistant message, seeing what came before the run of items its call produced; tokens estimated (no usage in the format)', () => {
    expect(first.snapshots.map((s) => s.turn)).toEqual([1, 2]);
    // turn 1: the call that wrote line 13 saw the tool outputs before it (an output ends a run of produced items)
    expect(ids(first.snapshots[0]!)).toEqual([INSTRUCTIONS_SPAN_ID, 'line4', 'line5', 'line7', 'line8', 'line9', 'line11', 'line12']);
    expect(ids(first.snapshots[1]!)).toEqual([
      INSTRUCTIONS_SPAN_ID,
      ...['line4', 'line5', 'line7', 'line8', 'line9', 'line11', 'line12', 'line13', 'line15', 'line16', 'line17'],
    ]);
    for (const s of first.snapshots) for (const span of s.spans) expect(span.tokens).toBeUndefined();
    expect(spanOf(first.snapshots[1]!, 'line12')).toMatchObject({ role: 'tool', label: 'result of apply_patch src/count.rs' });
    expect(spanOf(first.snapshots[1]!, 'line15')).toMatchObject({ role: 'user', text: 'Good. Put the test in tests/count.rs.' });
  });

  it('state lines and unknown items are counted, never input errors', () => {
    expect(first.summary).toEqual({
      format: 'codex',
      skipped: { 'record_type:state': 5, 'response_item:message (the session instructions again)': 1, 'response_item:other': 1 },
    });
  });

  it('the unchanged engine accepts every message', () => {
    const engine = new Engine({ sha256 });
    const kinds = first.messages.map((m) => engine.ingestParsedLine(m.value, m.line, false).kind);
    expect(kinds).toEqual(['header', 'turn', 'turn']);
  });
});

// test/fixtures/adapters/codex-encrypted-compaction.jsonl (provenance beside it): two remote
// compactions whose summaries are encrypted `compaction` items (compact_remote.rs)
describe('Codex CLI adapter, an encrypted compaction summary (contract §8.4 unknown)', () => {
  const enc = convert(read('codex-encrypted-compaction.jsonl'));
  const marks = enc.snapshots.filter((s) => s.compaction !== undefined);
  type Mark = { summary: string[]; summary_state?: string; items: { kind: string; text: string; status: string }[]; carried: { status: string }[] };
  const mark = (s: Snapshot): Mark => s.compaction as Mark;

  it('the encrypted item is the summary, each compaction its own (two ciphertexts, one placeholder text), and the mark says it is encrypted', () => {
    expect(marks.map((s) => s.turn)).toEqual([5, 7]);
    expect(marks.map((s) => mark(s).summary)).toEqual([['line15/1'], ['line22/1']]);
    expect(marks.map((s) => mark(s).summary_state)).toEqual(['encrypted', 'encrypted']);
    expect(spanOf(marks[0]!, 'line15/1')).toMatchObject({ role: 'summary', kind: 'compaction', text: '[encrypted compaction summary]' });
  });

  it('an item the clear text does not hold is unknown, never lost; one the kept messages hold in clear is kept', () => {
    const items = mark(marks[0]!).items;
    expect(items.map((i) => [i.kind, i.text, i.status])).toEqual([
      ['user_prompt', 'Split the ledger importer into a parser and a writer, keeping the CSV column order', 'unknown'],
      ['file', 'src/import/parser.rs', 'unknown'],
      ['file', 'src/import/writer.rs', 'unknown'],
      ['user_prompt', 'Now make the writer flush every hundred rows', 'kept'],
    ]);
    for (const s of marks) for (const it of [...mark(s).items, ...mark(s).carried]) expect(it.status).not.toBe('lost');
  });

  it('a restated prompt after it is still reported as a refetch', () => {
    expect(enc.snapshots.find((s) => s.turn === 6)?.refetched).toEqual([
      { compaction_turn: 5, kind: 'user_prompt', text: 'Split the ledger importer into a parser and a writer, keeping the CSV column order', turn: 6 },
    ]);
  });

  it('the engine records it: summary_state, unknown in items and retention; a refetched unknown item is not a confirmed loss, so no compaction_loss', () => {
    const engine = new Engine({ sha256 });
    const signals: string[] = [];
    for (const m of enc.messages) {
      const o = engine.ingestParsedLine(m.value, m.line, false);
      if (o.kind === 'turn') for (const f of o.result.findings) signals.push(f.signal);
    }
    const records = engine.analysis('019b0a1c-7e2f-7d31-9c44-5a6b7c8d9e0f')!.compactions.records;
    expect(records.map((r) => r.summary_state)).toEqual(['encrypted', 'encrypted']);
    expect(records[0]!.retention).toEqual({
      user_prompt: { items: 2, kept: 1, paraphrased: 0, lost: 0, confirmed: 0, unknown: 1 },
      file: { items: 2, kept: 0, paraphrased: 0, lost: 0, confirmed: 0, unknown: 2 },
    });
    expect(records[0]!.items[0]).toMatchObject({ status: 'unknown', refetched_at: 6, confirmed: false });
    expect(signals.filter((s) => s.startsWith('compaction'))).toEqual(['compaction', 'compaction']);
  });
});

describe('Codex: apply_patch run through the shell tool (older CLIs)', () => {
  it('is labelled by its files, and its files are audit items (contract §8.4 file)', () => {
    const line = (type: string, payload: unknown): string => JSON.stringify({ timestamp: '2025-09-01T10:00:00.000Z', type, payload });
    const count = (n: number): string =>
      line('event_msg', {
        type: 'token_count',
        info: { total_token_usage: { input_tokens: n }, last_token_usage: { input_tokens: n }, model_context_window: 272000 },
      });
    const patch = '*** Begin Patch\n*** Update File: src/count.rs\n@@\n-a\n+b\n*** End Patch\n';
    const r = convert(
      [
        line('session_meta', { id: 'sp', timestamp: '2025-09-01T10:00:00.000Z', cwd: '/w' }),
        line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix the count.' }] }),
        count(100),
        line('response_item', { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['apply_patch', patch] }), call_id: 'c1' }),
        line('response_item', { type: 'function_call_output', call_id: 'c1', output: 'Success.' }),
        count(200),
        line('compacted', { message: 'The user asked to fix the count.' }),
        count(50),
      ].join('\n'),
    );
    expect(spanOf(r.snapshots[1]!, 'line4')!.label).toBe('apply_patch src/count.rs');
    const items = (r.snapshots[2]!.compaction as { items: { kind: string; text: string; status: string }[] }).items;
    expect(items.filter((i) => i.kind === 'file')).toEqual([expect.objectContaining({ text: 'src/count.rs', status: 'lost' })]);
  });
});

describe('Codex 0.14x line and item types (docs/adapters.md, record table)', () => {
  let n = 0;
  const at = (): string => new Date(Date.UTC(2026, 4, 2, 8, 0, n++)).toISOString();
  const line = (type: string, payload: object): string => JSON.stringify({ timestamp: at(), type, payload });
  const item = (payload: object): string => line('response_item', payload);
  const user = (text: string): string => item({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
  let total = 0;
  const call = (): string => {
    total += 200;
    const usage = { input_tokens: total, cached_input_tokens: 0, output_tokens: 7, reasoning_output_tokens: 0, total_tokens: total + 7 };
    return line('event_msg', {
      type: 'token_count',
      info: { total_token_usage: { ...usage, input_tokens: total * 3 }, last_token_usage: usage, model_context_window: 272000 },
    });
  };
  const meta = (): string => line('session_meta', { id: 'ws-1', timestamp: at(), cwd: '/work/orchard' });
  const spansOf = (lines: string[]): Span[][] => convert(lines.join('\n')).snapshots.map((s) => s.spans);

  it('world_state is comparison state, not context: skipped by name; the message it rendered is the span', () => {
    const out = convert(
      [
        meta(),
        line('world_state', { full: true, state: { environment: { cwd: '/work/orchard', shell: 'zsh' } } }),
        user('<environment_context>\n  <cwd>/work/orchard</cwd>\n  <shell>zsh</shell>\n</environment_context>'),
        user('Prune the dead branches of the pear tree.'),
        line('world_state', { full: false, state: { environment: { shell: 'bash' } } }),
        call(),
      ].join('\n'),
    );
    expect(out.errors).toEqual([]);
    expect(out.summary.skipped).toEqual({ 'world_state (comparison state, not sent to the model)': 2 });
    expect(out.snapshots[0]!.spans.map((s) => [s.role, s.label])).toEqual([
      ['meta', 'environment context'],
      ['user', 'Prune the dead branches of the pear tree.'],
    ]);
  });

  it('tool search: the call is a tool use, its output (the tool definitions it loaded) a tool result named after it', () => {
    const spans = spansOf([
      meta(),
      user('Which tools can read the orchard sensors?'),
      item({ type: 'tool_search_call', call_id: 'ts_1', status: 'completed', execution: 'client', arguments: { query: 'orchard sensors' } }),
      item({
        type: 'tool_search_output',
        call_id: 'ts_1',
        status: 'completed',
        execution: 'client',
        tools: [{ type: 'function', name: 'read_soil_moisture' }],
      }),
      call(),
    ])[0]!;
    expect(spans.map((s) => [s.role, s.kind, s.label, s.tool])).toEqual([
      ['user', 'text', 'Which tools can read the orchard sensors?', undefined],
      ['assistant', 'tool_use', 'tool search: orchard sensors', 'tool_search'],
      ['tool', 'tool_result', 'result of tool search: orchard sensors', 'tool_search'],
    ]);
    expect(spans[1]!.text).toBe('tool_search {"query":"orchard sensors"}');
    expect(spans[2]!.text).toBe('[{"type":"function","name":"read_soil_moisture"}]');
  });

  it('additional_tools (tool definitions Codex sends as an input item, which current rollouts keep) is a system span, not skipped', () => {
    const out = convert(
      [
        meta(),
        item({
          type: 'additional_tools',
          role: 'developer',
          tools: [
            { type: 'function', name: 'water_rows', parameters: { type: 'object' } },
            { type: 'namespace', name: 'mcp__weather', tools: [{ type: 'function', name: 'forecast' }] },
          ],
        }),
        user('Water rows 2 and 3 before the frost.'),
        call(),
      ].join('\n'),
    );
    expect(out.summary.skipped).toEqual({});
    const spans = out.snapshots[0]!.spans;
    expect(spans.map((s) => [s.role, s.kind, s.label])).toEqual([
      ['system', 'tools', 'tool definitions: water_rows, mcp__weather'],
      ['user', 'text', 'Water rows 2 and 3 before the frost.'],
    ]);
    expect(spans[0]!.text).toContain('"name":"forecast"');
    expect(spans[0]!.pinned).toBeUndefined();
  });

  it('the image-generation note and the time reminder Codex writes untagged are not pinned operator instructions', () => {
    const spans = spansOf([
      meta(),
      item({
        type: 'message',
        role: 'developer',
        content: [{ type: 'input_text', text: 'Generated images are saved to /work/orchard/.codex/images as ig_<id>.png by default.' }],
      }),
      item({ type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'It is 2026-11-24 08:15:00 UTC.' }] }),
      item({ type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'It is the orchard team that owns this repo.' }] }),
      user('Draw the new row layout.'),
      call(),
    ])[0]!;
    expect(spans.map((s) => [s.role, s.label, s.pinned ?? false])).toEqual([
      ['system', 'image generation instructions', false],
      ['system', 'current time', false],
      ['system', 'developer instructions', true],
      ['user', 'Draw the new row layout.', true],
    ]);
  });

  it('user messages Codex writes itself (a hook prompt, its internal context, older warnings) are meta, never prompts', () => {
    const out = convert(
      [
        meta(),
        user('Graft the apple scions onto row 6.'),
        user('<hook_prompt hook_run_id="stop-3a9">The grafts are not taped yet; finish before stopping.</hook_prompt>'),
        user('<codex_internal_context source="user_goal">Every scion in row 6 is grafted.</codex_internal_context>'),
        user('Warning: apply_patch was requested via exec_command. Use the apply_patch tool instead of exec_command.'),
        user('Warning: The maximum number of unified exec processes you can keep open is 64.'),
        // what the user typed stays a prompt, whatever tag it opens with
        user('<div class="row">6</div> is the markup of the row page; fix its label.'),
        call(),
      ].join('\n'),
    );
    expect(out.snapshots[0]!.spans.map((s) => [s.role, s.label])).toEqual([
      ['user', 'Graft the apple scions onto row 6.'],
      ['meta', 'hook prompt'],
      ['meta', 'codex internal context'],
      ['meta', 'warning'],
      ['meta', 'warning'],
      ['user', '<div class="row">6</div> is the markup of the row page;…'],
    ]);
  });

  it('image generation: the call stays in the history, its base64 result read as [image]', () => {
    const out = convert(
      [
        meta(),
        user('Draw the orchard at dawn.'),
        item({ type: 'image_generation_call', id: 'ig_1', status: 'completed', revised_prompt: 'An orchard of pear trees at dawn', result: 'iVBORw0KGgo=' }),
        call(),
        user('Now at dusk.'),
        call(),
      ].join('\n'),
    );
    const span = out.snapshots[1]!.spans[1]!;
    expect([span.role, span.kind, span.label, span.tool]).toEqual([
      'assistant',
      'tool_use',
      'image generation: An orchard of pear trees at dawn',
      'image_generation',
    ]);
    expect(span.text).toBe('image_generation {"revised_prompt":"An orchard of pear trees at dawn"}\n[image]');
    expect(span.text).not.toContain('iVBOR');
  });

  it('inter-agent messages are input from another agent, not prompts; one written both ways is counted once', () => {
    const out = convert(
      [
        meta(),
        line('inter_agent_communication', {
          author: '/root',
          recipient: '/root/pruner',
          other_recipients: [],
          content: 'Prune row 4 only.',
          trigger_turn: true,
        }),
        item({ type: 'agent_message', author: '/root', recipient: '/root/pruner', content: [{ type: 'input_text', text: 'Prune row 4 only.' }] }),
        line('inter_agent_communication_metadata', { trigger_turn: true }),
        line('inter_agent_communication', {
          author: '/root',
          recipient: '/root/pruner',
          other_recipients: [],
          content: '',
          encrypted_content: 'gAAAA-sealed',
          trigger_turn: false,
        }),
        call(),
      ].join('\n'),
    );
    expect(out.summary.skipped).toEqual({
      'response_item:agent_message (the inter-agent message again)': 1,
      'inter_agent_communication_metadata (not sent to the model)': 1,
    });
    const spans = out.snapshots[0]!.spans;
    expect(spans.map((s) => [s.role, s.label, s.pinned])).toEqual([
      ['user', 'message from /root', undefined],
      ['user', 'message from /root', undefined],
    ]);
    expect(spans[0]!.text).toBe('Prune row 4 only.');
    expect(spans[1]!.text).toBe('Message Type: MESSAGE\nTask name: /root/pruner\nSender: /root\nPayload:\n\n[encrypted message]');
    // not the operator's words: the title has no prompt
    expect(out.header.title).toBe('orchard');
  });

  it('context_compaction is an encrypted summary like compaction; request controls and settings are skipped by name', () => {
    const out = convert(
      [
        meta(),
        user('Plan the harvest.'),
        call(),
        item({ type: 'compaction_trigger' }),
        line('compacted', {
          message: '',
          replacement_history: [
            { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Plan the harvest.' }] },
            { type: 'context_compaction', encrypted_content: 'gAAAA-harvest-summary' },
          ],
        }),
        item({ type: 'configuration_update', reasoning: { effort: 'high' } }),
        call(),
      ].join('\n'),
    );
    expect(out.summary.skipped).toEqual({
      'response_item:compaction_trigger (a request control, not context)': 1,
      'response_item:configuration_update (a setting, not context)': 1,
    });
    const after = out.snapshots[1]!;
    expect(after.spans.map((s) => [s.role, s.kind, s.text])).toEqual([
      ['user', 'text', 'Plan the harvest.'],
      ['summary', 'compaction', '[encrypted compaction summary]'],
    ]);
    expect(after.compaction).toMatchObject({ summary_state: 'encrypted' });
  });

  it('token_usage_record, security_risk_score, realtime_item and retained_context are no model calls and no context', () => {
    const out = convert(
      [
        meta(),
        user('Count the pears.'),
        line('token_usage_record', { turn_id: 't1', response_id: 'resp_classifier', usage: { input_tokens: 50, output_tokens: 3, total_tokens: 53 } }),
        line('security_risk_score', { scores: { exfiltration: 0.01 } }),
        line('realtime_item', { id: 'rt_1', type: 'message', role: 'user', text: 'hello' }),
        line('retained_context', { type: 'verified_answer' }),
        call(),
      ].join('\n'),
    );
    expect(out.snapshots).toHaveLength(1);
    expect(out.snapshots[0]!.spans).toHaveLength(1);
    expect(out.summary.skipped).toEqual({
      'token_usage_record (the token counts are read)': 1,
      'security_risk_score (not sent to the model)': 1,
      'realtime_item (not sent to the model)': 1,
      'retained_context (not sent to the model)': 1,
    });
  });
});
