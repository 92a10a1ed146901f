// Turning an OTLP request body into the adapter's events: gunzip, then protobuf or JSON, a
// count of its spans against the limit, and each span read (prepareExport). Pure and synchronous: it runs on the
// decode thread (decodeWorker.ts), never on the relay's event loop, where a 16 MiB
// protobuf once blocked every other request for 1.9 s.
import zlib from 'node:zlib';
import { prepareExport, prepareSpan, type PreparedExport } from '../../ingest/adapters/otlp/adapter.ts';
import { attributes, type Attributes } from '../../ingest/adapters/otlp/model.ts';
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
  | { ok: true; prepared: PreparedExport; spans: number }
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
  if (job.encoding === 'protobuf') return decodeProtobuf(body, job.maxSpans);
  let request: unknown;
  try {
    request = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch (e) {
    return { ok: false, kind: 'decode', message: (e as Error).message };
  }
  const spans = countSpans(request);
  if (spans > job.maxSpans) return { ok: false, kind: 'too-many-spans', message: '', spans };
  // the spans become events here too: only what the adapter maps crosses back to the event loop
  try {
    return { ok: true, prepared: prepareExport(request), spans };
  } catch (e) {
    return { ok: false, kind: 'not-a-request', message: (e as Error).message };
  }
}

/**
 * A protobuf export read span by span (protobuf.ts forEachRequestSpan): what is held at
 * once is the body, the events read so far and one span as objects, not the whole
 * request three times over (docs/security.md "Bounded amplification").
 */
function decodeProtobuf(body: Uint8Array, maxSpans: number): Decoded {
  let spans: number;
  try {
    spans = countRequestSpans(body);
  } catch (e) {
    return { ok: false, kind: 'decode', message: (e as Error).message };
  }
  if (spans > maxSpans) return { ok: false, kind: 'too-many-spans', message: '', spans };
  const prepared: PreparedExport = { events: [], rejected: [] };
  let resourceOf: Record<string, unknown> | undefined;
  let resource: Attributes = {};
  try {
    forEachRequestSpan(body, (s) => {
      if (s.resource !== resourceOf) {
        resourceOf = s.resource;
        resource = attributes(s.resource?.attributes);
      }
      prepareSpan(s.span, resource, s.where, prepared);
    });
  } catch (e) {
    return { ok: false, kind: 'decode', message: (e as Error).message };
  }
  return { ok: true, prepared, spans };
}

function countSpans(request: unknown): number {
  let n = 0;
  const resources = (request as { resourceSpans?: unknown } | null)?.resourceSpans;
  if (!Array.isArray(resources)) return 0;
  for (const r of resources) {
    const scopes = (r as { scopeSpans?: unknown } | null)?.scopeSpans;
    if (!Array.isArray(scopes)) continue;
    for (const s of scopes) {
      const spans = (s as { spans?: unknown } | null)?.spans;
      if (Array.isArray(spans)) n += spans.length;
    }
  }
  return n;
}
