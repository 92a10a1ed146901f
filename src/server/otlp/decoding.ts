// Turning an OTLP request body into the adapter's events: gunzip, then protobuf or JSON, a
// count of its spans against the limit, and each span read (prepareSpan) and packed
// (packedEvents.ts). Pure and synchronous: it runs on the
// decode thread (decodeWorker.ts), never on the relay's event loop, where a 16 MiB
// protobuf once blocked every other request for 1.9 s.
import zlib from 'node:zlib';
import { prepareSpan, type PreparedExport } from '../../ingest/adapters/otlp/adapter.ts';
import { attributes, type Attributes, type Rejected } from '../../ingest/adapters/otlp/model.ts';
import { checkJsonBody, countJsonRequestSpans, forEachJsonRequestSpan } from './jsonRequest.ts';
import { EventPacker, type PackedExport } from './packedEvents.ts';
import { countRequestSpans, forEachRequestSpan } from './protobuf.ts';

export interface DecodeJob {
  body: Uint8Array;
  encoding: 'protobuf' | 'json';
  gzip: boolean;
  /** the most bytes once decompressed (--max-message-bytes) */
  maxBytes: number;
  /** the most spans in one export (--max-spans) */
  maxSpans: number;
}

export type Decoded =
  | { ok: true; prepared: PackedExport; spans: number }
  | { ok: false; kind: 'too-large' | 'gzip' | 'decode' | 'not-a-request' | 'too-many-spans'; message: string; spans?: number };

export function decodeExport(job: DecodeJob): Decoded {
  let body = job.body;
  if (job.gzip) {
    try {
      body = zlib.gunzipSync(body, { maxOutputLength: job.maxBytes });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return { ok: false, kind: 'too-large', message: 'decompressed request body' };
      return { ok: false, kind: 'gzip', message: (e as Error).message };
    }
  }
  return job.encoding === 'protobuf' ? decodeProtobuf(body, job.maxSpans) : decodeJson(body, job.maxSpans);
}

/**
 * A protobuf export read span by span (protobuf.ts forEachRequestSpan): what is held at
 * once is the body, the events read so far (packed, packedEvents.ts) and one span as
 * objects, not the whole request three times over (docs/security.md "Bounded amplification").
 */
function decodeProtobuf(body: Uint8Array, maxSpans: number): Decoded {
  let spans: number;
  try {
    spans = countRequestSpans(body);
  } catch (e) {
    return { ok: false, kind: 'decode', message: (e as Error).message };
  }
  if (spans > maxSpans) return { ok: false, kind: 'too-many-spans', message: '', spans };
  const packer = new EventPacker();
  const rejected: Rejected[] = [];
  let resourceOf: Record<string, unknown> | undefined;
  let resource: Attributes = {};
  try {
    forEachRequestSpan(
      body,
      (s) => {
        if (s.resource !== resourceOf) {
          resourceOf = s.resource;
          resource = attributes(s.resource?.attributes);
        }
        packSpan(s.span, resource, s.where, packer, rejected);
      },
      (where, message) => rejected.push({ where, message }),
    );
  } catch (e) {
    return { ok: false, kind: 'decode', message: (e as Error).message };
  }
  return { ok: true, prepared: packer.finish(rejected), spans };
}

/**
 * An OTLP/JSON export read span by span from its bytes (jsonRequest.ts), never parsed
 * whole: the same answers as `JSON.parse` of the body then model.ts readTraceRequest, in
 * the same order of checks (not JSON, then --max-spans, then not a request).
 */
function decodeJson(body: Uint8Array, maxSpans: number): Decoded {
  let root: number;
  try {
    root = checkJsonBody(body);
  } catch (e) {
    return { ok: false, kind: 'decode', message: (e as Error).message };
  }
  const spans = countJsonRequestSpans(body, root);
  if (spans > maxSpans) return { ok: false, kind: 'too-many-spans', message: '', spans };
  const packer = new EventPacker();
  const rejected: Rejected[] = [];
  try {
    forEachJsonRequestSpan(
      body,
      root,
      (s) => packSpan(s.span, s.resource, s.where, packer, rejected),
      (where, message) => rejected.push({ where, message }),
    );
  } catch (e) {
    return { ok: false, kind: 'not-a-request', message: (e as Error).message };
  }
  return { ok: true, prepared: packer.finish(rejected), spans };
}

/** One span read by the adapter (prepareSpan) and packed at once: only one span's objects live at a time. */
function packSpan(raw: unknown, resource: Attributes, where: string, packer: EventPacker, rejected: Rejected[]): void {
  const one: PreparedExport = { events: [], rejected };
  prepareSpan(raw, resource, where, one);
  const e = one.events[0];
  if (e !== undefined) packer.add(e.key, e.event);
}
