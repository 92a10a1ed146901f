// Chunk boundaries (a JSON line split across two chunks is the bug a fixed chunk size hides: tests choose it). The same bytes fed
// to TranscriptReader whole, or in chunks of 1, 7 or 4096 bytes, through the Web decoder
// or Node's, must give the same (text, line) pairs and the same engine report.
import { describe, expect, it } from 'vitest';
import { Engine } from '../core/engine.ts';
import { CheckOutputBuilder, type CheckOutput } from '../core/checkOutput.ts';
import type { Snapshot, Span } from '../core/wire.ts';
// eslint-disable-next-line no-restricted-imports -- the Node decoder and hash are what the CLI hands these readers
import { nodeDecoder, nodeSha256 } from '../node/platform.ts';
import { webDecoder, type DecodeFailure, type LineDecoder } from './lines.ts';
import { TranscriptReader } from './transcript.ts';

const sha256 = nodeSha256;
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const BOM = new Uint8Array([0xef, 0xbb, 0xbf]);

function concat(parts: readonly (Uint8Array | string)[]): Uint8Array {
  const bytes = parts.map((p) => (typeof p === 'string' ? utf8(p) : p));
  const out = new Uint8Array(bytes.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of bytes) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}

function span(id: string, text: string, over: Partial<Span> = {}): Span {
  return { span_id: id, text, score: 0.5, text_sha256: sha256(text), ...over };
}

// texts with 2-, 3- and 4-byte UTF-8 sequences, so that chunk boundaries fall inside characters
const TEXTS = ['naïve café', '中文的上下文窗口', '🌍🎉 emoji 𝄞 clef', 'plain ascii', 'Ωmega ≠ 𝔘nicode 🧪'];

function snapshot(turn: number, session = 'run-ü'): Snapshot {
  const spans = TEXTS.map((t, i) => span(`m${i}`, `${t} · turn ${turn}`, { score: 0.1 * (i + 1), pinned: i === 0 }));
  spans.push(span('stale', '🌍 changed', { text_sha256: sha256('🌍 original') }));
  return { type: 'snapshot', session_id: session, turn, spans, rewrite: { spans_modified: 1, scores_invalidated: 1 } };
}

const header = { type: 'session', session_id: 'run-ü', title: 'Überschrift 🌍', config: { spread_floor: 0.1 } };

/** JSONL with a BOM, CRLF and LF line ends, blank lines, a bad line, and no newline at the end. */
const jsonl = concat([
  BOM,
  JSON.stringify(header),
  '\r\n',
  JSON.stringify(snapshot(1)),
  '\r\n',
  '\r\n', // blank (CRLF)
  '   \n', // white space only
  JSON.stringify(snapshot(2)),
  '\n',
  '{"type":"snapshot", not json 🌍}\r\n',
  JSON.stringify(snapshot(3, 'other 中')),
  '\n',
  '\n',
  JSON.stringify(snapshot(4)), // the last line, without a newline
]);

/** The JSON-array form: pretty-printed elements over several lines, CRLF, a BOM, and bad elements. */
const jsonArray = concat([
  BOM,
  '[\r\n',
  JSON.stringify(header, null, 2).replace(/\n/g, '\r\n'),
  ',\r\n',
  JSON.stringify(snapshot(1), null, 2),
  ',\n',
  JSON.stringify(snapshot(2)),
  ', 42, "a string", {"type":"snapshot","session_id":"run-ü"},\n',
  JSON.stringify(snapshot(3, 'other 中'), null, '\t'),
  '\n,',
  JSON.stringify(snapshot(4)),
  '\n]',
]);

type Pair = [text: string | DecodeFailure, line: number];

interface Result {
  pairs: Pair[];
  structureErrors: [number, string][];
  report: CheckOutput;
}

/** Feeds `bytes` in chunks of `size` (0 = whole), optionally through one reused buffer, as the Node reader does. */
function read(bytes: Uint8Array, size: number, decode: LineDecoder, reuse = false): Result {
  const pairs: Pair[] = [];
  const structureErrors: [number, string][] = [];
  const engine = new Engine({ sha256 });
  const report = new CheckOutputBuilder();
  const reader = new TranscriptReader(
    (text, line) => {
      pairs.push([text, line]);
      if (typeof text === 'string') report.add(engine.ingestLine(text, line));
      else report.addError({ line, message: text.error });
    },
    (line, message) => {
      structureErrors.push([line, message]);
      report.addError({ line, message });
    },
    decode,
  );
  const step = size === 0 ? bytes.length : size;
  const buffer = new Uint8Array(step);
  for (let off = 0; off < bytes.length; off += step) {
    const piece = bytes.subarray(off, Math.min(bytes.length, off + step));
    if (reuse) {
      buffer.set(piece);
      reader.push(buffer.subarray(0, piece.length));
      buffer.fill(0x41); // the caller overwrites its buffer: the reader must have copied what it keeps
    } else {
      reader.push(piece);
    }
  }
  reader.end();
  return { pairs, structureErrors, report: report.build() };
}

const SIZES = [0, 1, 7, 4096];
const DECODERS: [string, LineDecoder][] = [
  ['webDecoder', webDecoder],
  ['nodeDecoder', nodeDecoder],
];

function expectSameEverywhere(bytes: Uint8Array): Result {
  const base = read(bytes, 0, webDecoder);
  for (const [name, decode] of DECODERS) {
    for (const size of SIZES) {
      for (const reuse of size === 0 ? [false] : [false, true]) {
        const r = read(bytes, size, decode, reuse);
        const how = `${name}, chunks of ${size || 'all'} bytes${reuse ? ', reused buffer' : ''}`;
        expect(r.pairs, how).toEqual(base.pairs);
        expect(r.structureErrors, how).toEqual(base.structureErrors);
        expect(r.report, how).toEqual(base.report);
      }
    }
  }
  return base;
}

const textsOf = (r: Result): string[] => r.pairs.map(([t]) => (typeof t === 'string' ? t : `!${t.error}`));

describe('JSON Lines: chunking and the decoder do not matter', () => {
  it('BOM, CRLF, blank lines, multibyte text, a bad line, no final newline', () => {
    const r = expectSameEverywhere(jsonl);
    // an empty line (8) is not handed on at all, but still counts for the numbering
    expect(r.pairs.map(([, line]) => line)).toEqual([1, 2, 3, 4, 5, 6, 7, 9]);
    const texts = textsOf(r);
    // the BOM and the CRs are not part of any message
    expect(texts[0]).toBe(JSON.stringify(header));
    expect(texts[1]).toBe(JSON.stringify(snapshot(1)));
    expect(texts[2]).toBe('');
    expect(texts[7]).toBe(JSON.stringify(snapshot(4)));
    expect(r.report.input_errors.map((e) => e.line)).toEqual([6]);
    expect(r.report.sessions.map((s) => [s.session_id, s.turns])).toEqual([
      ['run-ü', 3],
      ['other 中', 1],
    ]);
    // every turn saw its multibyte texts intact: only the deliberately stale span is stale
    for (const s of r.report.sessions) {
      for (const f of s.findings.filter((x) => x.signal === 'stale_score')) expect(f.span_ids).toEqual(['stale']);
      expect(s.findings.filter((x) => x.signal === 'stale_score')).toHaveLength(s.turns);
    }
  });

  it('a line split right after its CR, and CR-only lines', () => {
    const bytes = concat([JSON.stringify(snapshot(1)), '\r', '\n', '\r\n', JSON.stringify(snapshot(2)), '\r\n']);
    const r = expectSameEverywhere(bytes);
    expect(r.report.sessions[0]!.turns).toBe(2);
    expect(r.report.input_errors).toEqual([]);
  });

  it('invalid UTF-8 becomes an error of its line; the other lines survive', () => {
    const good = (turn: number): Uint8Array => utf8(JSON.stringify(snapshot(turn)));
    const withBytes = (turn: number, bad: number[]): Uint8Array => {
      const text = JSON.stringify(snapshot(turn));
      const at = text.indexOf('plain ascii') + 5;
      return concat([text.slice(0, at), new Uint8Array(bad), text.slice(at)]);
    };
    const bytes = concat([
      good(1),
      '\n',
      withBytes(2, [0xff]), // never valid in UTF-8
      '\n',
      withBytes(3, [0xf0, 0x9f, 0x8c]), // a 4-byte sequence cut short
      '\n',
      withBytes(4, [0xed, 0xa0, 0x80]), // an encoded surrogate (CESU-8)
      '\n',
      withBytes(5, [0xc0, 0xaf]), // an overlong encoding
      '\n',
      good(6),
      '\n',
    ]);
    const r = expectSameEverywhere(bytes);
    expect(r.report.input_errors.map((e) => e.line)).toEqual([2, 3, 4, 5]);
    for (const e of r.report.input_errors) expect(e.message).toMatch(/UTF-8/);
    expect(r.report.sessions[0]!.turns).toBe(2);
    expect(r.report.sessions[0]!.verdicts.map((v) => v.turn)).toEqual([1, 6]);
  });

  it('a BOM at the start of a later line (two files concatenated) is read alike by both decoders', () => {
    const bytes = concat([BOM, JSON.stringify(snapshot(1)), '\n', BOM, JSON.stringify(snapshot(2)), '\n']);
    const r = expectSameEverywhere(bytes);
    expect(r.report.input_errors).toEqual([]);
    expect(r.report.sessions[0]!.turns).toBe(2);
  });

  it('empty input, and input of white space only: no messages, no errors', () => {
    for (const bytes of [new Uint8Array(0), utf8('\n\r\n  \n'), BOM]) {
      const r = expectSameEverywhere(bytes);
      expect(r.report).toEqual({ sessions: [], input_errors: [] });
    }
  });
});

describe('JSON array: chunking and the decoder do not matter', () => {
  it('pretty-printed elements, CRLF, a BOM, bad elements numbered by the line they start on', () => {
    const r = expectSameEverywhere(jsonArray);
    const lines = r.pairs.map(([, line]) => line);
    // header on line 2; snapshot 1 starts on the line after the header's last line, and so on
    const headerLines = JSON.stringify(header, null, 2).split('\n').length;
    const snap1Line = 2 + headerLines;
    const snap2Line = snap1Line + JSON.stringify(snapshot(1), null, 2).split('\n').length;
    const snap3Line = snap2Line + 1;
    const snap4Line = snap3Line + JSON.stringify(snapshot(3, 'other 中'), null, '\t').split('\n').length;
    expect(lines).toEqual([2, snap1Line, snap2Line, snap2Line, snap2Line, snap2Line, snap3Line, snap4Line]);
    expect(r.structureErrors).toEqual([]);
    expect(r.report.input_errors.map((e) => e.line)).toEqual([snap2Line, snap2Line, snap2Line]);
    expect(r.report.sessions.map((s) => [s.session_id, s.turns])).toEqual([
      ['run-ü', 3],
      ['other 中', 1],
    ]);
  });

  it('the same messages give the same report as JSON Lines', () => {
    const messages = [header, snapshot(1), snapshot(2), snapshot(3, 'other 中'), snapshot(4)];
    const asLines = read(utf8(messages.map((m) => JSON.stringify(m)).join('\n')), 0, webDecoder).report;
    const asArray = read(utf8(JSON.stringify(messages, null, 2)), 7, nodeDecoder).report;
    expect(asArray.sessions).toEqual(asLines.sessions);
    expect(asArray.input_errors).toEqual([]);
  });

  it('invalid UTF-8 inside an element becomes an error of that element; the others survive', () => {
    const text = JSON.stringify(snapshot(2));
    const at = text.indexOf('plain ascii');
    const bytes = concat([
      '[',
      JSON.stringify(snapshot(1)),
      ',\n',
      text.slice(0, at),
      new Uint8Array([0xff, 0xfe]),
      text.slice(at),
      ',\n',
      JSON.stringify(snapshot(3)),
      ']\n',
    ]);
    const r = expectSameEverywhere(bytes);
    expect(r.report.input_errors.map((e) => e.line)).toEqual([2]);
    expect(r.report.input_errors[0]!.message).toMatch(/UTF-8/);
    expect(r.report.sessions[0]!.verdicts.map((v) => v.turn)).toEqual([1, 3]);
  });

  it('a broken array keeps every complete element before the break', () => {
    const bytes = concat(['[', JSON.stringify(snapshot(1)), ',\n', JSON.stringify(snapshot(2)), ',\n{"type":"snapshot","session_id":']);
    const r = expectSameEverywhere(bytes);
    expect(r.report.sessions[0]!.turns).toBe(2);
    expect(r.structureErrors).toHaveLength(1);
    expect(r.structureErrors[0]![0]).toBe(3);
  });

  it('brackets and braces inside strings do not confuse the splitter', () => {
    const tricky = snapshot(1);
    tricky.spans.push(span('tricky', 'a ] b } c [ d { e \\" f "]" 🌍 \\\\'));
    const bytes = concat(['[', JSON.stringify(tricky), ']']);
    const r = expectSameEverywhere(bytes);
    expect(r.report.input_errors).toEqual([]);
    expect(textsOf(r)).toEqual([JSON.stringify(tricky)]);
  });
});
