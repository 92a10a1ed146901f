// NodeLineParser reads non-ASCII lines as latin1 and decodes only the strings that need it.
// It must be exact: every line it parses equals JSON.parse of the line's UTF-8 text (key
// order included), and every other line is handed on as that text.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Engine } from '../core/engine.ts';
import { CheckOutputBuilder } from '../core/checkOutput.ts';
import { TranscriptSplitter } from '../ingest/transcript.ts';
import { simulateSession, allFaults } from '../sim/scenario.ts';
import { NodeLineParser, onlyAsciiEscapes } from './lineParser.ts';
import { nodeDecoder, nodeSha256 } from './platform.ts';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** What the ordinary path gives for these bytes: the UTF-8 text and its JSON.parse (or a decode error). */
function reference(bytes: Uint8Array): { text: string; value?: unknown } | 'bad utf-8' {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return 'bad utf-8';
  }
  try {
    return { text, value: JSON.parse(text) as unknown };
  } catch {
    return { text };
  }
}

function everyString(v: unknown, visit: (s: string) => void): void {
  if (typeof v === 'string') visit(v);
  else if (Array.isArray(v)) for (const x of v) everyString(x, visit);
  else if (typeof v === 'object' && v !== null) {
    for (const [k, x] of Object.entries(v)) {
      visit(k);
      everyString(x, visit);
    }
  }
}

/** The parser's answer for one line agrees with the ordinary path. */
function expectExact(parser: NodeLineParser, bytes: Uint8Array): 'text' | 'parsed' {
  const ref = reference(bytes);
  let got: ReturnType<NodeLineParser['decode']> | 'bad utf-8';
  try {
    got = parser.decode(bytes, 0, bytes.length);
  } catch {
    got = 'bad utf-8';
  }
  if (ref === 'bad utf-8' || got === 'bad utf-8') {
    expect(got).toBe(ref);
    return 'text';
  }
  if (typeof got === 'string') {
    expect(got).toBe(ref.text);
    return 'text';
  }
  expect('value' in ref).toBe(true);
  expect(got.parsed).toStrictEqual(ref.value);
  // same key order, same own "__proto__" keys
  expect(JSON.stringify(got.parsed)).toBe(JSON.stringify(ref.value));
  everyString(got.parsed, (s) => expect(s.isWellFormed()).toBe(true));
  return 'parsed';
}

const span = (id: unknown, text: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  span_id: id,
  text,
  score: 0.5,
  text_sha256: null,
  ...extra,
});
const snap = (spans: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 'snapshot',
  session_id: 's',
  turn: 1,
  spans,
  ...extra,
});

describe('NodeLineParser agrees with JSON.parse of the UTF-8 text', () => {
  it.each<[string, string | Uint8Array]>([
    ['an ASCII line', JSON.stringify(snap([span('a', 'plain')]))],
    ['non-ASCII span texts', JSON.stringify(snap([span('a', 'naïve café'), span('b', '中文的上下文窗口 🌍'), span('c', 'plain')]))],
    ['a non-ASCII span id', JSON.stringify(snap([span('ü', 'café')]))],
    ['a non-ASCII role and unknown field', JSON.stringify(snap([span('a', 'café', { role: 'système', note: ['→', { k: '€' }] })]))],
    ['a non-ASCII key', JSON.stringify(snap([span('a', 'café', { clé: 1, naïve: 'é' })], { ключ: 'значение' }))],
    ['a non-ASCII session_id and no texts', JSON.stringify(snap([], { session_id: 'run-ü' }))],
    ['a header with a non-ASCII title', JSON.stringify({ type: 'session', session_id: 's', title: 'Überschrift 🌍' })],
    ['a text that is not a string', JSON.stringify(snap([span('a', ['é']), span('b', 'é')]))],
    ['a span_id that is not a string', JSON.stringify(snap([span(7, 'é'), span(null, 'é')]))],
    ['spans that are not objects', JSON.stringify(snap(['é', 3, null, ['é'], span('a', 'é')]))],
    ['spans not an array', JSON.stringify(snap({ text: 'é' } as unknown as unknown[]))],
    ['a top-level string', JSON.stringify('café')],
    ['a top-level array', JSON.stringify([{ text: 'é', span_id: 'a' }])],
    [
      'ASCII escapes',
      '{"type":"snapshot","session_id":"s","turn":1,"spans":[{"span_id":"a","text":"caf\\u00e9 \\u0041 é \\u001b[0m","score":null,"text_sha256":null}]}',
    ],
    [
      'only ASCII escapes beside raw non-ASCII',
      '{"type":"snapshot","session_id":"s\\u0021","turn":1,"spans":[{"span_id":"a","text":"\\u0041 é","score":null,"text_sha256":null}]}',
    ],
    ['a \\u00e9 escape beside raw é', '{"spans":[{"span_id":"a","text":"\\u00e9 é"}]}'],
    ['a surrogate pair escape beside raw text', '{"spans":[{"span_id":"a","text":"\\ud83c\\udf0d é"}]}'],
    ['a lone surrogate escape beside raw text', '{"spans":[{"span_id":"a","text":"\\ud800 é"}]}'],
    ['an escaped backslash before u00e9', '{"spans":[{"span_id":"a","text":"C:\\\\u00e9 é"}]}'],
    ['quotes, backslashes and control escapes around non-ASCII', JSON.stringify(snap([span('a', 'é"\\\n\t\u0001é')]))],
    ['a duplicate key whose first value is non-ASCII', '{"spans":[{"span_id":"a","text":"é","text":"x"}]}'],
    ['a duplicate key whose last value is non-ASCII', '{"spans":[{"span_id":"a","text":"x","text":"é"}]}'],
    ['duplicate non-ASCII keys', '{"é":1,"é":2,"spans":[]}'],
    ['an own __proto__ key beside non-ASCII', '{"__proto__":{"é":"é"},"spans":[{"span_id":"a","text":"é","__proto__":"é"}]}'],
    ['a __proto__ key in an object with a non-ASCII key', '{"__proto__":1,"é":2}'],
    ['not JSON, with non-ASCII', '{"type":"snapshot", not json 🌍}'],
    ['NaN with non-ASCII', '{"spans":[{"text":"é","score":NaN}]}'],
    ['non-ASCII outside a string', '{"a":1é}'],
    ['NBSP as white space', '{"a":\u00a01}'],
    ['a C1 control character in a string', '{"spans":[{"span_id":"a","text":"\u0085é"}]}'],
    ['invalid UTF-8', new Uint8Array([...utf8('{"spans":[{"text":"'), 0xff, ...utf8('"}]}')])],
    ['an encoded surrogate (CESU-8)', new Uint8Array([...utf8('{"spans":[{"text":"'), 0xed, 0xa0, 0x80, ...utf8('"}]}')])],
  ])('%s', (_what, line) => {
    expectExact(new NodeLineParser(), typeof line === 'string' ? utf8(line) : line);
  });

  it('takes the fast path for lines whose only non-ASCII is in span texts', () => {
    const parser = new NodeLineParser();
    expect(expectExact(parser, utf8(JSON.stringify(snap([span('a', 'naïve café'), span('b', '🌍')], { note: 'ascii' }))))).toBe('parsed');
    expect(expectExact(parser, utf8(JSON.stringify(snap([span('a', 'é')], { note: 'é' }))))).toBe('parsed');
    expect(expectExact(parser, utf8('{"spans":[{"span_id":"a","text":"\\u00e9 é"}]}'))).toBe('text');
    expect(expectExact(parser, utf8('{"spans":[{"span_id":"a","text":"\\ud800 é"}]}'))).toBe('text');
  });

  it('hands a line nested past the limit, with non-ASCII outside span texts, on as its text instead of throwing', () => {
    // decodeDeep is recursive: at 100,000 levels it overflowed, and the splitter reported "not valid UTF-8"
    const deep = '{"type":"snapshot","session_id":"s","turn":1,"spans":[],"meta":' + '['.repeat(100_000) + '"é"' + ']'.repeat(100_000) + '}';
    const decoded = new NodeLineParser().decode(utf8(deep), 0, utf8(deep).length);
    expect(decoded).toBe(deep);
  });

  it('a span text is decoded afresh when it changes under the same id, also to one of the same length', () => {
    const parser = new NodeLineParser();
    const texts = ['café', 'cafè', 'cafè', 'ascii', 'ascii', '🌍🌍', 'cafè'];
    for (const t of texts) {
      expectExact(parser, utf8(JSON.stringify(snap([span('a', t), span('b', texts[0]), span('c', t)]))));
    }
  });

  it('spans that move, disappear and swap ids between lines, and interleaved sessions', () => {
    const parser = new NodeLineParser();
    const lines = [
      snap([span('a', 'é1'), span('b', 'é2'), span('c', 'é3')]),
      snap([span('b', 'é2'), span('c', 'é3')]),
      snap([span('c', 'é2'), span('b', 'é3'), span('a', 'é1')]),
      snap([span('a', 'ü')], { session_id: 'other' }),
      snap([span('c', 'é2'), span('b', 'é3'), span('a', 'é1')]),
      snap([span('a', 'é1'), span('a', 'é2')]),
    ];
    for (const l of lines) expect(expectExact(parser, utf8(JSON.stringify(l)))).toBe('parsed');
  });

  it('onlyAsciiEscapes', () => {
    expect(onlyAsciiEscapes('{"a":"\\u0000\\u007f\\u0041"}')).toBe(true);
    expect(onlyAsciiEscapes('{"a":"\\u0080"}')).toBe(false);
    expect(onlyAsciiEscapes('{"a":"\\u00e9"}')).toBe(false);
    expect(onlyAsciiEscapes('{"a":"\\u0100"}')).toBe(false);
    expect(onlyAsciiEscapes('{"a":"\\uD800"}')).toBe(false);
    expect(onlyAsciiEscapes('{"a":"\\u00')).toBe(false);
  });
});

// ---------------------------------------------------------------- random lines, in sequence

const pool = ['naïve café', 'cafè naïve', '中文', '🌍', 'plain', '', 'é"\\\n', 'x'.repeat(40) + 'ü'];
const anyText = fc.oneof(fc.constantFrom(...pool), fc.string({ unit: 'binary', maxLength: 12 }));
const key = fc.oneof(fc.constantFrom('note', 'clé', '__proto__', 'text', 'span_id'), fc.string({ unit: 'binary', maxLength: 4 }));
const loose = fc.jsonValue({ maxDepth: 2, stringUnit: 'binary' });
const spanArb = fc.record(
  {
    span_id: fc.oneof(fc.constantFrom('a', 'b', 'c', 'ü'), fc.integer()),
    text: fc.oneof({ weight: 9, arbitrary: anyText }, { weight: 1, arbitrary: loose }),
    role: fc.constantFrom('assistant', 'système'),
    extra: fc.dictionary(key, loose, { maxKeys: 2 }),
  },
  { requiredKeys: ['span_id', 'text'] },
);
const lineArb = fc.record(
  {
    type: fc.constant('snapshot'),
    session_id: fc.constantFrom('s', 'ü'),
    spans: fc.array(spanArb, { maxLength: 5 }),
    extra: fc.dictionary(key, loose, { maxKeys: 2 }),
  },
  { requiredKeys: ['spans'] },
);
// how the line is written: as JSON.stringify does, or with some characters escaped
const escapes: [string, (json: string) => string][] = [
  ['as is', (j) => j],
  ['all non-ASCII escaped', (j) => j.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)],
  ['x as \\u0078', (j) => j.replaceAll('x', '\\u0078')],
  ['é as \\u00e9', (j) => j.replaceAll('é', '\\u00e9')],
  ['🌍 as a surrogate pair escape', (j) => j.replaceAll('🌍', '\\ud83c\\udf0d')],
];

describe('random lines through one parser agree with JSON.parse of their UTF-8 text', () => {
  it('property', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(lineArb, fc.nat({ max: escapes.length - 1 })), { minLength: 1, maxLength: 8 }), (lines) => {
        const parser = new NodeLineParser();
        for (const [value, e] of lines) {
          const json = escapes[e]![1](JSON.stringify(value));
          expectExact(parser, utf8(json));
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe('the CLI path gives the report of the ordinary path', () => {
  it('a simulated session with every fault and non-ASCII texts', () => {
    const lines: string[] = [];
    for (const m of simulateSession(
      { seed: 3, sessionId: 'ü-run', turns: 60, spans: 30, textChars: 80, nonAscii: true, pinned: 2, faults: allFaults(60) },
      nodeSha256,
    )) {
      lines.push(JSON.stringify(m));
    }
    // a replayed older snapshot, a line with a non-ASCII unknown field, and a changed old one
    lines.push(lines[10]!, lines[lines.length - 1]!.replace('"turn":', '"note":"é","turn":'), lines[11]!.replace('"score":0.', '"score":0.0'));
    const bytes = utf8(lines.join('\n'));

    const run = <T>(decode: (b: Uint8Array, s: number, e: number) => T, take: (engine: Engine, rec: T, line: number) => ReturnType<Engine['ingestLine']>) => {
      const engine = new Engine({ sha256: nodeSha256 });
      const report = new CheckOutputBuilder();
      const reader = new TranscriptSplitter<T>(
        (rec, line) => {
          if (typeof rec === 'object' && rec !== null && 'error' in rec) report.addError({ line, message: rec.error });
          else report.add(take(engine, rec as T, line));
        },
        (line, message) => report.addError({ line, message }),
        decode,
      );
      for (let i = 0; i < bytes.length; i += 4096) reader.push(bytes.subarray(i, i + 4096));
      reader.end();
      return report.build();
    };
    const ordinary = run(nodeDecoder, (engine, text: string, line) => engine.ingestLine(text, line));
    const parser = new NodeLineParser();
    const cli = run(parser.decode, (engine, rec, line) =>
      typeof rec === 'string' ? engine.ingestLine(rec, line) : engine.ingestParsedLine(rec.parsed, line, true),
    );
    expect(cli).toEqual(ordinary);
    expect(ordinary.sessions[0]!.turns).toBe(60);
    expect(ordinary.input_errors.length).toBeGreaterThan(0);
  });
});
