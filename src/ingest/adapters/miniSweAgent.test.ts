// docs/adapters.md "mini-swe-agent": each mapping rule, on the synthetic fixture
// test/fixtures/adapters/mini-swe-agent.traj.json (pretty-printed, mini-swe-agent 1.x: text
// actions in ```bash blocks, observations as user messages, usage in extra.response) and on
// documents written here in the 2.x shapes (tool calls, the Responses API, format errors).
// eslint-disable-next-line no-restricted-imports -- the fixtures are read from disk
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Span } from '../../core/wire.ts';
import { detectFormat } from './detect.ts';
import { TranscriptPipeline, type PipelineOptions } from './pipeline.ts';
import { convertText } from './convert.testing.ts';

const read = (name: string): string => fs.readFileSync(new URL(`../../../test/fixtures/adapters/${name}`, import.meta.url), 'utf8');

const convert = (text: string, options: PipelineOptions = {}) => convertText(text, { fallbackSessionId: 'run', ...options });

const view = (s: Span) => [s.span_id, s.role, s.kind, s.label, s.pinned === true];
const FIXTURE = read('mini-swe-agent.traj.json');
const pretty = convert(FIXTURE);

describe('mini-swe-agent adapter (docs/adapters.md "mini-swe-agent")', () => {
  it('a pretty-printed .traj.json is told by content and streamed; the header names the agent and the task', () => {
    expect(pretty.summary).toEqual({ format: 'swe-agent', skipped: {} });
    expect(pretty.texts).toEqual([]);
    expect(pretty.errors).toEqual([]);
    expect(pretty.values[0]).toEqual({
      type: 'session',
      session_id: 'run',
      title: 'Please solve this issue: the invoice tool rounds totals of 0.005 down instead…',
      source: 'mini-swe-agent',
    });
  });

  it('one turn per assistant message; its spans every message before it, ids m<index> stable across turns', () => {
    expect(pretty.snapshots.map((s) => [s.turn, s.spans.map((x) => x.span_id).join(' ')])).toEqual([
      [1, 'm0 m1'],
      [2, 'm0 m1 m2 m3'],
      [3, 'm0 m1 m2 m3 m4 m5'],
      [4, 'm0 m1 m2 m3 m4 m5 m6 m7'],
    ]);
    // the same message, the same text, in every turn that saw it
    expect(pretty.snapshots[3]!.spans[2]!.text).toBe(pretty.snapshots[1]!.spans[2]!.text);
  });

  it('roles, kinds, pins and labels: system and task pinned, an action by its bash block, an observation by what it is the output of', () => {
    expect(pretty.snapshots[3]!.spans.map(view)).toEqual([
      ['m0', 'system', 'system_prompt', 'system prompt', true],
      ['m1', 'user', 'task', 'task: Please solve this issue: the invoice tool rounds…', true],
      ['m2', 'assistant', 'action', 'action: grep -rn round /repo/invoice', false],
      ['m3', 'tool', 'observation', 'output of grep -rn round /repo/invoice', false],
      // two blocks: no action was run (mini-swe-agent's format error), so the reply after it is no output of one
      ['m4', 'assistant', 'action', 'assistant: THOUGHT: Two ideas. ```bash cat…', false],
      ['m5', 'tool', 'observation', 'user: Please always provide EXACTLY ONE action in…', false],
      ['m6', 'assistant', 'action', "action: sed -i 's/round(amount, 2)/quantize_half_up(amoun…", false],
      ['m7', 'tool', 'observation', "output of sed -i 's/round(amount, 2)/quantize_half_up(amoun…", false],
    ]);
  });

  it('tokens_total is the call’s prompt_tokens from extra.response.usage, exactly; a call without usage is estimated; model from the response', () => {
    const totals = pretty.snapshots.map((s) => (s.spans.every((x) => typeof x.tokens === 'number') ? s.spans.reduce((a, x) => a + x.tokens!, 0) : null));
    expect(totals).toEqual([120, 190, 260, null]);
    expect(pretty.snapshots[3]!.spans.some((x) => x.tokens !== undefined)).toBe(false);
    expect(pretty.snapshots.map((s) => s.model ?? null)).toEqual(['acme/coder-7', 'acme/coder-7', 'acme/coder-7', null]);
  });

  it('the same document on one line gives the same messages (read parsed, not streamed)', () => {
    const line = convert(JSON.stringify(JSON.parse(FIXTURE)));
    expect(line.summary).toEqual(pretty.summary);
    expect(line.values).toEqual(pretty.values);
  });

  it('told by trajectory_format or info.mini_version with a messages array; a document of neither is not one', () => {
    expect(detectFormat({ messages: [], trajectory_format: 'mini-swe-agent-1.1' })).toBe('swe-agent');
    expect(detectFormat({ info: { mini_version: '1.0.0' }, messages: [{ role: 'system', content: 'x' }] })).toBe('swe-agent');
    expect(detectFormat({ messages: [{ role: 'user', content: 'x' }] })).toBe('wire');
    expect(detectFormat({ info: { mini_version: '1.0.0' } })).toBe('wire');
  });

  it('a document whose messages come before any mini-swe-agent member is held and read whole at its end', () => {
    const doc = JSON.parse(FIXTURE) as Record<string, unknown>;
    const reordered = { messages: doc.messages, info: { model_stats: {} }, trajectory_format: 'mini-swe-agent-1' };
    const out = convert(JSON.stringify(reordered, null, 2));
    expect(out.summary).toEqual({ format: 'swe-agent', skipped: {} });
    expect(out.snapshots.map((s) => s.spans.length)).toEqual([2, 4, 6, 8]);
  });
});

describe('mini-swe-agent 2.x documents', () => {
  const usage = (n: number) => ({
    response: { model: 'acme/coder-8', usage: { prompt_tokens: n } },
    actions: [] as unknown[],
    cost: 0.01,
    timestamp: 1_767_225_600,
  });
  const toolcall = {
    info: { mini_version: '2.2.0', model_stats: { instance_cost: 0.02, api_calls: 3 }, exit_status: 'Submitted', submission: '' },
    messages: [
      { role: 'system', content: 'You run shell commands through the bash tool.' },
      { role: 'user', content: [{ type: 'text', text: 'Make the tests in /work pass.' }] },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'bash', arguments: '{"command": "ls /work"}' } },
          { id: 'call_b', type: 'function', function: { name: 'bash', arguments: '{"command": "pytest -q /work"}' } },
        ],
        extra: {
          ...usage(300),
          actions: [
            { command: 'ls /work', tool_call_id: 'call_a' },
            { command: 'pytest -q /work', tool_call_id: 'call_b' },
          ],
        },
      },
      { role: 'tool', tool_call_id: 'call_b', content: '2 failed', extra: { returncode: 1 } },
      { role: 'tool', tool_call_id: 'call_a', content: 'a.py test_a.py', extra: { returncode: 0 } },
      // the call that failed to parse: its answer is not kept, the error that says so carries it
      { role: 'user', content: 'No tool calls found in the response.', extra: { interrupt_type: 'FormatError', ...usage(420) } },
      { role: 'assistant', content: 'Fixing.', tool_calls: [], extra: usage(450) },
      { role: 'exit', content: 'Submitted', extra: { exit_status: 'Submitted', submission: '' } },
    ],
    trajectory_format: 'mini-swe-agent-1.1',
  };

  it('tool calls: each result labelled by its own call id; a format error with the failed answer is a call; the exit message is not context', () => {
    const out = convert(JSON.stringify(toolcall, null, 2));
    expect(out.summary).toEqual({ format: 'swe-agent', skipped: { 'exit message (not sent to the model)': 1 } });
    expect(out.snapshots.map((s) => s.spans.reduce((a, x) => a + (x.tokens ?? 0), 0))).toEqual([300, 420, 450]);
    expect(out.snapshots[2]!.spans.map(view)).toEqual([
      ['m0', 'system', 'system_prompt', 'system prompt', true],
      ['m1', 'user', 'task', 'task: Make the tests in /work pass.', true],
      ['m2', 'assistant', 'action', 'action: ls /work', false],
      ['m3', 'tool', 'observation', 'output of pytest -q /work', false],
      ['m4', 'tool', 'observation', 'output of ls /work', false],
      ['m5', 'tool', 'FormatError', 'FormatError: No tool calls found in the response.', false],
    ]);
    expect(out.snapshots[2]!.spans[2]!.text).toBe('bash {"command": "ls /work"}\nbash {"command": "pytest -q /work"}');
    expect(out.snapshots[0]!.ts).toBe('2026-01-01T00:00:00.000Z');
  });

  it('the Responses API: a response object is the call, its usage input_tokens the total; a function_call_output the observation', () => {
    const doc = {
      info: { mini_version: '2.2.0' },
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'Count the lines of notes.txt' },
        {
          object: 'response',
          model: 'acme/resp-1',
          usage: { input_tokens: 77, output_tokens: 9 },
          output: [
            { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Counting.' }] },
            { type: 'function_call', call_id: 'fc_1', name: 'bash', arguments: '{"command": "wc -l notes.txt"}' },
          ],
          extra: { actions: [{ command: 'wc -l notes.txt', tool_call_id: 'fc_1' }], cost: 0.001 },
        },
        { type: 'function_call_output', call_id: 'fc_1', output: '12 notes.txt', extra: { returncode: 0 } },
        { object: 'response', model: 'acme/resp-1', usage: { input_tokens: 101 }, output: [], extra: {} },
      ],
      trajectory_format: 'mini-swe-agent-1.1',
    };
    const out = convert(JSON.stringify(doc));
    expect(out.snapshots.map((s) => [s.turn, s.model, s.spans.reduce((a, x) => a + (x.tokens ?? 0), 0)])).toEqual([
      [1, 'acme/resp-1', 77],
      [2, 'acme/resp-1', 101],
    ]);
    expect(out.snapshots[1]!.spans.slice(2).map((s) => [s.label, s.text])).toEqual([
      ['action: wc -l notes.txt', 'Counting.\nbash {"command": "wc -l notes.txt"}'],
      ['output of wc -l notes.txt', '12 notes.txt'],
    ]);
  });

  it('a document with no model call is a session header alone; messages not objects or without a role are counted', () => {
    const out = convert(JSON.stringify({ info: { mini_version: '2.0.0' }, messages: [{ role: 'system', content: 's' }, 7, { content: 'no role' }] }));
    expect(out.snapshots).toEqual([]);
    expect(out.values).toEqual([{ type: 'session', session_id: 'run', title: 'mini-swe-agent trajectory run', source: 'mini-swe-agent' }]);
    expect(out.summary.skipped).toEqual({ 'message not an object': 1, 'message without role': 1 });
  });

  it('--from swe-agent reads it too; with no file name the session is called mini-swe-agent', () => {
    const values: Record<string, unknown>[] = [];
    const p = new TranscriptPipeline(
      { text: () => undefined, value: (v) => values.push(v as Record<string, unknown>), error: () => undefined },
      { from: 'swe-agent' },
    );
    p.line(JSON.stringify(toolcall), 1);
    p.end();
    expect(values[0]).toMatchObject({ type: 'session', session_id: 'mini-swe-agent', source: 'mini-swe-agent' });
    expect(values.filter((v) => v.type === 'snapshot')).toHaveLength(3);
  });
});

// test/fixtures/adapters/mini-swe-agent-v1.0.traj.json: the shape save_traj wrote before
// trajectory_format (#330) and mini_version (#362), mini-swe-agent 1.0 to 1.3 (July 2025):
// info {exit_status, submission, model_stats {instance_cost, api_calls}}, messages of
// {role, content} only, instance_id after them (a batch run)
describe('mini-swe-agent before 1.5 (no trajectory_format, no mini_version)', () => {
  const EARLY = read('mini-swe-agent-v1.0.traj.json');
  const early = convert(EARLY);

  it('a pretty-printed file is told by its info and streamed: one turn per assistant message, every message before it', () => {
    expect(early.summary).toEqual({ format: 'swe-agent', skipped: {} });
    expect(early.errors).toEqual([]);
    expect(early.texts).toEqual([]);
    expect(early.values[0]).toEqual({
      type: 'session',
      session_id: 'run',
      title: '<pr_description> Consider the following PR description: The ledger export…',
      source: 'mini-swe-agent',
    });
    // as many turns as info.model_stats.api_calls
    expect(early.snapshots.map((s) => [s.turn, s.spans.length])).toEqual([
      [1, 2],
      [2, 4],
      [3, 6],
      [4, 8],
    ]);
    expect(early.snapshots[3]!.spans.map(view)).toEqual([
      ['m0', 'system', 'system_prompt', 'system prompt', true],
      ['m1', 'user', 'task', 'task: <pr_description> Consider the following PR…', true],
      ['m2', 'assistant', 'action', 'action: grep -rn strftime /testbed/ledger', false],
      ['m3', 'tool', 'observation', 'output of grep -rn strftime /testbed/ledger', false],
      ['m4', 'assistant', 'action', 'assistant: THOUGHT: I will switch the format to ISO.…', false],
      ['m5', 'tool', 'observation', 'user: Please always provide EXACTLY ONE action in…', false],
      ['m6', 'assistant', 'action', "action: sed -i 's#%m/%d/%Y#%Y-%m-%d#'…", false],
      ['m7', 'tool', 'observation', "output of sed -i 's#%m/%d/%Y#%Y-%m-%d#'…", false],
    ]);
    // no response was saved: every call is estimated, none names a model or a time
    expect(early.snapshots.some((s) => s.spans.some((x) => x.tokens !== undefined) || s.model !== undefined || s.ts !== undefined)).toBe(false);
  });

  it('the same document on one line gives the same messages', () => {
    const line = convert(JSON.stringify(JSON.parse(EARLY)));
    expect(line.summary).toEqual(early.summary);
    expect(line.values).toEqual(early.values);
  });

  it('told by an info of exactly that shape with a messages array; SWE-agent’s info (tokens_sent) or a partial one is not', () => {
    const info = { exit_status: 'Submitted', submission: '', model_stats: { instance_cost: 0, api_calls: 0 } };
    const messages = [{ role: 'system', content: 'x' }];
    expect(detectFormat({ info, messages })).toBe('swe-agent');
    // the error path writes nulls (save_traj's defaults), with no messages when the agent was never made
    expect(detectFormat({ info: { ...info, exit_status: null, submission: null }, messages: [] })).toBe('swe-agent');
    expect(detectFormat({ info: { ...info, model_stats: { ...info.model_stats, tokens_sent: 10 } }, messages })).toBe('wire');
    expect(detectFormat({ info: { exit_status: 'Submitted', submission: '' }, messages })).toBe('wire');
    expect(detectFormat({ info: { ...info, exit_status: 3 }, messages })).toBe('wire');
    expect(detectFormat({ info })).toBe('wire');
  });

  it('an early info after the messages (never written so) is held and read whole at the end', () => {
    const doc = JSON.parse(EARLY) as Record<string, unknown>;
    const out = convert(JSON.stringify({ messages: doc.messages, info: doc.info }, null, 2));
    expect(out.summary).toEqual({ format: 'swe-agent', skipped: {} });
    expect(out.values).toEqual(early.values);
  });
});
