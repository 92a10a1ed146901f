// docs/adapters.md "OpenTelemetry": each mapping rule on OTLP/JSON requests written here
// (the relay tests post bodies made by the official SDK: test/relay/otlp.test.ts).
// eslint-disable-next-line no-restricted-imports -- tests run on Node; the adapter is handed its hash
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../../core/engine.ts';
import type { Snapshot, Span } from '../../../core/wire.ts';
import { OtlpAdapter, type OtlpMessage } from './adapter.ts';

const sha256 = (t: string): string => crypto.createHash('sha256').update(t, 'utf8').digest('hex');

type Attr = [string, string | number | boolean];
const TRACE = 'aa'.repeat(16);

function kv(attrs: Attr[]): unknown[] {
  return attrs.map(([key, v]) => ({
    key,
    value:
      typeof v === 'string'
        ? { stringValue: v }
        : typeof v === 'boolean'
          ? { boolValue: v }
          : Number.isInteger(v)
            ? { intValue: String(v) }
            : { doubleValue: v },
  }));
}

let nextSpan = 1;
function span(startMs: number, attrs: Attr[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  const spanId = (nextSpan++).toString(16).padStart(16, '0');
  const ns = (BigInt(Date.UTC(2026, 0, 1)) + BigInt(startMs)) * BigInt(1_000_000);
  return {
    traceId: TRACE,
    spanId,
    name: 'chat',
    kind: 3,
    startTimeUnixNano: String(ns),
    endTimeUnixNano: String(ns + BigInt(1000)),
    attributes: kv(attrs),
    ...extra,
  };
}

function request(...spans: Record<string, unknown>[]): unknown {
  return { resourceSpans: [{ resource: { attributes: kv([['service.name', 'agent']]) }, scopeSpans: [{ scope: { name: 't' }, spans }] }] };
}

type Msg = { role: string; parts: Record<string, unknown>[]; summary?: boolean };
const text = (role: string, content: string, summary = false): Msg => ({ role, parts: [{ type: 'text', content }], ...(summary ? { summary } : {}) });

function chat(startMs: number, messages: Msg[], extra: Attr[] = []): Record<string, unknown> {
  return span(startMs, [['gen_ai.operation.name', 'chat'], ['gen_ai.conversation.id', 'conv'], ['gen_ai.input.messages', JSON.stringify(messages)], ...extra]);
}

function snapshots(out: OtlpMessage[], session = 'conv'): Snapshot[] {
  return out.map((m) => m.value).filter((v): v is Snapshot => v.type === 'snapshot' && v.session_id === session);
}

const ids = (s: Snapshot): string[] => s.spans.map((x) => x.span_id);

describe('GenAI semantic conventions', () => {
  it('maps each chat span to a turn and each message part to a span whose id is stable across calls', () => {
    const a = new OtlpAdapter({ sha256, reorderMs: 0 });
    const sys = text('system', 'Never touch prod.');
    const task = text('user', 'Fix the test.');
    const r = a.receive(
      request(
        chat(0, [sys, task], [['gen_ai.usage.input_tokens', 500]]),
        chat(10, [
          sys,
          task,
          {
            role: 'assistant',
            parts: [
              { type: 'tool_call', name: 'run', arguments: { x: 1 } },
              { type: 'text', content: 'ok' },
            ],
          },
        ]),
      ),
      0,
    );
    expect(r).toEqual({ accepted: 2, rejected: [], warning: null });
    const out = a.due(0);
    expect(out[0]!.value).toMatchObject({ type: 'session', session_id: 'conv', source: 'otlp', service: 'agent' });
    expect(out.every((m) => m.unscored)).toBe(true);
    const [t1, t2] = snapshots(out);
    expect([t1!.turn, t2!.turn]).toEqual([1, 2]);
    expect(ids(t2!).slice(0, 2)).toEqual(ids(t1!));
    expect(t2!.spans.map((s) => [s.role, s.kind, s.text])).toEqual([
      ['system', 'text', 'Never touch prod.'],
      ['user', 'text', 'Fix the test.'],
      ['assistant', 'tool_call', 'run {"x":1}'],
      ['assistant', 'text', 'ok'],
    ]);
    // pinned: the system prompt and the conversation's first user message (the task)
    expect(t2!.spans.map((s) => s.pinned === true)).toEqual([true, true, false, false]);
    // tokens: exactly the call's input tokens, the rest on the first span
    expect(t1!.spans.reduce((n, s) => n + (s.tokens ?? 0), 0)).toBe(500);
    expect(t2!.spans.some((s) => s.tokens !== undefined)).toBe(false);
    expect(t1!.otlp).toMatchObject({ convention: 'genai', trace_id: TRACE });
  });

  it('prunes what disappears between calls, and a marked summary derives from it', () => {
    const a = new OtlpAdapter({ sha256, reorderMs: 0 });
    const task = text('user', 'Task');
    const old = [text('assistant', 'step 1'), text('tool', 'out 1'), text('assistant', 'step 2')];
    a.receive(
      request(
        chat(0, [task, ...old]),
        chat(10, [task, text('user', 'Summary of steps 1-2', true), text('assistant', 'step 3')]),
        chat(20, [task, text('user', 'Summary of steps 1-2', true), text('assistant', 'step 3')]),
      ),
      0,
    );
    const [t1, t2, t3] = snapshots(a.due(0));
    const oldIds = ids(t1!).slice(1);
    expect(t2!.pruned).toEqual(oldIds);
    const summary = t2!.spans[1]!;
    expect(summary).toMatchObject({ role: 'summary', derived_from: oldIds });
    // lineage is kept on later turns (as the Claude Code adapter keeps it)
    expect(t3!.spans[1]!.derived_from).toEqual(oldIds);
    expect(t3!.pruned).toBeUndefined();
  });

  it('contract §8.3: a summary (marked, or a compaction part) is one compaction event whose replaced messages are archived', () => {
    const a = new OtlpAdapter({ sha256, reorderMs: 0 });
    const task = text('user', 'Task');
    const asked = text('user', 'Also keep the logs in UTC');
    const compactionPart: Msg = { role: 'user', parts: [{ type: 'compaction', content: 'Earlier: the user asked for logs in UTC.' }] };
    a.receive(
      request(
        chat(0, [task, text('assistant', 'step 1'), asked]),
        chat(10, [task, compactionPart, text('assistant', 'step 2')]),
        chat(20, [task, compactionPart]),
      ),
      0,
    );
    const [t1, t2, t3] = snapshots(a.due(0));
    const gone = ids(t1!).slice(1);
    expect(t2!.archived).toEqual(gone);
    expect(t2!.compaction).toMatchObject({ kind: 'compact', replaced: gone, summary: [t2!.spans[1]!.span_id] });
    // the replaced user prompt, judged against what the call saw (its words, not verbatim)
    expect((t2!.compaction as { items: unknown[] }).items).toEqual([
      { kind: 'user_prompt', text: 'Also keep the logs in UTC', status: 'paraphrased', from_turn: 1, span_id: gone[1] },
    ]);
    expect(t3!.compaction).toBeUndefined();
  });

  it('contract §8.3: a gen_ai.conversation.compacted event marks the call as the first after a compaction, with no summary message', () => {
    const a = new OtlpAdapter({ sha256, reorderMs: 0 });
    const task = text('user', 'Task');
    const later = {
      ...chat(10, [task, text('assistant', 'fresh start')]),
      events: [{ name: 'gen_ai.conversation.compacted', timeUnixNano: '0', attributes: [] }],
    };
    a.receive(request(chat(0, [task, text('assistant', 'step 1'), text('tool', 'out 1')]), later), 0);
    const [t1, t2] = snapshots(a.due(0));
    const gone = ids(t1!).slice(1);
    expect(t2!.compaction).toMatchObject({ kind: 'compact', replaced: gone, summary: [] });
    expect(t2!.archived).toEqual(gone);
    // contract §8.8: every message part named by what it is
    expect(t1!.spans.map((x) => x.label)).toEqual(['user: Task', 'assistant: step 1', 'tool: out 1']);
    expect(t2!.spans.map((x) => x.label)).toEqual(['user: Task', 'assistant: fresh start']);
  });

  it('numbers repeated identical messages so ids stay unique, and keeps ids when an earlier message is removed', () => {
    const a = new OtlpAdapter({ sha256, reorderMs: 0 });
    const m = text('user', 'again');
    a.receive(request(chat(0, [text('user', 'Task'), text('tool', 'x'), m, m]), chat(10, [text('user', 'Task'), m, m])), 0);
    const [t1, t2] = snapshots(a.due(0));
    expect(new Set(ids(t1!)).size).toBe(4);
    expect(ids(t2!)).toEqual([ids(t1!)[0], ids(t1!)[2], ids(t1!)[3]]);
    expect(t2!.pruned).toEqual([ids(t1!)[1]]);
  });

  it('reads the input of older versions: message events, and gen_ai.prompt.N attributes', () => {
    const a = new OtlpAdapter({ sha256, reorderMs: 0 });
    const ev = (name: string, content: string) => ({ timeUnixNano: '1', name, attributes: kv([['content', content]]) });
    a.receive(
      request(
        span(0, [['gen_ai.operation.name', 'chat']], { events: [ev('gen_ai.system.message', 'be brief'), ev('gen_ai.user.message', 'hello')] }),
        span(5, [
          ['gen_ai.prompt.0.role', 'user'],
          ['gen_ai.prompt.0.content', 'legacy'],
          ['gen_ai.usage.prompt_tokens', 7],
        ]),
      ),
      0,
    );
    const [t1, t2] = snapshots(a.due(0), TRACE);
    expect(t1!.spans.map((s) => [s.role, s.text])).toEqual([
      ['system', 'be brief'],
      ['user', 'hello'],
    ]);
    expect(t2!.spans.map((s) => [s.role, s.text, s.tokens])).toEqual([['user', 'legacy', 7]]);
  });

  it('skips spans that are not model calls (counted), and warns about a call without captured messages', () => {
    const a = new OtlpAdapter({ sha256, reorderMs: 0 });
    const r = a.receive(
      request(span(0, [['http.method', 'GET']]), span(1, [['gen_ai.operation.name', 'embeddings']]), span(2, [['gen_ai.operation.name', 'chat']])),
      0,
    );
    expect(r.accepted).toBe(3);
    expect(r.rejected).toEqual([]);
    expect(r.warning).toMatch(/no input messages.*CAPTURE_MESSAGE_CONTENT/);
    expect(a.skipped.toRecord()).toEqual({ 'gen_ai embeddings': 1, 'genai call without input messages': 1, 'not a model call': 1 });
    expect(a.due(0)).toEqual([]);
  });
});

describe('OpenInference', () => {
  it('maps LLM spans by llm.input_messages, session.id and llm.token_count.prompt', () => {
    const a = new OtlpAdapter({ sha256, reorderMs: 0 });
    a.receive(
      request(
        span(0, [
          ['openinference.span.kind', 'LLM'],
          ['session.id', 's1'],
          ['llm.token_count.prompt', 40],
          ['llm.input_messages.0.message.role', 'system'],
          ['llm.input_messages.0.message.content', 'rules'],
          ['llm.input_messages.1.message.role', 'user'],
          ['llm.input_messages.1.message.contents.0.message_content.type', 'text'],
          ['llm.input_messages.1.message.contents.0.message_content.text', 'question'],
          ['llm.input_messages.1.message.contents.1.message_content.type', 'image'],
          ['llm.input_messages.2.message.role', 'assistant'],
          ['llm.input_messages.2.message.tool_calls.0.tool_call.function.name', 'search'],
          ['llm.input_messages.2.message.tool_calls.0.tool_call.function.arguments', '{"q":"x"}'],
          ['llm.input_messages.3.message.role', 'tool'],
          ['llm.input_messages.3.message.content', 'found'],
        ]),
      ),
      0,
    );
    const [t1] = snapshots(a.due(0), 's1');
    expect(t1!.spans.map((s) => [s.role, s.kind, s.text])).toEqual([
      ['system', 'text', 'rules'],
      ['user', 'text', 'question'],
      ['user', 'image', '[image]'],
      ['assistant', 'tool_call', 'search {"q":"x"}'],
      ['tool', 'tool_call_response', 'found'],
    ]);
    expect(t1!.spans.reduce((n, s) => n + s.tokens!, 0)).toBe(40);
    expect(t1!.otlp).toMatchObject({ convention: 'openinference' });
  });

  it("maps RETRIEVER and RERANKER documents to scored spans of the conversation's retrieval session, bound to their text", () => {
    const a = new OtlpAdapter({ sha256, reorderMs: 0 });
    const doc = (p: string, n: number, id: string, content: string, score: number): Attr[] => [
      [`${p}.${n}.document.id`, id],
      [`${p}.${n}.document.content`, content],
      [`${p}.${n}.document.score`, score],
    ];
    a.receive(
      request(
        span(0, [
          ['openinference.span.kind', 'RETRIEVER'],
          ['session.id', 's1'],
          ...doc('retrieval.documents', 0, 'a', 'alpha', 0.9),
          ...doc('retrieval.documents', 1, 'b', 'beta', 0.4),
          ['retrieval.documents.0.document.metadata', '{"pinned":true}'],
        ]),
        span(5, [
          ['openinference.span.kind', 'RERANKER'],
          ['session.id', 's1'],
          ...doc('reranker.input_documents', 0, 'b', 'beta', 0.4),
          ...doc('reranker.output_documents', 0, 'b', 'beta', 0.7),
        ]),
      ),
      0,
    );
    const out = a.due(0);
    expect(out.every((m) => !m.unscored)).toBe(true);
    const [t1, t2] = snapshots(out, 's1/retrieval');
    expect(t1!.spans).toEqual([
      { span_id: 'doc-a', text: 'alpha', score: 0.9, text_sha256: sha256('alpha'), role: 'document', kind: 'retriever', pinned: true },
      { span_id: 'doc-b', text: 'beta', score: 0.4, text_sha256: sha256('beta'), role: 'document', kind: 'retriever' },
    ]);
    expect(t2!.spans.map((s: Span) => [s.span_id, s.score, s.kind])).toEqual([['doc-b', 0.7, 'reranker']]);
    expect(t2!.pruned).toEqual(['doc-a']);
  });
});

describe('ordering (reorder window)', () => {
  it('orders calls by start time within the window, whatever the arrival order and batching', () => {
    const a = new OtlpAdapter({ sha256, reorderMs: 100 });
    const task = text('user', 'T');
    a.receive(request(chat(30, [task, text('assistant', 'c')])), 1000);
    a.receive(request(chat(10, [task, text('assistant', 'a')]), chat(20, [task, text('assistant', 'b')])), 1050);
    expect(a.due(1099)).toEqual([]); // the earliest arrived at 1050: everything waits for it
    expect(a.nextDueMs()).toBe(1150);
    const snaps = snapshots(a.due(1150));
    expect(snaps.map((s) => [s.turn, s.spans[1]!.text])).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
    ]);
  });

  it("refuses a call that starts before a stored turn, and lists it in the session's next snapshot", () => {
    const a = new OtlpAdapter({ sha256, reorderMs: 100 });
    const task = text('user', 'T');
    a.receive(request(chat(10, [task])), 0);
    a.due(100);
    const late = chat(5, [task, text('assistant', 'late')]);
    const r = a.receive(request(late), 500);
    expect(r.rejected).toHaveLength(1);
    expect(r.rejected[0]!.where).toBe('resourceSpans[0].scopeSpans[0].spans[0]');
    expect(r.rejected[0]!.message).toMatch(/before turn 1 of session "conv" was stored.*reorder window \(100 ms\)/);
    a.receive(request(chat(20, [task])), 600);
    const [next] = snapshots(a.due(700));
    expect(next!.turn).toBe(2);
    expect(next!.input_errors).toEqual([{ trace_id: TRACE, span_id: late.spanId, message: r.rejected[0]!.message }]);
  });

  it('maps a span sent twice (an exporter retrying) once', () => {
    const a = new OtlpAdapter({ sha256, reorderMs: 0 });
    const c = chat(0, [text('user', 'T')]);
    expect(a.receive(request(c), 0).accepted).toBe(1);
    expect(a.receive(request(c), 0)).toEqual({ accepted: 1, rejected: [], warning: null });
    expect(snapshots(a.due(0))).toHaveLength(1);
  });
});

describe('reading the request', () => {
  it('rejects a span with a bad id or start time, naming where and why, and reads the others', () => {
    const a = new OtlpAdapter({ sha256, reorderMs: 0 });
    const good = chat(0, [text('user', 'T')]);
    const r = a.receive(request({ ...chat(1, []), traceId: 'xyz' }, { ...chat(2, []), startTimeUnixNano: 'soon' }, good), 0);
    expect(r.accepted).toBe(1);
    expect(r.rejected).toEqual([
      { where: 'resourceSpans[0].scopeSpans[0].spans[0]', message: 'traceId must be 32 hex digits, got "xyz"' },
      {
        where: 'resourceSpans[0].scopeSpans[0].spans[1]',
        message: 'startTimeUnixNano must be a whole number of nanoseconds (a decimal string or number), got "soon"',
      },
    ]);
    expect(() => a.receive([1, 2], 0)).toThrow(/not an ExportTraceServiceRequest/);
  });

  it('gives messages the engine accepts (contract §2): no input error on any mapped snapshot', () => {
    const a = new OtlpAdapter({ sha256, reorderMs: 0 });
    a.receive(request(chat(0, [text('system', 's'), text('user', 'T')]), chat(1, [text('user', 'T'), text('user', 'sum', true)])), 0);
    const engine = new Engine({ sha256 });
    const outcomes = a.due(0).map((m, i) => engine.ingestParsedLine(m.value, i + 1, false));
    expect(outcomes.filter((o) => o.kind === 'error')).toEqual([]);
  });
});
