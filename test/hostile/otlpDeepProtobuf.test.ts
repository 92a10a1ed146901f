// Issue 39, "No input ends a read": an OTLP/protobuf span whose attribute value (an AnyValue
// array inside an array, …) nests 100k deep overflowed protobufjs's recursive decoder, and the
// whole export answered 400 "Maximum call stack size exceeded". Now that span is refused alone,
// saying why, and the spans beside it are read. A value nested hundreds deep, which the decoder
// reads, in an attribute the adapter does not read, is read as OTLP/JSON reads it. The body is
// written byte by byte here: protobufjs's encoder recurses too.
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
const root = require('@opentelemetry/otlp-transformer/build/src/generated/root.js') as { opentelemetry: { proto: { trace: { v1: { Span: MessageType } } } } };
const Span = root.opentelemetry.proto.trace.v1.Span;

const varint = (n: number): number[] => {
  const out: number[] = [];
  while (n > 127) {
    out.push((n & 127) | 128);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
};
/** A length-delimited field: its tag, its length, its bytes. */
const field = (num: number, body: Uint8Array): Uint8Array => Buffer.concat([Buffer.from([(num << 3) | 2, ...varint(body.length)]), body]);

/** AnyValue{array_value: ArrayValue{values: [AnyValue{array_value: …}]}}, `levels` deep, in linear time. */
function deepAnyValue(levels: number): Uint8Array {
  const anyLength = [0];
  const arrayLength = [0];
  for (let k = 1; k <= levels; k++) {
    arrayLength[k] = 1 + varint(anyLength[k - 1]!).length + anyLength[k - 1]!;
    anyLength[k] = 1 + varint(arrayLength[k]!).length + arrayLength[k]!;
  }
  const out = new Uint8Array(anyLength[levels]!);
  let at = 0;
  const put = (bytes: number[]): void => {
    out.set(bytes, at);
    at += bytes.length;
  };
  for (let k = levels; k >= 1; k--) {
    put([(5 << 3) | 2, ...varint(arrayLength[k]!)]); // AnyValue.array_value
    put([(1 << 3) | 2, ...varint(anyLength[k - 1]!)]); // ArrayValue.values
  }
  return out;
}

function span(i: number): Uint8Array {
  return Span.encode(Span.fromObject(chatSpanObject(i, JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: `prompt ${i}` }] }])))).finish();
}

/** An export of three spans, the middle one with one more attribute nested `levels` deep (span.attributes is field 9). */
function body(levels: number): Uint8Array {
  const deep = Buffer.concat([span(1), field(9, Buffer.concat([field(1, Buffer.from('deep')), field(2, deepAnyValue(levels))]))]);
  const scopeSpans = Buffer.concat([field(2, span(0)), field(2, deep), field(2, span(2))]);
  return field(1, field(2, scopeSpans)); // ExportTraceServiceRequest.resource_spans → ResourceSpans.scope_spans
}

const key = (i: number): string => `${'01'.repeat(16)}/${(i + 1).toString(16).padStart(16, '0')}`;

describe('an OTLP/protobuf attribute value nested too deep', () => {
  it.each([100_000, 20_000])('%i levels: that span is refused saying why; the spans beside it are read', (levels) => {
    const decoded = decodeExport({ body: body(levels), encoding: 'protobuf', gzip: false, maxBytes: 1 << 30, maxSpans: 100 });
    expect(decoded.ok, decoded.ok ? '' : decoded.message).toBe(true);
    if (!decoded.ok) return;
    const prepared = unpack(decoded.prepared);
    expect(prepared.events.map((e) => e.key)).toEqual([key(0), key(2)]);
    expect(prepared.rejected).toHaveLength(1);
    expect(prepared.rejected[0]!.where).toBe('resourceSpans[0].scopeSpans[0].spans[1]');
    expect(prepared.rejected[0]!.message).toBe(
      `the span nests attribute values deeper than the protobuf decoder can read (thousands of levels; an attribute the adapter reads is refused past ${MAX_NESTING})`,
    );
  });

  it.each([8, 500])('%i levels, in an attribute the adapter does not read: every span is read, as before', (levels) => {
    const decoded = decodeExport({ body: body(levels), encoding: 'protobuf', gzip: false, maxBytes: 1 << 30, maxSpans: 100 });
    expect(decoded.ok && unpack(decoded.prepared).events.map((e) => e.key)).toEqual([key(0), key(1), key(2)]);
  });
});
