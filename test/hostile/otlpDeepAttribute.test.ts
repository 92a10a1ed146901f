// Issue 39, "No input ends a read": depth is checked in every stringified field that is
// parsed. A GenAI span's `gen_ai.input.messages` is JSON in a string; a tool call's arguments
// nested 100k deep in it overflowed JSON.stringify in the adapter, and that one span failed
// the whole export (protobuf: "decode", OTLP/JSON: "not a request", both "Maximum call stack
// size exceeded"). Now it is that span's rejection, naming the attribute and the limit, and
// the spans beside it are read.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { MAX_NESTING } from '../../src/core/nesting.ts';
import { decodeExport } from '../../src/server/otlp/decoding.ts';
import { unpack } from '../../src/server/otlp/packedEvents.ts';
import { chatSpanObject } from './attacks/otlpChat.ts';

const require = createRequire(import.meta.url);
interface MessageType {
  fromObject(o: unknown): unknown;
  encode(m: unknown): { finish(): Uint8Array };
}
const root = require('@opentelemetry/otlp-transformer/build/src/generated/root.js') as {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: MessageType } } } } };
};
const Request = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

const DEPTH = 100_000;

function chat(i: number, argumentsJson: string): Record<string, unknown> {
  const messages = JSON.stringify([
    { role: 'user', parts: [{ type: 'text', content: `prompt ${i}` }] },
    { role: 'assistant', parts: [{ type: 'tool_call', name: 'read', arguments: 'ARGS' }] },
  ]).replace('"ARGS"', argumentsJson);
  return chatSpanObject(i, messages);
}

function body(encoding: 'protobuf' | 'json', deep: string): Uint8Array {
  const request = {
    resourceSpans: [
      { resource: { attributes: [] }, scopeSpans: [{ scope: { name: 't' }, spans: [chat(0, '{"path":"a"}'), chat(1, deep), chat(2, '{"path":"c"}')] }] },
    ],
  };
  if (encoding === 'protobuf') return Request.encode(Request.fromObject(request)).finish();
  return Buffer.from(
    JSON.stringify(request, function (this: Record<string, unknown>, key: string, v: unknown) {
      const raw = this[key];
      if (Buffer.isBuffer(raw)) return raw.toString('hex');
      return typeof v === 'number' && key.endsWith('UnixNano') ? String(v) : v;
    }),
  );
}

describe('an OTLP attribute holding JSON nested too deep', () => {
  it.each(['protobuf', 'json'] as const)('over OTLP/%s: that span is rejected naming the attribute and the limit; the spans beside it are read', (encoding) => {
    const deep = '['.repeat(DEPTH) + ']'.repeat(DEPTH);
    const decoded = decodeExport({ body: body(encoding, deep), encoding, gzip: false, maxBytes: 1 << 30, maxSpans: 100 });
    expect(decoded.ok, decoded.ok ? '' : decoded.message).toBe(true);
    if (!decoded.ok) return;
    const prepared = unpack(decoded.prepared);
    expect(prepared.events.map((e) => e.key)).toEqual([`${'01'.repeat(16)}/${'0'.repeat(15)}1`, `${'01'.repeat(16)}/${'0'.repeat(15)}3`]);
    expect(prepared.rejected).toHaveLength(1);
    expect(prepared.rejected[0]!.where).toMatch(/spans\[1\]$/);
    expect(prepared.rejected[0]!.message).toContain(`the attribute "gen_ai.input.messages" nests arrays and objects more than ${MAX_NESTING} levels deep`);
  });

  it('at the limit it is read as before: only a nesting past it is refused', () => {
    // the attribute's array is level 1, a message 2, its parts 3, a part 4, the arguments 5
    const fits = '['.repeat(MAX_NESTING - 4) + ']'.repeat(MAX_NESTING - 4);
    const decoded = decodeExport({ body: body('json', fits), encoding: 'json', gzip: false, maxBytes: 1 << 30, maxSpans: 100 });
    expect(decoded.ok && unpack(decoded.prepared).rejected).toEqual([]);
    const past = '['.repeat(MAX_NESTING - 3) + ']'.repeat(MAX_NESTING - 3);
    const refused = decodeExport({ body: body('json', past), encoding: 'json', gzip: false, maxBytes: 1 << 30, maxSpans: 100 });
    expect(refused.ok && unpack(refused.prepared).rejected.length).toBe(1);
  });
});
