// docs/adapters.md "OpenHands", "V0 events": each mapping rule, on
// test/fixtures/adapters/openhands-v0-trajectory.json (a system message, the task, a recall,
// two parallel calls of one response, an edit, an error, a condensation by ids and one by a
// range, a refetch, finish) and openhands-v0-output.jsonl (an evaluation row of today's
// shape, its usage only in `metrics`, and one of 2024: `[action, observation]` pairs without
// tool_call_metadata), both written from OpenHands' serialization/event.py and
// tests/runtime/trajs (test/fixtures/adapters/README.md).
// eslint-disable-next-line no-restricted-imports -- the fixtures are read from disk
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SessionHeader, Snapshot } from '../../core/wire.ts';
import { detectFormat } from './detect.ts';
import { OpenHandsAdapter } from './openhands.ts';
import { TranscriptPipeline } from './pipeline.ts';

const dir = new URL('../../../test/fixtures/adapters/', import.meta.url);
const trajectory = JSON.parse(fs.readFileSync(new URL('openhands-v0-trajectory.json', dir), 'utf8')) as Record<string, unknown>[];
const rows = fs
  .readFileSync(new URL('openhands-v0-output.jsonl', dir), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Record<string, unknown>);

function adapt(records: unknown[]): { headers: SessionHeader[]; snapshots: Snapshot[]; adapter: OpenHandsAdapter } {
  const adapter = new OpenHandsAdapter('traj');
  const values = records.flatMap((r, i) => [...adapter.record(r, i + 1)]).map((m) => m.value);
  return {
    headers: values.filter((v) => v.type === 'session') as SessionHeader[],
    snapshots: values.filter((v) => v.type === 'snapshot') as Snapshot[],
    adapter,
  };
}

const ids = (s: Snapshot): string[] => s.spans.map((sp) => sp.span_id);

describe('telling V0 events', () => {
  it('an event (action or observation, source, id), an evaluation row and a 2024 row of pairs', () => {
    expect(detectFormat(trajectory[0])).toBe('openhands');
    expect(detectFormat({ id: 3, source: 'environment', observation: 'agent_state_changed', content: '' })).toBe('openhands');
    expect(detectFormat(rows[0])).toBe('openhands');
    expect(detectFormat(rows[1])).toBe('openhands');
    // a SWE-agent step has action and observation strings but no source: not an OpenHands event
    expect(detectFormat({ action: 'ls', observation: 'a.py', thought: 'look' })).toBe('wire');
    expect(detectFormat({ action: 'run', source: 'robot', id: 1 })).toBe('wire');
  });

  it('the array and JSON Lines read alike', () => {
    const viaLines: unknown[] = [];
    const p = new TranscriptPipeline({ text: () => undefined, value: (v) => viaLines.push(v), error: () => undefined }, { fallbackSessionId: 'traj' });
    trajectory.forEach((e, i) => p.line(JSON.stringify(e), i + 1));
    p.end();
    const direct = adapt(trajectory);
    expect(viaLines).toEqual([...direct.headers, ...direct.snapshots]);
  });
});

describe('a V0 trajectory with tool_call_metadata (openhands-v0-trajectory.json)', () => {
  const { headers, snapshots, adapter } = adapt(trajectory);

  it('one turn per distinct model_response.id: the two parallel calls of one response are one turn', () => {
    expect(snapshots.map((s) => s.turn)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(headers).toEqual([
      {
        type: 'session',
        session_id: 'traj',
        title: expect.stringMatching(/^The date parser in \/workspace\/calendar swaps month and day/) as string,
        source: 'openhands',
        context_window: 200000,
      },
    ]);
  });

  it('tokens_total is the response’s usage.prompt_tokens, exactly', () => {
    const totals = snapshots.map((s) => s.spans.reduce((a, sp) => a + (sp.tokens ?? 0), 0));
    expect(totals).toEqual([1210, 1530, 1720, 980, 870, 960]);
    expect(snapshots[0]!.model).toBe('claude-sonnet-4-20250514');
  });

  it('a call sees every event before it; state events and the recall action are skipped by kind', () => {
    expect(ids(snapshots[0]!)).toEqual(['0', '0#tools', '1', '4']);
    expect(ids(snapshots[1]!)).toEqual(['0', '0#tools', '1', '4', '5#thought', '5', '6', '7', '8']);
    expect(adapter.skipped.toRecord()).toEqual({
      'agent_state_changed observation (not sent to the model)': 2,
      'recall action (not sent to the model)': 1,
    });
  });

  it('spans: the system prompt and the task pinned, the call as the model wrote it, results labelled by their cause', () => {
    const spans = snapshots[1]!.spans;
    const by = (id: string): object => spans.find((s) => s.span_id === id)!;
    expect(by('0')).toMatchObject({ role: 'system', kind: 'instructions', pinned: true });
    expect(by('0#tools')).toMatchObject({ kind: 'tools', label: 'tool definitions (2)' });
    expect(by('1')).toMatchObject({ role: 'user', pinned: true });
    expect(by('4')).toMatchObject({ role: 'user', kind: 'recall', text: 'Run the tests with make test.' });
    expect(by('5')).toMatchObject({
      role: 'assistant',
      kind: 'tool_use',
      tool: 'execute_bash',
      label: 'shell: ls /workspace/calendar',
      text: 'execute_bash {"command": "ls /workspace/calendar"}',
    });
    expect(by('7')).toMatchObject({ tool: 'str_replace_editor', label: 'view /workspace/calendar/parser.py' });
    expect(by('8')).toMatchObject({ role: 'tool', kind: 'tool_result', label: 'result of view /workspace/calendar/parser.py' });
    expect(snapshots[3]!.spans.find((s) => s.span_id === '12')).toMatchObject({
      role: 'tool',
      label: 'error from shell: python -m pytest -q tests/test_parser.py',
    });
  });

  it('a condensation by forgotten_event_ids: one compaction, its summary at summary_offset, audited', () => {
    const s = snapshots[3]!;
    expect(ids(s)).toEqual(['0', '0#tools', '1', '13-summary', '4', '9#thought', '9', '10', '11', '12']);
    expect(s.pruned).toEqual(['5#thought', '5', '6', '7', '8']);
    expect(s.archived).toEqual(s.pruned);
    expect(s.compaction).toMatchObject({ kind: 'compact', trigger: 'condenser', pre_tokens: null, replaced: s.pruned, summary: ['13-summary'] });
    expect(s.spans.find((sp) => sp.span_id === '13-summary')).toMatchObject({ role: 'summary', derived_from: s.pruned });
    const items = (s.compaction as { items: { kind: string; text: string; status: string }[] }).items;
    expect(items.map((i) => [i.kind, i.text, i.status])).toEqual([
      ['command', 'ls /workspace/calendar', 'lost'],
      ['file', '/workspace/calendar/parser.py', 'kept'],
    ]);
  });

  it('a condensation by a start..end range: every id in it forgotten, the earlier summary replaced by the new one', () => {
    const s = snapshots[4]!;
    expect(s.pruned).toEqual(['13-summary', '9#thought', '9', '10', '11', '12']);
    expect(ids(s)).toEqual(['0', '0#tools', '1', '16-summary', '4', '14#thought', '14', '15']);
    const items = (s.compaction as { items: { kind: string; text: string; status: string }[] }).items;
    expect(items.map((i) => [i.kind, i.text, i.status])).toEqual([
      ['file', '/workspace/calendar/parser.py', 'kept'],
      ['command', 'python -m pytest -q tests/test_parser.py', 'lost'],
      ['error', '/usr/bin/python: No module named pytest', 'lost'],
    ]);
    // the read of the audited path at turn 5 is its refetch, reported on the next snapshot
    expect(snapshots[5]!.refetched).toEqual([{ compaction_turn: 5, kind: 'file', text: '/workspace/calendar/parser.py', turn: 5 }]);
  });
});

describe('older V0 events, without tool_call_metadata', () => {
  const events = [
    { id: 0, timestamp: '2024-08-01T09:00:00', source: 'user', message: '', action: 'message', args: { content: 'Count the lines of a.txt', images_urls: [] } },
    { id: 1, timestamp: '2024-08-01T09:00:05', source: 'agent', message: '', action: 'run', args: { command: 'wc -l a.txt', thought: 'Use wc.' } },
    { id: 2, timestamp: '2024-08-01T09:00:06', source: 'agent', message: '', cause: 1, observation: 'run', content: '3 a.txt', extras: { exit_code: 0 } },
    { id: 3, timestamp: '2024-08-01T09:00:09', source: 'agent', message: '', action: 'run', args: { command: 'cat a.txt', thought: '' } },
    { id: 4, timestamp: '2024-08-01T09:00:10', source: 'agent', message: '', cause: 3, observation: 'run', content: 'x\ny\nz', extras: {} },
    { id: 5, timestamp: '2024-08-01T09:00:12', source: 'agent', message: '', action: 'message', args: { content: 'It has 3 lines.', wait_for_response: true } },
  ];

  it('each agent action is a call of its own, its tokens estimated', () => {
    const { snapshots } = adapt(events);
    expect(snapshots.map(ids)).toEqual([['0'], ['0', '1#thought', '1', '2'], ['0', '1#thought', '1', '2', '3', '4']]);
    expect(snapshots.every((s) => s.spans.every((sp) => sp.tokens === undefined))).toBe(true);
    expect(snapshots[1]!.spans[2]).toMatchObject({ text: 'run wc -l a.txt', label: 'shell: wc -l a.txt' });
    expect(snapshots[2]!.ts).toBe('2024-08-01T09:00:12');
  });
});

describe('evaluation output.jsonl rows (openhands-v0-output.jsonl)', () => {
  const { headers, snapshots, adapter } = adapt(rows);

  it('each row is a session of its own, named by its instance_id', () => {
    expect(headers.map((h) => [h.session_id, h.title])).toEqual([
      ['acme__text-101', 'Make the slugify helper keep digits.'],
      ['acme__text-102', 'Add a --verbose flag to the CLI.'],
    ]);
    expect(snapshots.map((s) => [s.session_id, s.turn])).toEqual([
      ['acme__text-101', 1],
      ['acme__text-101', 2],
      ['acme__text-102', 1],
      ['acme__text-102', 2],
    ]);
    expect(adapter.turns).toBe(4);
  });

  it('a call without usage in its model_response takes it from the row’s metrics.token_usages by response id', () => {
    expect(snapshots[0]!.spans.reduce((a, sp) => a + (sp.tokens ?? 0), 0)).toBe(2048);
    expect(headers[0]!.context_window).toBe(200000);
    // the agent's closing message has no response id in V0: estimated
    expect(snapshots[1]!.spans.every((sp) => sp.tokens === undefined)).toBe(true);
  });

  it('the 2024 [action, observation] pairs are read in order; their null observations skipped', () => {
    expect(ids(snapshots[3]!)).toEqual(['0', '1#thought', '1', '2']);
    expect(adapter.skipped.toRecord()).toEqual({ 'null observation (not sent to the model)': 2 });
  });

  it('an instance run twice in one file gets a second session, not a clash', () => {
    const twice = adapt([rows[0], rows[0]]);
    expect(twice.headers.map((h) => h.session_id)).toEqual(['acme__text-101', 'acme__text-101#2']);
  });
});
