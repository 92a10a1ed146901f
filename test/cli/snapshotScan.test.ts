// The snapshot scanner (src/ingest/snapshotScan.ts) against the parse it stands in for: a
// parsing thread's records are the same, field for field, whether the scanner read a line
// or JSON.parse did, over every sample, fixture, edge line and a fuzzed corpus of mutations
// aimed at what the scanner reads itself (escapes, numbers, whitespace, keys, unicode); and
// the scanner does read the lines of a plain transcript (else the test would prove nothing).
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { RecordEncoder as EncoderOf, SnapshotReader, type LineRecord } from '../../src/ingest/lineRecords.ts';
import { NodeLineParser } from '../../src/node/lineParser.ts';
import { nodeScanView, RecordEncoder } from '../../src/node/lineRecords.ts';
import { nodeSha256 } from '../../src/node/platform.ts';
import { browserScanView } from '../../src/ingest/scanView.ts';
import { benchTranscript } from '../../bench/transcripts.ts';
import { edgeLines } from './edgeLines.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Every value, -0 told from 0 and typed arrays by content. */
function exactly(v: unknown): unknown {
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : Number.isNaN(v) ? 'NaN' : v;
  if (ArrayBuffer.isView(v)) return exactly(Array.from(v as unknown as ArrayLike<number>));
  if (Array.isArray(v)) return v.map(exactly);
  if (typeof v === 'object' && v !== null) return Object.entries(v).map(([k, x]) => [k, exactly(x)]);
  return v;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
/** the dashboard's parsing Workers: strict UTF-8 text, or the scanner over windows-1252 (src/ingest/scanView.ts) */
const browserDecode = (bytes: Uint8Array, start: number, end: number): string => (start === end ? '' : strictUtf8.decode(bytes.subarray(start, end)));

/** Each side's encoder with the scanner and its ordinary one: the CLI's (Node) and the dashboard's. */
const SIDES = {
  node: () => ({ scanning: new RecordEncoder(nodeSha256) as EncoderOf, parsing: new EncoderOf(nodeSha256, new NodeLineParser().decode) }),
  browser: () => ({ scanning: new EncoderOf(nodeSha256, browserDecode, browserScanView), parsing: new EncoderOf(nodeSha256, browserDecode) }),
};
let side: keyof typeof SIDES = 'node';

/** The records of the lines, in order, with the scanner and without; and how many it read. */
function bothWays(lines: string[], resetEvery = Infinity): { scanned: number; made: number } {
  const bytes = Buffer.from(lines.join('\n'));
  const { scanning, parsing } = SIDES[side]();
  let made = 0;
  for (let start = 0, i = 0; i < lines.length; i++) {
    const end = start + Buffer.byteLength(lines[i]!);
    if (i % resetEvery === 0) {
      scanning.reset();
      parsing.reset();
    }
    const a: LineRecord | null = scanning.encode(bytes, start, end);
    const b: LineRecord | null = parsing.encode(bytes, start, end);
    expect(exactly(a), `line ${i + 1}: ${lines[i]!.slice(0, 300)}`).toEqual(exactly(b));
    if (b !== null) made++;
    start = end + 1;
  }
  expect(scanning.shapes.list).toEqual(parsing.shapes.list);
  return { scanned: scanning.scanned, made };
}

function readLines(file: string): string[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
}

/** Seeded mutations of the lines at the places the scanner reads: each keeps or breaks JSON, either is a case. */
function mutated(seed: number, source: string[], count: number): [string, string][] {
  let s = seed;
  const next = (): number => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 2 ** 32;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const edits: ((l: string) => string)[] = [
    (l) => l.replace(/":/g, () => pick(['":', '" :', '":\t', '" : '])),
    (l) => l.replace(/,"/g, () => pick([',"', ', "', ' ,"', ',\r\n"'])),
    (l) => l.replace(/"text":"([^"\\]*)"/, (_m, t: string) => `"text":"${pick(['\\n', '\\"', '\\\\', '\\u00e9', '\\ud83d\\ude00', '\\t', '\\/', '\\x'])}${t}"`),
    // a string (or the line) that starts with U+FEFF: a decoder that strips a BOM must not strip it from a value
    (l) => l.replace(/"(span_id|text|role)":"/, (m) => m + '\ufeff'),
    (l) => '\ufeff' + l,
    (l) =>
      l.replace(
        /"score":([-0-9.eE+]+)/,
        () =>
          `"score":${pick(['0.1000000000000000055', '1e-3', '1E2', '-0', '-0.0', '0.123456789012345678', '5', '01', '1.', '.5', '+1', '1e400', '123456789012345678', '0.5e+1'])}`,
      ),
    (l) => l.replace(/"tokens":(\d+)/, () => `"tokens":${pick(['0', '-1', '1.0', '1e2', '9007199254740993', '3.5', 'null', '"4"'])}`),
    (l) => l.replace(/"span_id":"([^"]*)"/, (_m, id: string) => `"span_id":"${pick([id + '\\u0041', id.toUpperCase(), 'é' + id, '', id + '\\"'])}"`),
    (l) => l.replace(/"role":"([^"]*)"/, () => `"role":${pick(['"user"', 'null', '1', '"\\u0075ser"'])}`),
    (l) => l.replace(/"pinned":(true|false)/, () => `"pinned":${pick(['true', 'false', 'tru', 'null', '1'])}`),
    (l) => l.replace(/"text_sha256":"[0-9a-f]*"/, () => `"text_sha256":${pick(['null', '""', '"abc"', '1'])}`),
    (l) => l.replace('"spans":[', () => pick(['"spans" : [ ', '"spans":[\n', '"sp\\u0061ns":[', '"spans":{"0":', '"extra":[{}],"spans":['])),
    (l) => l.replace(/\}$/, () => pick(['}', ' } ', '}x', ',"spans":[]}', ',"more":{"a":[1,{"b":"]"}]}}', '}}'])),
    (l) => l.replace('{"span_id"', () => pick(['{"text_sha256":null,"span_id"', '{"span_id":"z","span_id"', '{"unknown":1,"span_id"', '{ "span_id"'])),
    (l) => l.replace(/"derived_from":\[[^\]]*\]/, () => `"derived_from":${pick(['[]', '["a","b"]', '[1]', '["a" , "b"]', 'null', '["\\u0061"]'])}`),
    (l) => l.replace(/"text":"([^"\\]*)"/, (_m, t: string) => `"text":"${t}${pick(['\u0001', '\u2028', 'ü', '🌍', '\u007f'])}"`),
    // one char anywhere (any span, not only the first a pattern finds): a repeat's every
    // compared char, a score key's, a comma's, is then a case
    (l) => {
      const i = Math.floor(next() * l.length);
      return l.slice(0, i) + pick(['x', '"', ',', '}', ' ', '0', ':', '\\', 'e', '\u0000', '\u0080']) + l.slice(i + 1);
    },
    (l) => l.replace(/"score":/g, (m) => (next() < 0.1 ? pick(['"scorf":', '"score" :', '"Score":', '"score":-', '"score":[', '"core":']) : m)),
  ];
  const out: [string, string][] = [];
  for (let i = 0; i < count; i++) {
    const from = pick(source);
    let line = from;
    for (let e = 0, n = 1 + Math.floor(next() * 3); e < n; e++) line = pick(edits)(line);
    out.push([from, line]);
  }
  return out;
}

describe.each(Object.keys(SIDES) as (keyof typeof SIDES)[])('the snapshot scanner (%s): the records JSON.parse makes', (which) => {
  beforeEach(() => {
    side = which;
  });

  const samples = fs.readdirSync(path.join(ROOT, 'public/samples')).filter((f) => f.endsWith('.jsonl'));
  const fixtures = fs.readdirSync(path.join(ROOT, 'test/fixtures/adapters')).filter((f) => f.endsWith('.jsonl'));

  it.each(samples)('public/samples/%s', (f) => {
    const lines = readLines(path.join(ROOT, 'public/samples', f));
    const { scanned, made } = bothWays(lines);
    // every record of a plain sample is the scanner's (the parse is the exception)
    expect(scanned, f).toBeGreaterThan(made * 0.9);
    bothWays(lines, 7);
  });

  it.each(fixtures)('test/fixtures/adapters/%s', (f) => {
    bothWays(readLines(path.join(ROOT, 'test/fixtures/adapters', f)));
  });

  it('bytes that are not UTF-8 in a new text, and in a text the line before had', () => {
    const lines = readLines(path.join(ROOT, 'public/samples/healthy.jsonl')).filter((l) => l.includes('"snapshot"'));
    const bytes = (l: string): Buffer => Buffer.from(l);
    const bad = (l: string): Buffer => {
      const b = Buffer.from(l);
      const at = b.indexOf('"text":"') + 9;
      b[at] = 0xff;
      return b;
    };
    const seq = [bytes(lines[0]!), bad(lines[1]!), bytes(lines[2]!), bad(lines[2]!), bad(lines[2]!)];
    const { scanning, parsing } = SIDES[side]();
    const all = Buffer.concat(seq.flatMap((b) => [b, Buffer.from('\n')]));
    let start = 0;
    for (const b of seq) {
      const end = start + b.length;
      expect(exactly(scanning.encode(all, start, end))).toEqual(exactly(parsing.encode(all, start, end)));
      start = end + 1;
    }
  });

  it("Python's json.dumps layout (every non-ASCII char escaped, emoji as surrogate pairs) is scanned; lone surrogates are validation's", () => {
    // json.dumps defaults: ensure_ascii (\uXXXX for each UTF-16 unit) and the ', ' / ': ' separators
    const python = (l: string): string =>
      l
        .replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
        .replace(/,"/g, ', "')
        .replace(/":/g, '": ');
    const plain = readLines(benchTranscript(60, 20, 100))
      .map((l) => l.replace('"text":"', '"text":"🌍 '))
      .map(python);
    expect(plain.some((l) => /\\ud83c\\udf0d/.test(l))).toBe(true);
    const { scanned, made } = bothWays(plain);
    expect(made).toBe(plain.length - 1);
    expect(scanned).toBe(made);
    // a lone surrogate in a text, a span id, a role, the session id: as the ordinary path reads each
    const lone = plain
      .slice(0, 4)
      .flatMap((l) => [
        l,
        l.replace('"text": "', '"text": "\\udc00'),
        l.replace('"span_id": "', '"span_id": "\\ud800'),
        l.replace('"role": "', '"role": "\\udfff'),
        l.replace('"session_id": "', '"session_id": "\\ud801'),
      ]);
    bothWays(lone);
  });

  it('edge lines, one after another and each after a reset', () => {
    const { scanned } = bothWays(edgeLines());
    expect(scanned).toBeGreaterThan(5);
    bothWays(edgeLines(), 1);
  });

  it('a generated transcript: most spans repeat, every line is scanned', () => {
    const lines = readLines(benchTranscript(60, 20, 100));
    const { scanned, made } = bothWays(lines);
    expect(made).toBe(lines.filter((l) => l.includes('"type":"snapshot"')).length);
    expect(scanned).toBe(made);
  });

  it('a line cut short where a longer one was (its copy holds that line past its end): the same records', () => {
    // the scanner copies each line into one of two buffers in turn: [L2, L1, L2 cut] puts the
    // cut line where L2 was, so that past its end lie exactly the rest of L2's bytes
    const lines = readLines(benchTranscript(60, 20, 100)).filter((l) => l.includes('"type":"snapshot"'));
    const [l1, l2] = [lines[10]!, lines[11]!];
    const cuts: number[] = [];
    for (let at = 1; at < l2.length; at += Math.max(1, Math.floor(l2.length / 300))) cuts.push(at);
    // and at each quote, brace and the last bytes: an unterminated string, span or line
    for (let at = l2.indexOf('"'); at >= 0; at = l2.indexOf('"', at + 41)) cuts.push(at, at + 1);
    cuts.push(l2.length - 1, l2.length - 2, l2.length - 3, l2.lastIndexOf('}', l2.length - 2) + 1);
    for (const at of cuts) bothWays([l2, l1, l2.slice(0, at)]);
  });

  it('a line of megabytes among short ones (the copy grows for it, and shrinks after)', () => {
    const lines = readLines(benchTranscript(60, 20, 100)).filter((l) => l.includes('"type":"snapshot"'));
    const long = lines[5]!.replace(/"text":"([^"\\]*)"/, (_m, t: string) => `"text":"${t}${'long text '.repeat(600_000)}"`);
    expect(long.length).toBeGreaterThan(5 << 20);
    const { scanned } = bothWays([lines[3]!, lines[4]!, long, lines[6]!, lines[7]!, long, lines[8]!, lines[9]!, lines[10]!]);
    expect(scanned).toBe(9);
  });

  it('fuzzed lines, seeded: alone, and each after the line it was made from', () => {
    const source = [...edgeLines(), ...readLines(path.join(ROOT, 'public/samples/all-faults.jsonl')).slice(0, 40)];
    for (const seed of [1, 2, 3, 4, 5]) {
      const pairs = mutated(seed, source, 400);
      bothWays(pairs.map(([, to]) => to));
      // the original then its mutation: the scanner compares the mutation with a line it read
      bothWays(pairs.flat());
    }
  });
});

describe("the engine's thread: SnapshotReader's messages are JSON.parse's", () => {
  /** Each line read by the reader as `check` reads a batch, against JSON.parse of it; how many it read. */
  function readBoth(lines: string[]): number {
    const bytes = Buffer.from(lines.join('\n'));
    const reader = new SnapshotReader(nodeScanView, new Map());
    let read = 0;
    for (let start = 0, i = 0; i < lines.length; i++) {
      const end = start + Buffer.byteLength(lines[i]!);
      let got: ReturnType<SnapshotReader['read']> = null;
      try {
        got = reader.read(bytes, start, end);
      } catch {
        got = null; // as readAll: the ordinary way words it
      }
      start = end + 1;
      if (got === null) continue;
      read++;
      const parsed = JSON.parse(lines[i]!) as Record<string, unknown>;
      const message = got.checked.message as unknown as Record<string, unknown>;
      // every value, keys in their order (spans in the place the line had them), as JSON.parse gave them
      expect(Object.keys(message), `line ${i + 1}`).toEqual(Object.keys(parsed));
      expect(JSON.stringify(message), `line ${i + 1}`).toBe(JSON.stringify(parsed));
      expect(exactly(message), `line ${i + 1}`).toEqual(exactly(parsed));
    }
    return read;
  }

  it('over every sample and the fuzzed lines', () => {
    for (const f of fs.readdirSync(path.join(ROOT, 'public/samples')).filter((n) => n.endsWith('.jsonl'))) {
      const lines = readLines(path.join(ROOT, 'public/samples', f));
      expect(readBoth(lines), f).toBeGreaterThan(0);
    }
    const source = [...edgeLines(), ...readLines(path.join(ROOT, 'public/samples/all-faults.jsonl')).slice(0, 40)];
    expect(readBoth(mutated(7, source, 400).flat())).toBeGreaterThan(100);
  });
});
