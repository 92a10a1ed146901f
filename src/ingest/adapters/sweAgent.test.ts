// docs/adapters.md "SWE-agent": each mapping rule, on the synthetic fixtures
// test/fixtures/adapters/swe-agent.traj (pretty-printed, SWE-agent 1.1 `query`, a
// last-N-observations elision) and swe-agent-messages.traj (one line, older `messages`).
// eslint-disable-next-line no-restricted-imports -- tests run on Node; the engine is handed its hash
import crypto from 'node:crypto';
// eslint-disable-next-line no-restricted-imports -- the fixtures are read from disk
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Engine, type Outcome } from '../../core/engine.ts';
import type { Snapshot } from '../../core/wire.ts';
import type { PipelineOptions } from './pipeline.ts';
import { convertText } from './convert.testing.ts';

const sha256 = (t: string): string => crypto.createHash('sha256').update(t, 'utf8').digest('hex');
const read = (name: string): string => fs.readFileSync(new URL(`../../../test/fixtures/adapters/${name}`, import.meta.url), 'utf8');

const convert = (text: string, options: PipelineOptions = {}) => convertText(text, { fallbackSessionId: 'traj', ...options });

const ids = (s: Snapshot): string[] => s.spans.map((x) => x.span_id);
const pretty = convert(read('swe-agent.traj'));

describe('SWE-agent adapter (docs/adapters.md)', () => {
  it('a pretty-printed .traj is recognised by content and read as one document', () => {
    expect(pretty.summary).toEqual({ format: 'swe-agent', skipped: {} });
    expect(pretty.texts).toEqual([]);
    expect(pretty.values[0]).toMatchObject({ type: 'session', session_id: 'traj' });
  });

  it('step → turn, message index → span id, stable across steps', () => {
    expect(pretty.snapshots.map((s) => s.turn)).toEqual([1, 2, 3, 4]);
    expect(ids(pretty.snapshots[0]!)).toEqual(['m0', 'm1', 'm2']);
    expect(ids(pretty.snapshots[3]!)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8']);
    // a message keeps its id and text from step to step (unless a history processor replaced it)
    expect(pretty.snapshots[2]!.spans[3]).toEqual(pretty.snapshots[1]!.spans[3]);
  });

  it('system and instance prompts are pinned; the instance prompt is the task, later user messages are observations', () => {
    const s = pretty.snapshots[3]!;
    expect(s.spans.filter((x) => x.pinned === true).map((x) => x.span_id)).toEqual(['m0', 'm2']);
    expect(s.spans.map((x) => x.role)).toEqual(['system', 'demonstration', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool']);
    expect(s.spans[2]!.text).toMatch(/off-by-one error in paginate/);
  });

  it('an observation a history processor replaced keeps its id and is reported as a rewrite', () => {
    const [, , third, fourth] = pretty.snapshots;
    expect(third!.spans[4]!.text).toMatch(/^\[File: src\/paging.py/);
    expect(fourth!.spans[4]).toMatchObject({ text: 'Old environment output: (13 lines omitted)', elided: true });
    expect(fourth!.rewrite).toEqual({ spans_modified: 1, scores_invalidated: 1, modified_span_ids: ['m4'] });
    expect(third!.rewrite).toBeUndefined();
    // contract §8.3: the elision is one compaction event, on the step that shows it
    expect(fourth!.compaction).toMatchObject({ kind: 'elision', replaced: ['m4'], items: [] });
    expect(third!.compaction).toBeUndefined();
  });

  it('the unchanged engine accepts every message; the reported rewrite is not an unreported one', () => {
    const engine = new Engine({ sha256 });
    const outcomes: Outcome[] = pretty.values.map((v, i) => engine.ingestParsedLine(v, i + 1, false));
    expect(outcomes.filter((o) => o.kind === 'error')).toEqual([]);
    const signals = outcomes.flatMap((o) => (o.kind === 'turn' ? o.result.findings.map((f) => f.signal) : []));
    expect(signals).not.toContain('unreported_rewrite');
    expect(signals).not.toContain('invalidation_shortfall');
  });

  it('reads the older per-step `messages` on one line', () => {
    const older = convert(read('swe-agent-messages.traj'));
    expect(older.summary.format).toBe('swe-agent');
    expect(older.snapshots.map((s) => ids(s))).toEqual([
      ['m0', 'm1', 'm2'],
      ['m0', 'm1', 'm2', 'm3', 'm4'],
    ]);
  });

  it('a step without the messages it saw is skipped and counted', () => {
    const doc = JSON.parse(read('swe-agent-messages.traj')) as { trajectory: Record<string, unknown>[] };
    delete doc.trajectory[0]!.messages;
    const r = convert(JSON.stringify(doc));
    expect(r.summary.skipped).toEqual({ 'step without query': 1 });
    expect(r.snapshots.map((s) => s.turn)).toEqual([1]);
  });

  it('a file that starts with a lone "{" but is not a trajectory is read line by line, as before', () => {
    const wire = ['{', JSON.stringify({ type: 'snapshot', session_id: 's', turn: 1, spans: [] })].join('\n');
    const r = convert(wire);
    expect(r.summary.format).toBe('wire');
    expect(r.texts).toEqual([
      ['{', 1],
      [JSON.stringify({ type: 'snapshot', session_id: 's', turn: 1, spans: [] }), 2],
    ]);
    // forced, it must be a trajectory: one input error instead
    const forced = convert(wire, { from: 'swe-agent' });
    expect(forced.errors.map((e) => e[0])).toEqual([1]);
    expect(forced.snapshots).toEqual([]);
  });

  it('with function calling, an action is its tool call: the call is in the span, even when the thought is empty', () => {
    // SWE-agent 1.1's function-calling configs (the default since 1.0): an assistant message's
    // `content` is the thought (empty with models that keep their reasoning hidden) and the
    // action is in `tool_calls`; an observation answers it as a `tool` message with `tool_call_ids`.
    const system = { role: 'system', content: 'You drive a shell to fix bugs.', agent: 'main', message_type: 'system_prompt' };
    const task = { role: 'user', content: [{ type: 'text', text: 'The clock widget shows minutes as seconds.' }], agent: 'main', message_type: 'observation' };
    const call = (id: string, name: string, args: string, thought: string, action: string) => ({
      role: 'assistant',
      content: thought,
      thought,
      action,
      agent: 'main',
      message_type: 'action',
      tool_calls: [{ id, type: 'function', function: { name, arguments: args } }],
    });
    const listing = call('call_1', 'bash', '{"command":"ls widgets"}', '', 'ls widgets');
    const seen = {
      role: 'tool',
      content: [{ type: 'text', text: 'OBSERVATION:\nclock.py' }],
      agent: 'main',
      message_type: 'observation',
      tool_call_ids: ['call_1'],
    };
    const open = call(
      'call_2',
      'str_replace_editor',
      '{"command":"view","path":"/w/clock.py"}',
      'The unit is set in clock.py.',
      'str_replace_editor view /w/clock.py',
    );
    const doc = {
      trajectory: [
        { action: 'ls widgets', observation: 'clock.py', response: '', thought: '', query: [system, task] },
        { action: 'str_replace_editor view /w/clock.py', observation: 'def tick(): ...', response: '', thought: '', query: [system, task, listing, seen] },
        { action: 'submit', observation: '', response: '', thought: '', query: [system, task, listing, seen, open] },
      ],
      history: [system, task, listing, seen, open],
      info: { swe_agent_version: '1.1.0', exit_status: 'submitted' },
    };
    const r = convert(JSON.stringify(doc, null, 2));
    expect(r.summary).toEqual({ format: 'swe-agent', skipped: {} });
    const last = r.snapshots[2]!;
    expect(last.spans[2]).toMatchObject({ span_id: 'm2', role: 'assistant', text: 'bash {"command":"ls widgets"}', label: 'action: ls widgets' });
    expect(last.spans[4]).toMatchObject({
      span_id: 'm4',
      text: 'The unit is set in clock.py.\nstr_replace_editor {"command":"view","path":"/w/clock.py"}',
      label: 'action: str_replace_editor view /w/clock.py',
    });
    // the same message keeps its text from step to step: no rewrite is reported
    expect(r.snapshots[1]!.spans[2]).toEqual(last.spans[2]);
    expect(last.rewrite).toBeUndefined();
  });

  it('a history read without queries shows the tool calls too', () => {
    const hist = convert(read('swe-agent-history.traj'));
    const texts = hist.snapshots
      .at(-1)!
      .spans.filter((x) => x.role === 'assistant')
      .map((x) => x.text);
    expect(texts.some((t) => t.includes('open {"path":"src/slug.py"}'))).toBe(true);
  });
});
