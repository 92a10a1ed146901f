// Issue 39: OTLP/JSON is read span by span from the body's bytes (src/server/otlp/jsonRequest.ts)
// instead of JSON.parse of the whole body. What it reads must be what JSON.parse of the body
// then the adapter's readTraceRequest read, body for body: the same spans, rejections, count
// and refusals, including the corners JSON.parse decides (repeated names, escapes, a byte
// order mark, snake_case names, a resource after its spans).
import { describe, expect, it } from 'vitest';
import { prepareExport, type PreparedExport } from '../../src/ingest/adapters/otlp/adapter.ts';
import { decodeExport, type Decoded } from '../../src/server/otlp/decoding.ts';
import { unpack } from '../../src/server/otlp/packedEvents.ts';
import { validateJson, JsonSyntaxError } from '../../src/server/otlp/jsonRequest.ts';
import { otlpExport, SHAPES } from '../../bench/otlpMemory.ts';

/** what the relay answered before: JSON.parse of the whole body, the count, then prepareExport */
function wholeBody(body: Uint8Array, maxSpans = 1e9): { kind: string; spans?: number; prepared?: PreparedExport } {
  let request: unknown;
  try {
    request = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    return { kind: 'decode' };
  }
  const spans = countSpans(request);
  if (spans > maxSpans) return { kind: 'too-many-spans', spans };
  try {
    return { kind: 'ok', spans, prepared: prepareExport(request) };
  } catch {
    return { kind: 'not-a-request' };
  }
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

/** the new decode, its lazily read messages read, in the same shape */
function streamed(body: Uint8Array, maxSpans = 1e9): { kind: string; spans?: number; prepared?: PreparedExport } {
  const d: Decoded = decodeExport({ body, encoding: 'json', gzip: false, maxBytes: 1 << 30, maxSpans });
  if (!d.ok) return d.kind === 'too-many-spans' ? { kind: d.kind, spans: d.spans } : { kind: d.kind };
  const { events, rejected } = unpack(d.prepared);
  // spreading reads each getter: the messages and documents as plain arrays
  return { kind: 'ok', spans: d.spans, prepared: { events: events.map((e) => ({ key: e.key, event: { ...e.event } })), rejected } };
}

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const id = (n: number, digits: number): string => n.toString(16).padStart(digits, '0');

const call = (i: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  traceId: id(1, 32),
  spanId: id(i + 1, 16),
  name: 'chat',
  startTimeUnixNano: String(1000 + i),
  endTimeUnixNano: 2000 + i,
  attributes: [
    { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
    { key: 'gen_ai.conversation.id', value: { stringValue: 'c' } },
    { key: 'gen_ai.input.messages', value: { stringValue: JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: `ask ${i} é 😀` }] }]) } },
  ],
  ...extra,
});

const request = (spans: unknown[]): Record<string, unknown> => ({
  resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] }, scopeSpans: [{ scope: { name: 's' }, spans }] }],
});

describe('OTLP/JSON read span by span', () => {
  const cases: [string, string][] = [
    ['a plain export', JSON.stringify(request([call(0), call(1), call(2)]))],
    ['pretty-printed, with a byte order mark', '\ufeff' + JSON.stringify(request([call(0), call(1)]), null, 2)],
    [
      'the resource after its spans',
      `{"resourceSpans":[{"scopeSpans":[{"spans":[${JSON.stringify(call(0))}]}],"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"late"}}]}}]}`,
    ],
    ['snake_case names', `{"resource_spans":[{"scope_spans":[{"spans":[${JSON.stringify(call(0))}]}]}]}`],
    [
      'both names: camelCase wins',
      `{"resource_spans":[{"scopeSpans":[{"spans":[${JSON.stringify(call(5))}]}]}],"resourceSpans":[{"scopeSpans":[{"spans":[${JSON.stringify(call(0))}]}]}]}`,
    ],
    [
      'a repeated name: the last wins',
      `{"resourceSpans":[{"scopeSpans":[{"spans":[${JSON.stringify(call(0))}]}]}],"resourceSpans":[{"scopeSpans":[{"spans":[${JSON.stringify(call(1))},${JSON.stringify(call(2))}]}]}]}`,
    ],
    ['names written with escapes', `{"resource\\u0053pans":[{"scopeSpans":[{"sp\\u0061ns":[${JSON.stringify(call(0))}]}]}]}`],
    [
      'a ResourceSpans that is not an object, and spans that are not spans',
      `{"resourceSpans":[3,null,{"scopeSpans":[7,{"spans":"x"},{"spans":[1,"two",{"spanId":"00"},${JSON.stringify(call(0))}]}]}]}`,
    ],
    ['no resourceSpans', '{"other": [1, 2]}'],
    ['resourceSpans null', '{"resourceSpans": null}'],
    ['resourceSpans not an array', '{"resourceSpans": {"scopeSpans": []}}'],
    ['not an object', '[{"resourceSpans": []}]'],
    ['a string body', '"resourceSpans"'],
    ['empty arrays and objects', '{"resourceSpans":[{},{"scopeSpans":[]},{"scopeSpans":[{}]},{"resource":{},"scopeSpans":[{"spans":[]}]}]}'],
    [
      'deep nesting inside a span',
      `{"resourceSpans":[{"scopeSpans":[{"spans":[${JSON.stringify(call(0)).slice(0, -1)},"deep":${'['.repeat(5000)}${']'.repeat(5000)}}]}]}]}`,
    ],
    [
      'strings with quotes and backslashes',
      JSON.stringify(request([call(0, { name: 'a "quoted" \\ name \\\\"', events: [{ name: 'x\\"y', attributes: [] }] })])),
    ],
  ];
  it.each(cases)('%s: what JSON.parse of the body read', (_name, text) => {
    const body = bytes(text);
    expect(streamed(body)).toEqual(wholeBody(body));
  });

  it('the bench shapes: the same events, count and rejections', () => {
    for (const shape of SHAPES) {
      const body = otlpExport(shape, 50, 'json');
      const before = wholeBody(body);
      expect(before.prepared!.events.length).toBe(50);
      expect(streamed(body)).toEqual(before);
    }
  });

  it('--max-spans is checked on the count, before any span is read', () => {
    const body = bytes(JSON.stringify(request([call(0), call(1), call(2)])));
    expect(streamed(body, 2)).toEqual({ kind: 'too-many-spans', spans: 3 });
    expect(wholeBody(body, 2)).toEqual({ kind: 'too-many-spans', spans: 3 });
  });

  it('refuses exactly what JSON.parse refuses, naming the byte', () => {
    const bad = [
      '',
      ' ',
      '{',
      '{"resourceSpans": [',
      '{"a":1,}',
      '[1,]',
      '{"a" 1}',
      '{a:1}',
      "{'a':1}",
      '{"a":01}',
      '{"a":1.}',
      '{"a":.5}',
      '{"a":-}',
      '{"a":1e}',
      '{"a":tru}',
      '{"a":nul}',
      '{"a":"\\x"}',
      '{"a":"\\u12"}',
      '{"a":"tab\there"}',
      '{"a":1}}',
      '{"a":1} x',
      '{} {}',
      '\ufeff\ufeff{}',
      '{"a":[1 2]}',
      '{"a":NaN}',
      '{"a":Infinity}',
      '{"a":+1}',
    ];
    for (const text of bad) {
      const body = bytes(text);
      expect(wholeBody(body).kind, text).toBe('decode');
      expect(streamed(body).kind, text).toBe('decode');
    }
    const d = decodeExport({ body: bytes('{"a":1,}'), encoding: 'json', gzip: false, maxBytes: 1 << 30, maxSpans: 10 });
    expect(d).toMatchObject({ ok: false, kind: 'decode', message: 'unexpected "}" at byte 7, expected a member name (a string)' });
    // invalid UTF-8 is refused as the UTF-8 decoding of the whole body refused it
    const notUtf8 = new Uint8Array([...bytes('{"a":"'), 0xff, ...bytes('"}')]);
    expect(decodeExport({ body: notUtf8, encoding: 'json', gzip: false, maxBytes: 1 << 30, maxSpans: 10 })).toMatchObject({
      ok: false,
      kind: 'decode',
      message: 'The encoded data was not valid for encoding utf-8',
    });
  });

  it('accepts and refuses as JSON.parse does, over 3,000 mutations of a small export', () => {
    const base = JSON.stringify(request([call(0, { events: [{ name: 'e', timeUnixNano: '5', attributes: [{ key: 'n', value: { doubleValue: -1.5e3 } }] }] })]));
    const alphabet = '{}[],:"\\ 0123456789.eE+-tfnulraxs';
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    let refused = 0;
    for (let k = 0; k < 3000; k++) {
      const at = random(base.length);
      const c = alphabet[random(alphabet.length)]!;
      const op = random(3);
      const text =
        op === 0 ? base.slice(0, at) + base.slice(at + 1) : op === 1 ? base.slice(0, at) + c + base.slice(at) : base.slice(0, at) + c + base.slice(at + 1);
      let parses = true;
      try {
        JSON.parse(text);
      } catch {
        parses = false;
      }
      let valid = true;
      try {
        validateJson(bytes(text), 0);
      } catch (e) {
        expect(e).toBeInstanceOf(JsonSyntaxError);
        valid = false;
      }
      expect(valid, text).toBe(parses);
      if (!parses) refused++;
      else expect(streamed(bytes(text))).toEqual(wholeBody(bytes(text)));
    }
    // the mutations exercise both answers
    expect(refused).toBeGreaterThan(500);
    expect(refused).toBeLessThan(2900);
  });
});
