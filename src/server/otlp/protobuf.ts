// OTLP/protobuf through the official OpenTelemetry protobuf definitions: the code that
// protobufjs generated from opentelemetry-proto, as @opentelemetry/otlp-transformer
// 0.216.0 ships it (later versions write requests by hand and no longer decode them). No
// protobuf is parsed by hand here: decoding, and encoding the answer, is that code's;
// google.rpc.Status (the error body, not in those definitions) is written with protobufjs's
// own Writer. Imported, not required at run time, so that the package's compiled CLI
// (scripts/build-package.ts) carries that code in its bundle instead of depending on the package.
import generated from '@opentelemetry/otlp-transformer/build/src/generated/root.js';
import protobuf from 'protobufjs/minimal.js';
import { MAX_NESTING } from '../../core/nesting.ts';

interface MessageType {
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: Record<string, unknown>): Record<string, unknown>;
  fromObject(object: Record<string, unknown>): unknown;
  encode(message: unknown): { finish(): Uint8Array };
}

interface GeneratedRoot {
  opentelemetry: {
    proto: {
      collector: { trace: { v1: { ExportTraceServiceRequest: MessageType; ExportTraceServiceResponse: MessageType } } };
      trace: { v1: { Span: MessageType } };
      resource: { v1: { Resource: MessageType } };
    };
  };
}

const root = generated as unknown as GeneratedRoot;
const service = root.opentelemetry.proto.collector.trace.v1;
const SpanType = root.opentelemetry.proto.trace.v1.Span;
const ResourceType = root.opentelemetry.proto.resource.v1.Resource;
const TO_OBJECT = { longs: String, bytes: Array, arrays: true, defaults: false };

/**
 * An ExportTraceServiceRequest as the object model.ts reads: camelCase keys, 64-bit
 * integers as decimal strings, bytes (ids) as byte arrays. Throws on a body that is not
 * one (truncated, or not protobuf at all), with protobufjs's reason.
 */
export function decodeTraceRequest(body: Uint8Array): Record<string, unknown> {
  const message = service.ExportTraceServiceRequest.decode(body);
  return service.ExportTraceServiceRequest.toObject(message, { longs: String, bytes: Array, arrays: true, defaults: false });
}

/** One span of a request, as decodeTraceRequest would give it, with its resource and place. */
export interface RequestSpan {
  span: Record<string, unknown>;
  /** the resource of the span's ResourceSpans (one object for all of them), undefined when it has none */
  resource: Record<string, unknown> | undefined;
  /** `resourceSpans[r].scopeSpans[s].spans[i]` */
  where: string;
}

/**
 * The spans of an ExportTraceServiceRequest one at a time, without the whole request as
 * objects. Decoding the request at once (decodeTraceRequest) held every span three times
 * (protobufjs's messages, their toObject copy, then the adapter's spans): a 15 MiB export
 * peaked at many times its size. Here only the envelopes (ExportTraceServiceRequest,
 * ResourceSpans, ScopeSpans: three fields that frame the rest) are walked with protobufjs's
 * Reader; each Span and Resource is still decoded by the generated code, from a view of
 * the body, and dropped once `visit` has read it. Throws as decode() does on a body that is
 * not a request.
 */
export function forEachRequestSpan(body: Uint8Array, visit: (s: RequestSpan) => void, refuse: (where: string, message: string) => void): void {
  // a Buffer view (no copy): protobufjs then reads strings with Node's native UTF-8 decoder, not its own in JS
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  walkRequest(bytes, (start, end, resource, where) => {
    if (resource === TOO_DEEP) return refuse(where, tooDeep('its resource'));
    const span = decodeNested(() => SpanType.toObject(SpanType.decode(bytes.subarray(start, end)), TO_OBJECT));
    if (span === TOO_DEEP) return refuse(where, tooDeep('the span'));
    visit({ span, resource, where });
  });
}

/**
 * docs/security.md "No input ends a read": protobufjs decodes a nested message (an AnyValue's
 * array or key-value list) by recursion, so a value nested ~100k deep overflows the stack. The
 * envelopes are walked without recursion, so such a span (or resource) is refused alone and
 * the spans beside it are read; any other decode error still ends the export, as a body that
 * is not a request.
 */
const TOO_DEEP = Symbol('too deep');

function decodeNested<T>(decode: () => T): T | typeof TOO_DEEP {
  try {
    return decode();
  } catch (e) {
    if (e instanceof RangeError && /call stack/i.test(e.message)) return TOO_DEEP;
    throw e;
  }
}

function tooDeep(what: string): string {
  return `${what} nests attribute values deeper than the protobuf decoder can read (thousands of levels; an attribute the adapter reads is refused past ${MAX_NESTING})`;
}

/** The spans in a request, counted without decoding them (the --max-spans check comes before the work). */
export function countRequestSpans(body: Uint8Array): number {
  let n = 0;
  walkRequest(body, () => n++, false);
  return n;
}

/** field numbers of the envelopes (trace_service.proto, trace.proto) */
const RESOURCE_SPANS = 1;
const RESOURCE = 1;
const SCOPE_SPANS = 2;
const SPANS = 2;
const LENGTH_DELIMITED = 2;

function walkRequest(
  body: Uint8Array,
  onSpan: (start: number, end: number, resource: Record<string, unknown> | undefined | typeof TOO_DEEP, where: string) => void,
  decodeResource = true,
): void {
  let r = 0;
  fields(body, 0, body.length, (field, wire, start, end) => {
    if (field !== RESOURCE_SPANS || wire !== LENGTH_DELIMITED) return;
    // the resource first, wherever it is written among the ResourceSpans' fields
    let resource: Record<string, unknown> | undefined | typeof TOO_DEEP;
    if (decodeResource) {
      fields(body, start, end, (f, w, s, e) => {
        if (f === RESOURCE && w === LENGTH_DELIMITED) resource = decodeNested(() => ResourceType.toObject(ResourceType.decode(body.subarray(s, e)), TO_OBJECT));
      });
    }
    let scope = 0;
    fields(body, start, end, (f, w, s, e) => {
      if (f !== SCOPE_SPANS || w !== LENGTH_DELIMITED) return;
      let i = 0;
      fields(body, s, e, (f2, w2, s2, e2) => {
        if (f2 !== SPANS || w2 !== LENGTH_DELIMITED) return;
        onSpan(s2, e2, resource, `resourceSpans[${r}].scopeSpans[${scope}].spans[${i}]`);
        i++;
      });
      scope++;
    });
    r++;
  });
}

/** Each field of the message in body[start, end): its number, wire type and (length-delimited) payload range. */
function fields(body: Uint8Array, start: number, end: number, visit: (field: number, wire: number, start: number, end: number) => void): void {
  const reader = protobuf.Reader.create(body.subarray(start, end));
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const wire = tag & 7;
    if (tag >>> 3 === 0) throw new Error(`illegal field number 0 at offset ${start + reader.pos}`);
    if (wire === LENGTH_DELIMITED) {
      const length = reader.uint32();
      const from = reader.pos;
      if (from + length > reader.len) throw new RangeError(`index out of range: ${from} + ${length} > ${reader.len}`);
      reader.pos += length;
      visit(tag >>> 3, wire, start + from, start + from + length);
    } else {
      reader.skipType(wire);
      visit(tag >>> 3, wire, -1, -1);
    }
  }
}

/** ExportTraceServiceResponse: empty on full success, else partial_success. */
export function encodeTraceResponse(partial: { rejectedSpans: number; errorMessage: string } | null): Uint8Array {
  const object = partial === null ? {} : { partialSuccess: partial };
  return service.ExportTraceServiceResponse.encode(service.ExportTraceServiceResponse.fromObject(object)).finish();
}

/** google.rpc.Status {int32 code = 1; string message = 2;}, the body of an OTLP/HTTP error. */
export function encodeStatus(code: number, message: string): Uint8Array {
  return protobuf.Writer.create()
    .uint32((1 << 3) | 0)
    .int32(code)
    .uint32((2 << 3) | 2)
    .string(message)
    .finish();
}
