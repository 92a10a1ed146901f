// docs/adapters.md "OpenHands": each mapping rule, on test/fixtures/adapters/openhands-events.json
// (every event kind the SDK persists that the adapter maps or counts: SystemPromptEvent,
// MessageEvent of the user and the agent, ActionEvent alone and two of one response,
// ObservationEvent, an error observation, AgentErrorEvent, UserRejectObservation,
// CondensationRequest, Condensation with summary and offset, ConversationStateUpdateEvent),
// written from openhands-sdk event/* (test/fixtures/adapters/README.md).
// eslint-disable-next-line no-restricted-imports -- the fixtures are read from disk
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SessionHeader, Snapshot } from '../../core/wire.ts';
import { detectFormat } from './detect.ts';
import { OpenHandsAdapter } from './openhands.ts';
import { TranscriptPipeline } from './pipeline.ts';

const dir = new URL('../../../test/fixtures/adapters/', import.meta.url);
const events = JSON.parse(fs.readFileSync(new URL('openhands-events.json', dir), 'utf8')) as Record<string, unknown>[];
const conversation = new URL('openhands-conversation/7d1e9f20a3b44c5d8e6f7a8b9c0d1e2f/', dir);
const state = JSON.parse(fs.readFileSync(new URL('base_state.json', conversation), 'utf8')) as unknown;

function adapt(records: unknown[]): { header: SessionHeader; snapshots: Snapshot[]; adapter: OpenHandsAdapter } {
  const adapter = new OpenHandsAdapter('conv');
  const values = records.flatMap((r, i) => [...adapter.record(r, i + 1)]).map((m) => m.value);
  return { header: values.find((v) => v.type === 'session') as SessionHeader, snapshots: values.filter((v) => v.type === 'snapshot') as Snapshot[], adapter };
}

const agentResponses = [
  ...new Set(events.filter((e) => e.source === 'agent' && typeof e.llm_response_id === 'string').map((e) => e.llm_response_id as string)),
];

describe('telling an OpenHands conversation', () => {
  it('knows an event by its kind (the SDK class) and its source or id', () => {
    expect(detectFormat(events[0])).toBe('openhands');
    expect(detectFormat({ kind: 'ActionEvent', source: 'agent' })).toBe('openhands');
    expect(detectFormat({ kind: 'Something', source: 'agent' })).toBe('wire');
  });

  it('a JSON array and JSON Lines of the events read alike', () => {
    const viaLines: unknown[] = [];
    const p = new TranscriptPipeline({ text: () => undefined, value: (v) => viaLines.push(v), error: () => undefined }, { fallbackSessionId: 'conv' });
    events.forEach((e, i) => p.line(JSON.stringify(e), i + 1));
    p.end();
    const direct = adapt(events);
    expect(viaLines).toEqual([direct.header, ...direct.snapshots]);
  });
});

describe('the events (openhands-events.json)', () => {
  const { header, snapshots, adapter } = adapt(events);

  it('one turn per distinct llm_response_id of the agent; the condenser’s response is no turn', () => {
    expect(snapshots).toHaveLength(agentResponses.length);
    expect(agentResponses).not.toContain('chatcmpl-condenser-1');
    expect(header).toMatchObject({
      session_id: 'conv',
      source: 'openhands',
      title: expect.stringMatching(/^The \/workspace\/app\/utils\.py slugify\(\)/) as string,
    });
  });

  it('without usage every span is left to the engine’s estimate (no tokens)', () => {
    expect(snapshots.every((s) => s.spans.every((sp) => sp.tokens === undefined))).toBe(true);
  });

  it('a call sees every event before its first one; parallel actions of one response are one call', () => {
    const ids = (t: number): string[] => snapshots[t - 1]!.spans.map((s) => s.span_id);
    expect(ids(1)).toEqual([events[0]!.id, `${events[0]!.id as string}#tools`, events[1]!.id]);
    // turn 2 is response r2's first action: it sees r1's action and observation, not r2's own
    expect(ids(2)).toEqual([...ids(1), `${events[3]!.id as string}#thought`, events[3]!.id, events[4]!.id]);
    expect(ids(3)).toContain(events[6]!.id);
  });

  it('spans carry roles, kinds, tools and labels', () => {
    const spans = snapshots[2]!.spans;
    const byId = (i: number): object => spans.find((s) => s.span_id === events[i]!.id)!;
    expect(spans[0]).toMatchObject({ role: 'system', kind: 'instructions', label: 'system prompt', pinned: true });
    expect(spans[1]).toMatchObject({ role: 'system', kind: 'tools', label: 'tool definitions (3)' });
    expect(byId(1)).toMatchObject({ role: 'user', kind: 'text', pinned: true });
    expect(byId(3)).toMatchObject({ role: 'assistant', kind: 'tool_use', tool: 'file_editor', label: 'view /workspace/app/utils.py' });
    expect(byId(4)).toMatchObject({ role: 'tool', kind: 'tool_result', tool: 'file_editor', label: 'result of view /workspace/app/utils.py' });
    expect(byId(5)).toMatchObject({ kind: 'tool_use', tool: 'terminal', label: 'shell: grep -rn slugify /workspace/app' });
  });

  it('error observations, agent errors and rejections are tool results, named so', () => {
    const last = snapshots.at(-1)!.spans;
    const byId = (i: number): { text: string; label?: string } => last.find((s) => s.span_id === events[i]!.id)! as { text: string; label?: string };
    expect(byId(12).text).toBe("[An error occurred during execution.]\nE   ModuleNotFoundError: No module named 'app'\n1 error");
    expect(byId(12).label).toBe('error from shell: pytest -q /workspace/tests');
    expect(byId(14)).toMatchObject({ label: 'error from browser', text: expect.stringMatching(/^Tool 'browser' not found/) as string });
    expect(byId(20)).toMatchObject({ text: 'Action rejected: No need, tests pass', label: 'result of view /workspace/app/utils.py' });
  });

  it('a Condensation is one compaction at the first call after it: forgotten events replaced, the summary at its offset', () => {
    const at = snapshots.findIndex((s) => s.compaction !== undefined);
    const snap = snapshots[at]!;
    const forgotten = (events[16]!.forgotten_event_ids as string[]).flatMap((id) =>
      snapshots[at - 1]!.spans.filter((s) => s.span_id === id || s.span_id.startsWith(`${id}#`)).map((s) => s.span_id),
    );
    const c = snap.compaction as {
      kind: string;
      trigger: string;
      replaced: string[];
      summary: string[];
      items: { kind: string; text: string; status: string }[];
    };
    expect(c).toMatchObject({ kind: 'compact', trigger: 'condenser', summary: [`${events[16]!.id as string}-summary`] });
    expect([...c.replaced].sort()).toEqual([...forgotten].sort());
    expect(snap.pruned).toEqual(c.replaced);
    expect(snap.archived).toEqual(c.replaced);
    // summary_offset 2: after the system prompt event and the user's message
    expect(snap.spans[3]).toMatchObject({
      span_id: `${events[16]!.id as string}-summary`,
      role: 'summary',
      label: 'compaction summary',
      derived_from: c.replaced,
    });
    // the audit: items of the forgotten events only (the prompt and the later errors stay in view)
    expect(c.items.map((i) => [i.kind, i.text, i.status])).toEqual([
      ['file', '/workspace/app/utils.py', 'kept'],
      ['command', 'grep -rn slugify /workspace/app', 'lost'],
      ['command', 'ls /workspace/tests', 'lost'],
    ]);
  });

  it('a file-editor view of an audited path after it is its refetch', () => {
    const refetches = snapshots.flatMap((s) => s.refetched ?? []);
    expect(refetches).toEqual([{ compaction_turn: 6, kind: 'file', text: '/workspace/app/utils.py', turn: 7 }]);
  });

  it('events the model never sees are counted by kind', () => {
    expect(adapter.skipped.toRecord()).toEqual({ 'ConversationStateUpdateEvent (not sent to the model)': 2, 'CondensationRequest (not sent to the model)': 1 });
  });
});

describe('with base_state.json (the conversation folder)', () => {
  const { header, snapshots } = adapt([state, ...events]);
  const usage = (state as { stats: { usage_to_metrics: { agent: { token_usages: { response_id: string; prompt_tokens: number }[] } } } }).stats.usage_to_metrics
    .agent.token_usages;

  it('each call’s tokens_total is its prompt_tokens by response_id; the state names the session and the window', () => {
    expect(snapshots.map((s) => s.spans.reduce((n, sp) => n + (sp.tokens ?? 0), 0))).toEqual(
      agentResponses.map((r) => usage.find((u) => u.response_id === r)!.prompt_tokens),
    );
    expect(header).toMatchObject({ session_id: '7d1e9f20-a3b4-4c5d-8e6f-7a8b9c0d1e2f', context_window: 200000 });
    expect(snapshots[0]!.model).toBe('litellm_proxy/claude-sonnet-4-5-20250929');
  });
});
