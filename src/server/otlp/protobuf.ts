// OTLP/protobuf through the official OpenTelemetry protobuf definitions: the code that
// protobufjs generated from opentelemetry-proto, as @opentelemetry/otlp-transformer
// 0.216.0 ships it (later versions write requests by hand and no longer decode them). No
// protobuf is parsed by hand here: decoding, and encoding the answer, is that code's;
// google.rpc.Status (the error body, not in those definitions) is written with protobufjs's
// own Writer. Imported, not required at run time, so that the package's compiled CLI
// (scripts/build-package.ts) carries that code in its bundle instead of depending on the package.
import generated from '@opentelemetry/otlp-transformer/build/src/generated/root.js';
import protobuf from 'protobufjs/minimal.js';

interface MessageType {
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: Record<string, unknown>): Record<string, unknown>;
  fromObject(object: Record<string, unknown>): unknown;
  encode(message: unknown): { finish(): Uint8Array };
}

interface GeneratedRoot {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: MessageType; ExportTraceServiceResponse: MessageType } } } } };
}

const root = generated as unknown as GeneratedRoot;
const service = root.opentelemetry.proto.collector.trace.v1;

/**
 * An ExportTraceServiceRequest as the object model.ts reads: camelCase keys, 64-bit
 * integers as decimal strings, bytes (ids) as byte arrays. Throws on a body that is not
 * one (truncated, or not protobuf at all), with protobufjs's reason.
 */
export function decodeTraceRequest(body: Uint8Array): Record<string, unknown> {
  const message = service.ExportTraceServiceRequest.decode(body);
  return service.ExportTraceServiceRequest.toObject(message, { longs: String, bytes: Array, arrays: true, defaults: false });
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
