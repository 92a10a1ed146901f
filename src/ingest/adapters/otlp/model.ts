// An OTLP trace export request (ExportTraceServiceRequest) as plain spans, whichever
// encoding it came in (contract §7.4, docs/adapters.md "OpenTelemetry"):
// - OTLP/JSON: lowerCamelCase keys, trace and span ids as hex strings, 64-bit integers as
//   decimal strings or numbers, enums as integers;
// - OTLP/protobuf, decoded by the official definitions' generated code and turned into an
//   object with `toObject({longs: String, bytes: Array})`: the same keys, ids as byte arrays.
// Web APIs only, no Node: the mapping is pure and unit-tested. A span that cannot be read
// (no ids, no start time) is rejected with a message naming where it is and why; the
// others are read.

export type AttrValue = string | number | boolean | null | AttrValue[] | { [key: string]: AttrValue };
export type Attributes = Record<string, AttrValue>;

export interface OtlpEvent {
  name: string;
  timeNs: bigint;
  attributes: Attributes;
}

export interface OtlpSpan {
  /** 32 lowercase hex digits */
  traceId: string;
  /** 16 lowercase hex digits */
  spanId: string;
  parentSpanId: string;
  name: string;
  startNs: bigint;
  endNs: bigint;
  attributes: Attributes;
  events: OtlpEvent[];
  resource: Attributes;
  /** where the span is in the request, for messages: `resourceSpans[0].scopeSpans[1].spans[3]` */
  where: string;
}

export interface Rejected {
  where: string;
  message: string;
}

export interface ReadRequest {
  spans: OtlpSpan[];
  rejected: Rejected[];
}

type JsonObject = Record<string, unknown>;

/** The spans of an ExportTraceServiceRequest (JSON, or protobuf as an object); throws only when the request itself is not one. */
export function readTraceRequest(request: unknown): ReadRequest {
  if (!isObject(request)) throw new Error('the body is not an ExportTraceServiceRequest: expected a JSON object with "resourceSpans"');
  const spans: OtlpSpan[] = [];
  const rejected: Rejected[] = [];
  const resourceSpans = field(request, 'resourceSpans', 'resource_spans');
  if (resourceSpans === undefined || resourceSpans === null) return { spans, rejected };
  if (!Array.isArray(resourceSpans)) throw new Error('"resourceSpans" is not an array');
  resourceSpans.forEach((rs, r) => {
    if (!isObject(rs)) {
      rejected.push({ where: `resourceSpans[${r}]`, message: 'not an object' });
      return;
    }
    const resourceObj = field(rs, 'resource');
    const resource = isObject(resourceObj) ? attributes(field(resourceObj, 'attributes')) : {};
    const scopeSpans = field(rs, 'scopeSpans', 'scope_spans');
    if (!Array.isArray(scopeSpans)) return;
    scopeSpans.forEach((ss, s) => {
      const list = isObject(ss) ? field(ss, 'spans') : undefined;
      if (!Array.isArray(list)) return;
      list.forEach((raw, i) => {
        const where = `resourceSpans[${r}].scopeSpans[${s}].spans[${i}]`;
        try {
          spans.push(readSpan(raw, resource, where));
        } catch (e) {
          rejected.push({ where, message: (e as Error).message });
        }
      });
    });
  });
  return { spans, rejected };
}

/** One span of a request (as readTraceRequest reads each); throws, with why, when it cannot be read. */
export function readSpan(raw: unknown, resource: Attributes, where: string): OtlpSpan {
  if (!isObject(raw)) throw new Error('the span is not an object');
  const traceId = id(field(raw, 'traceId', 'trace_id'), 16, 'traceId');
  const spanId = id(field(raw, 'spanId', 'span_id'), 8, 'spanId');
  const parent = field(raw, 'parentSpanId', 'parent_span_id');
  const parentSpanId =
    parent === undefined || parent === null || parent === '' || (Array.isArray(parent) && parent.length === 0) ? '' : id(parent, 8, 'parentSpanId');
  const startNs = nanos(field(raw, 'startTimeUnixNano', 'start_time_unix_nano'), 'startTimeUnixNano');
  const endRaw = field(raw, 'endTimeUnixNano', 'end_time_unix_nano');
  const endNs = endRaw === undefined ? startNs : nanos(endRaw, 'endTimeUnixNano');
  const name = field(raw, 'name');
  const eventsRaw = field(raw, 'events');
  const events: OtlpEvent[] = [];
  if (Array.isArray(eventsRaw)) {
    eventsRaw.forEach((ev, k) => {
      if (!isObject(ev)) return;
      const t = field(ev, 'timeUnixNano', 'time_unix_nano');
      const evName = field(ev, 'name');
      events.push({
        name: typeof evName === 'string' ? evName : '',
        timeNs: t === undefined ? startNs : nanos(t, `events[${k}].timeUnixNano`),
        attributes: attributes(field(ev, 'attributes')),
      });
    });
  }
  return {
    traceId,
    spanId,
    parentSpanId,
    name: typeof name === 'string' ? name : '',
    startNs,
    endNs,
    attributes: attributes(field(raw, 'attributes')),
    events,
    resource,
    where,
  };
}

/** OTLP/JSON: ids are hex (not base64, unlike the usual protobuf JSON mapping); protobuf: bytes. */
function id(v: unknown, bytes: number, name: string): string {
  let hex: string | null = null;
  if (typeof v === 'string' && /^[0-9a-fA-F]*$/.test(v)) hex = v.toLowerCase();
  else if (Array.isArray(v) && v.every((b) => typeof b === 'number' && Number.isInteger(b) && b >= 0 && b < 256)) {
    hex = (v as number[]).map((b) => b.toString(16).padStart(2, '0')).join('');
  } else if (v instanceof Uint8Array) hex = [...v].map((b) => b.toString(16).padStart(2, '0')).join('');
  if (hex === null) throw new Error(`${name} must be ${bytes * 2} hex digits, got ${describe(v)}`);
  if (hex.length !== bytes * 2) throw new Error(`${name} must be ${bytes * 2} hex digits (${bytes} bytes), got ${hex.length / 2} bytes`);
  if (/^0+$/.test(hex)) throw new Error(`${name} is all zeros, which OTLP says is invalid`);
  return hex;
}

/** fixed64 nanoseconds: a decimal string (the JSON mapping of 64-bit integers) or a safe number. */
function nanos(v: unknown, name: string): bigint {
  if (typeof v === 'string' && /^\d{1,20}$/.test(v)) return BigInt(v);
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  throw new Error(`${name} must be a whole number of nanoseconds (a decimal string or number), got ${describe(v)}`);
}

/** A KeyValue list as a plain object; each AnyValue as its JSON-like value. */
export function attributes(list: unknown): Attributes {
  const out: Attributes = {};
  if (!Array.isArray(list)) return out;
  for (const kv of list) {
    if (!isObject(kv) || typeof kv.key !== 'string') continue;
    out[kv.key] = anyValue(kv.value, 0);
  }
  return out;
}

/** AnyValue (common.proto): exactly one of its value fields; int64 as a number when safe, else its decimal string. */
function anyValue(v: unknown, depth: number): AttrValue {
  if (!isObject(v) || depth > 32) return null;
  const s = field(v, 'stringValue', 'string_value');
  if (typeof s === 'string') return s;
  const b = field(v, 'boolValue', 'bool_value');
  if (typeof b === 'boolean') return b;
  const i = field(v, 'intValue', 'int_value');
  if (typeof i === 'number') return i;
  if (typeof i === 'string' && /^-?\d+$/.test(i)) {
    const n = Number(i);
    return Number.isSafeInteger(n) ? n : i;
  }
  const d = field(v, 'doubleValue', 'double_value');
  if (typeof d === 'number') return d;
  if (typeof d === 'string' && d !== '' && Number.isFinite(Number(d))) return Number(d);
  const arr = field(v, 'arrayValue', 'array_value');
  if (isObject(arr)) {
    const values = field(arr, 'values');
    return Array.isArray(values) ? values.map((x) => anyValue(x, depth + 1)) : [];
  }
  const kvl = field(v, 'kvlistValue', 'kvlist_value');
  if (isObject(kvl)) {
    const out: { [key: string]: AttrValue } = {};
    const values = field(kvl, 'values');
    if (Array.isArray(values)) for (const kv of values) if (isObject(kv) && typeof kv.key === 'string') out[kv.key] = anyValue(kv.value, depth + 1);
    return out;
  }
  const bytes = field(v, 'bytesValue', 'bytes_value');
  if (typeof bytes === 'string') return bytes;
  if (Array.isArray(bytes)) return `[${bytes.length} bytes]`;
  return null;
}

function field(o: JsonObject, camel: string, snake?: string): unknown {
  if (camel in o) return o[camel];
  return snake === undefined ? undefined : o[snake];
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}
