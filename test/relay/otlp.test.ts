// contract §7.4, docs/relay-protocol.md "OpenTelemetry": the relay's POST /v1/traces
// against bodies made by the official OpenTelemetry JS SDK, its exporters (JSON and
// protobuf) and its serializers, on loopback. The mapping rule by rule is
// src/ingest/adapters/otlp/adapter.test.ts; here: the receiver end to end.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { ProtobufTraceSerializer, JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import protobuf from 'protobufjs/minimal.js';
import { describe, expect, it } from 'vitest';
import { inputMessages, retrievedDocs, runOtelAgent } from '../../examples/otel-ts.ts';
import { nodeSha256 } from '../../src/node/platform.ts';
import { runCli } from '../cli/runCli.ts';
import { Recorder, relaysPerTest, run, tempDir, transcriptLines } from './helpers.ts';

const relay = relaysPerTest();

type Serializer = { serializeRequest(spans: never): Uint8Array | undefined; deserializeResponse(data: Uint8Array): unknown };
const PROTOBUF = ProtobufTraceSerializer as unknown as Serializer;
const JSON_SERIALIZER = JsonTraceSerializer as unknown as Serializer;

interface Stored {
  type: string;
  session_id: string;
  turn?: number;
  spans?: {
    span_id: string;
    text: string;
    score: number | null;
    text_sha256: string | null;
    pinned?: boolean;
    role?: string;
    tokens?: number;
    derived_from?: string[];
  }[];
  pruned?: string[];
  input_errors?: { span_id: string; message: string }[];
}

async function stored(url: string, session: string): Promise<Stored[]> {
  return (await transcriptLines(url, session)).map((l) => JSON.parse(l) as Stored);
}

async function sessionList(url: string): Promise<{ session_id: string; last_turn: number | null }[]> {
  return ((await (await fetch(`${url}api/sessions`)).json()) as { sessions: { session_id: string; last_turn: number | null }[] }).sessions;
}

/** Chat spans made with the SDK, started at the given offsets (ms), kept in memory to export as the test chooses. */
function chatSpans(conversation: string, startsMs: number[]): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  const tracer = provider.getTracer('otlp-test');
  const t0 = Date.UTC(2026, 0, 1);
  for (const ms of startsMs) {
    const span = tracer.startSpan('chat', {
      startTime: t0 + ms,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.conversation.id': conversation,
        'gen_ai.input.messages': JSON.stringify([
          { role: 'user', parts: [{ type: 'text', content: 'the task' }] },
          { role: 'assistant', parts: [{ type: 'text', content: `started at ${ms}` }] },
        ]),
      },
    });
    span.end(t0 + ms + 5);
  }
  return memory.getFinishedSpans();
}

async function post(url: string, body: Uint8Array | string, headers: Record<string, string>): Promise<{ status: number; type: string | null; body: Buffer }> {
  const res = await fetch(`${url}v1/traces`, { method: 'POST', body: typeof body === 'string' ? body : Buffer.from(body), headers });
  return { status: res.status, type: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()) };
}

/** google.rpc.Status from a protobuf error body (read with protobufjs's Reader). */
function readStatus(bytes: Uint8Array): { code: number; message: string } {
  const reader = protobuf.Reader.create(bytes);
  const status = { code: 0, message: '' };
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag >>> 3 === 1) status.code = reader.int32();
    else if (tag >>> 3 === 2) status.message = reader.string();
    else reader.skipType(tag & 7);
  }
  return status;
}

describe('POST /v1/traces: an agent instrumented with the OpenTelemetry SDK', () => {
  it.each(['json', 'protobuf'] as const)('over OTLP/%s: sessions appear, with turns and spans as mapped', async (protocol) => {
    const r = await relay({ otlpReorderMs: 0 });
    await runOtelAgent({ url: r.url, protocol, conversation: 'conv', calls: 6 });
    const sessions = await sessionList(r.url);
    expect(sessions.map((s) => [s.session_id, s.last_turn]).sort()).toEqual([
      ['conv', 6],
      ['conv/retrieval', 6],
    ]);
    const log = await stored(r.url, 'conv');
    expect(log[0]).toMatchObject({ type: 'session', session_id: 'conv', source: 'otlp', service: 'otel-ts-example' });
    const turns = log.slice(1);
    expect(turns.map((s) => s.turn)).toEqual([1, 2, 3, 4, 5, 6]);
    for (const [i, snap] of turns.entries()) {
      const call = i + 1;
      // each message part a span, after the system instructions; tokens = the call's input tokens
      const parts = inputMessages(call).flatMap((m) => m.parts);
      expect(snap.spans).toHaveLength(1 + parts.length);
      expect(snap.spans![0]).toMatchObject({ role: 'system', pinned: true });
      expect(snap.spans!.reduce((n, s) => n + s.tokens!, 0)).toBe(900 + 120 * call);
      // no scores in the trace: the reference scorer's, bound to the text (contract §7)
      for (const s of snap.spans!) {
        expect(typeof s.score).toBe('number');
        expect(s.text_sha256).toBe(nodeSha256(s.text));
      }
    }
    // the same message keeps its span id from call to call
    expect(turns[3]!.spans!.slice(0, 6).map((s) => s.span_id)).toEqual(turns[2]!.spans!.slice(0, 6).map((s) => s.span_id));
    // call 5 summarises attempts 1–3: their spans are pruned and the summary derives from them
    const removed = turns[3]!.spans!.slice(2, 8).map((s) => s.span_id);
    expect(turns[4]!.pruned).toEqual(removed);
    const summary = turns[4]!.spans!.find((s) => s.role === 'summary')!;
    expect(summary.derived_from).toEqual(removed);
    // the scores are the reference scorer's exactly as check applies it: rescoring changes nothing
    const file = path.join(tempDir('ch-otlp-'), 'conv.jsonl');
    fs.writeFileSync(file, (await transcriptLines(r.url, 'conv')).join('\n') + '\n');
    const asStored = await runCli(['check', '--json', '--fail-on', 'never', file]);
    const rescored = await runCli(['check', '--json', '--fail-on', 'never', '--scorer', 'reference', file]);
    expect(JSON.parse(asStored.stdout)).toEqual(JSON.parse(rescored.stdout));
    const retrieval = (await stored(r.url, 'conv/retrieval')).slice(1);
    expect(retrieval[0]!.spans!.map((s) => [s.span_id, s.score, s.pinned === true])).toEqual(
      retrievedDocs(1, false).map((d) => [`doc-${d.id}`, d.score, d.pinned]),
    );
  });

  it('the example runs as a script against a relay (default window: the turns arrive after it)', async () => {
    const r = await relay({ otlpReorderMs: 50 });
    const out = await run(process.execPath, [
      '--import',
      'tsx',
      'examples/otel-ts.ts',
      '--url',
      r.url,
      '--conversation',
      'script',
      '--calls',
      '3',
      '--protocol',
      'json',
    ]);
    expect(out.stdout).toMatch(/sent 3 model calls of conversation script/);
    expect(out.code).toBe(0);
    // the relay stores the turns once the reorder window has passed: wait for them
    const sub = new Recorder(r.url, 'script');
    await sub.untilSeq(4);
    await sub.close();
    expect((await stored(r.url, 'script')).map((m) => m.turn ?? 'header')).toEqual(['header', 1, 2, 3]);
  });

  it('retriever scores drive the collapse detectors exactly as the same data in the native format', async () => {
    const r = await relay({ otlpReorderMs: 0 });
    const dir = tempDir('ch-otlp-');
    for (const collapse of [true, false]) {
      const conversation = collapse ? 'narrow' : 'wide';
      await runOtelAgent({ url: r.url, protocol: 'protobuf', conversation, calls: 4, collapse });
      const fromOtlp = path.join(dir, `${conversation}-otlp.jsonl`);
      fs.writeFileSync(fromOtlp, (await transcriptLines(r.url, `${conversation}/retrieval`)).join('\n') + '\n');
      // the same retrievals written by hand in the contract §2 format
      const native = [JSON.stringify({ type: 'session', session_id: `${conversation}/retrieval` })];
      let previous: string[] = [];
      for (let i = 1; i <= 4; i++) {
        const docs = retrievedDocs(i, collapse);
        const ids = docs.map((d) => `doc-${d.id}`);
        const pruned = previous.filter((id) => !ids.includes(id));
        const spans = docs.map((d) => ({ span_id: `doc-${d.id}`, text: d.content, score: d.score, text_sha256: nodeSha256(d.content), pinned: d.pinned }));
        native.push(JSON.stringify({ type: 'snapshot', session_id: `${conversation}/retrieval`, turn: i, spans, ...(pruned.length > 0 ? { pruned } : {}) }));
        previous = ids;
      }
      const nativeFile = path.join(dir, `${conversation}-native.jsonl`);
      fs.writeFileSync(nativeFile, native.join('\n') + '\n');
      const a = await runCli(['check', '--json', '--fail-on', 'never', fromOtlp]);
      const b = await runCli(['check', '--json', '--fail-on', 'never', nativeFile]);
      expect(a.code).toBe(0);
      const reportA = JSON.parse(a.stdout) as { sessions: { findings: { signal: string; turn: number }[] }[] };
      expect(reportA).toEqual(JSON.parse(b.stdout));
      const signals = new Set(reportA.sessions[0]!.findings.map((f) => f.signal));
      // narrowed scores with the pinned runbook below the median: collapse (contract §4.14–§4.16)
      expect(signals.has('relevance_collapse')).toBe(collapse);
      expect(signals.has('spread_collapse')).toBe(collapse);
      expect(signals.has('canary_inversion')).toBe(collapse);
    }
  });
});

describe('POST /v1/traces: ordering', () => {
  it('orders turns by span start time within the reorder window, across batches', async () => {
    const dataDir = tempDir();
    const r = await relay({ otlpReorderMs: 600_000, dataDir });
    const [early, middle, late] = chatSpans('ooo', [10, 20, 30]);
    // the latest call first, then the two earlier ones in another batch, from another "process"
    for (const batch of [[late], [middle, early]]) {
      const res = await post(r.url, PROTOBUF.serializeRequest(batch as never)!, { 'content-type': 'application/x-protobuf' });
      expect(res.status).toBe(200);
      expect(PROTOBUF.deserializeResponse(res.body)).toEqual({});
    }
    expect(await sessionList(r.url)).toEqual([]); // still within the window
    await r.close(); // closing stores what is held, in order
    const log = fs
      .readFileSync(path.join(dataDir, 'sessions', 'ooo.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Stored);
    expect(log.slice(1).map((s) => [s.turn, s.spans![1]!.text])).toEqual([
      [1, 'started at 10'],
      [2, 'started at 20'],
      [3, 'started at 30'],
    ]);
  });

  it("refuses a span later than the window (partial success) and lists it in the session's input errors", async () => {
    const r = await relay({ otlpReorderMs: 0 });
    const [early, middle, late] = chatSpans('late', [10, 20, 30]);
    const send = async (spans: ReadableSpan[]) => {
      const res = await post(r.url, JSON_SERIALIZER.serializeRequest(spans as never)!, { 'content-type': 'application/json' });
      expect(res.status).toBe(200);
      expect(res.type).toBe('application/json');
      return JSON.parse(res.body.toString()) as { partialSuccess?: { rejectedSpans: string; errorMessage: string } };
    };
    expect(await send([middle!])).toEqual({});
    const refused = await send([early!]);
    expect(refused.partialSuccess!.rejectedSpans).toBe('1');
    expect(refused.partialSuccess!.errorMessage).toContain(`span ${early!.spanContext().spanId}`);
    expect(refused.partialSuccess!.errorMessage).toMatch(/before turn 1 of session "late" was stored/);
    // the same answer in protobuf, for a protobuf export
    const again = await post(r.url, PROTOBUF.serializeRequest([early] as never)!, { 'content-type': 'application/x-protobuf' });
    expect(again.status).toBe(200);
    expect(again.type).toBe('application/x-protobuf');
    const decoded = PROTOBUF.deserializeResponse(again.body) as { partialSuccess: { rejectedSpans: unknown; errorMessage: string } };
    expect(Number(decoded.partialSuccess.rejectedSpans)).toBe(1);
    expect(decoded.partialSuccess.errorMessage).toBe(refused.partialSuccess!.errorMessage);
    expect(await send([late!])).toEqual({});
    const log = await stored(r.url, 'late');
    expect(log.slice(1).map((s) => s.turn)).toEqual([1, 2]);
    // refused twice: listed twice, on the next turn stored
    expect(log[2]!.input_errors!.map((e) => e.span_id)).toEqual([early!.spanContext().spanId, early!.spanContext().spanId]);
    expect(log[2]!.input_errors![0]!.message).toMatch(/reorder window/);
  });
  it('a conversation that goes on after a restart continues its session', async () => {
    const dataDir = tempDir();
    const [first, second] = chatSpans('resumed', [10, 20]);
    const send = async (url: string, span: ReadableSpan) =>
      (await post(url, PROTOBUF.serializeRequest([span] as never)!, { 'content-type': 'application/x-protobuf' })).status;
    const a = await relay({ otlpReorderMs: 0, dataDir });
    expect(await send(a.url, first!)).toBe(200);
    await a.close();
    const b = await relay({ otlpReorderMs: 0, dataDir });
    expect(await send(b.url, second!)).toBe(200);
    expect((await stored(b.url, 'resumed')).map((m) => [m.type, m.turn])).toEqual([
      ['session', undefined],
      ['snapshot', 1],
      ['snapshot', 2],
    ]);
  });
});

describe('POST /v1/traces: bodies that cannot be used get the OTLP error response and change nothing', () => {
  it('wrong content type, truncated protobuf, bad JSON, bad gzip, 50 MB, a gzip bomb: refused, nothing stored', async () => {
    const r = await relay({ otlpReorderMs: 0 });
    const [one] = chatSpans('kept', [10]);
    const good = PROTOBUF.serializeRequest([one] as never)!;
    expect((await post(r.url, good, { 'content-type': 'application/x-protobuf' })).status).toBe(200);
    const before = await transcriptLines(r.url, 'kept');
    const files = (): string[] => fs.readdirSync(path.join(r.dataDir, 'sessions')).sort();
    const filesBefore = files();

    const wrongType = await post(r.url, 'hello', { 'content-type': 'text/plain' });
    expect(wrongType.status).toBe(415);
    expect(JSON.parse(wrongType.body.toString())).toMatchObject({
      code: 3,
      message: expect.stringMatching(/text\/plain.*application\/x-protobuf or application\/json/) as unknown,
    });

    const [other] = chatSpans('never', [10]);
    const truncated = await post(r.url, PROTOBUF.serializeRequest([other] as never)!.subarray(0, 40), { 'content-type': 'application/x-protobuf' });
    expect(truncated.status).toBe(400);
    expect(truncated.type).toBe('application/x-protobuf');
    expect(readStatus(truncated.body)).toMatchObject({
      code: 3,
      message: expect.stringMatching(/^the protobuf body is not an ExportTraceServiceRequest \(truncated or not protobuf\): .+/) as unknown,
    });

    const badJson = await post(r.url, '{"resourceSpans": [', { 'content-type': 'application/json' });
    expect(badJson.status).toBe(400);
    expect(JSON.parse(badJson.body.toString()).message).toMatch(/not valid JSON/);

    const badGzip = await post(r.url, Buffer.from('not gzip'), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(badGzip.status).toBe(400);
    expect(JSON.parse(badGzip.body.toString()).message).toMatch(/gzip body could not be decompressed/);

    const huge = Buffer.alloc(50 * 1024 * 1024, 0x0a);
    const tooLarge = await post(r.url, huge, { 'content-type': 'application/x-protobuf' });
    expect(tooLarge.status).toBe(413);
    expect(readStatus(tooLarge.body)).toMatchObject({ code: 8, message: expect.stringMatching(/longer than 16777216 bytes.*--max-message-bytes/) as unknown });

    const bomb = zlib.gzipSync(Buffer.alloc(17 * 1024 * 1024, 0x0a)); // small, but 17 MiB once decompressed
    const inflated = await post(r.url, bomb, { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' });
    expect(inflated.status).toBe(413);
    expect(readStatus(inflated.body).message).toMatch(/decompressed request body is longer than 16777216 bytes/);

    expect(await transcriptLines(r.url, 'kept')).toEqual(before);
    expect(files()).toEqual(filesBefore);
    expect((await sessionList(r.url)).map((s) => s.session_id)).toEqual(['kept']);
  });

  it('takes gzip bodies, and asks for the token when the relay has one', async () => {
    const r = await relay({ otlpReorderMs: 0, token: 'sesame' });
    const [one] = chatSpans('gz', [10]);
    const body = zlib.gzipSync(JSON_SERIALIZER.serializeRequest([one] as never)!);
    const headers = { 'content-type': 'application/json', 'content-encoding': 'gzip' };
    const refused = await post(r.url, body, headers);
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body.toString())).toMatchObject({ code: 16, message: expect.stringMatching(/token/) as unknown });
    expect(await sessionList(r.url)).toEqual([]);
    const ok = await post(r.url, body, { ...headers, authorization: 'Bearer sesame' });
    expect(ok.status).toBe(200);
    expect((await stored(r.url, 'gz')).map((m) => m.type)).toEqual(['session', 'snapshot']);
  });
});
