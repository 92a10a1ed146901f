// contract §2 input handling, written from the contract: every bad line becomes one input error
// with its line number and a plain sentence, replays are ignored silently, and every
// other line is still analysed.
// eslint-disable-next-line no-restricted-imports -- the tests run on Node; the engine itself is handed its hash
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Engine, type Outcome } from './engine.ts';
import { CheckOutputBuilder } from './checkOutput.ts';
import type { SessionHeader, Snapshot, Span } from './wire.ts';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

function span(id: string, over: Partial<Span> = {}): Span {
  const text = over.text ?? `the text of span ${id}`;
  return { span_id: id, text, score: 0.5, text_sha256: sha256(text), tokens: 10, ...over };
}

function snap(turn: number, spans: Span[] = [span('a'), span('b')], extra: Partial<Snapshot> = {}, session = 's'): Snapshot {
  return { type: 'snapshot', session_id: session, turn, spans, ...extra };
}

const line = (value: unknown): string => JSON.stringify(value);

/** Feeds the lines (1-based numbering) and returns every outcome in order. */
function feed(lines: readonly string[]): Outcome[] {
  const engine = new Engine({ sha256 });
  return lines.map((text, i) => engine.ingestLine(text, i + 1));
}

function errorOf(o: Outcome | undefined): { line: number; message: string; session_id?: string } {
  if (o?.kind !== 'error') throw new Error(`expected an input error, got ${JSON.stringify(o)}`);
  return o.error;
}

/** A plain sentence: words, not a JSON dump or a stack trace. */
function expectPlainSentence(message: string): void {
  expect(message.length).toBeGreaterThan(10);
  expect(message).not.toMatch(/^\s*[[{]/);
  expect(message).not.toMatch(/\n\s+at /);
  expect(message).toMatch(/[a-z]{3,} [a-z]{2,}/i);
}

/** The line after a valid first snapshot: the bad line is line 2, a good snapshot follows on line 3. */
function between(bad: string): { error: ReturnType<typeof errorOf>; outcomes: Outcome[] } {
  const outcomes = feed([line(snap(1)), bad, line(snap(2))]);
  expect(outcomes[0]!.kind).toBe('turn');
  expect(outcomes[2]!.kind).toBe('turn');
  const error = errorOf(outcomes[1]);
  expect(error.line).toBe(2);
  expectPlainSentence(error.message);
  return { error, outcomes };
}

const valid = line(snap(5));
const withSpan = (over: Record<string, unknown>): string => line({ ...snap(5), spans: [{ ...span('a'), ...over }] });
const without = (key: string): string => {
  const s: Record<string, unknown> = { ...snap(5) };
  delete s[key];
  return line(s);
};
const spanWithout = (key: string): string => {
  const sp: Record<string, unknown> = { ...span('a') };
  delete sp[key];
  return line({ ...snap(5), spans: [sp] });
};

describe('contract §2 input errors: line number and a plain sentence, and the next line is analysed', () => {
  it.each([
    ['not JSON', '{"type":"snapshot", this is not json', /json/i],
    ['a truncated line', valid.slice(0, valid.length - 7), /json/i],
    ['NaN', valid.replace('"score":0.5', '"score":NaN'), /NaN/],
    ['Infinity', valid.replace('"score":0.5', '"score":Infinity'), /Infinity/],
    ['-Infinity', valid.replace('"score":0.5', '"score":-Infinity'), /Infinity/],
    ['a JSON array', '[1,2,3]', /object/i],
    ['a JSON string', '"snapshot"', /object/i],
    ['null', 'null', /object/i],
    ['an unknown type', line({ ...snap(5), type: 'event' }), /type/],
    ['no type', without('type'), /type/],
    ['no session_id', without('session_id'), /session_id/],
    ['an empty session_id', line({ ...snap(5), session_id: '' }), /session_id/],
    ['a numeric session_id', line({ ...snap(5), session_id: 7 }), /session_id/],
    ['no turn', without('turn'), /turn/],
    ['a fractional turn', line({ ...snap(5), turn: 5.5 }), /turn/],
    ['a string turn', line({ ...snap(5), turn: '5' }), /turn/],
    ['a turn beyond the safe integers', valid.replace('"turn":5', '"turn":1e20'), /turn/],
    ['no spans', without('spans'), /spans/],
    ['spans not an array', line({ ...snap(5), spans: { a: 1 } }), /spans/],
    ['a span that is not an object', line({ ...snap(5), spans: ['a'] }), /span/],
    ['a span without span_id', spanWithout('span_id'), /span_id/],
    ['a span without text', spanWithout('text'), /text/],
    ['a span without score', spanWithout('score'), /score/],
    ['a span without text_sha256', spanWithout('text_sha256'), /text_sha256/],
    ['a string score', withSpan({ score: '0.5' }), /score/],
    ['a boolean score', withSpan({ score: true }), /score/],
    ['a numeric text', withSpan({ text: 42 }), /text/],
    ['a numeric text_sha256', withSpan({ text_sha256: 1 }), /text_sha256/],
    ['negative tokens', withSpan({ tokens: -1 }), /tokens/],
    ['fractional tokens', withSpan({ tokens: 1.5 }), /tokens/],
    ['negative rewrite_count', withSpan({ rewrite_count: -1 }), /rewrite_count/],
    ['derived_from not a list of ids', withSpan({ derived_from: [1] }), /derived_from/],
    ['derived_from a string', withSpan({ derived_from: 'a' }), /derived_from/],
    ['pinned as a string', withSpan({ pinned: 'yes' }), /pinned/],
    ['a numeric role', withSpan({ role: 1 }), /role/],
    ['pruned not a list', line({ ...snap(5), pruned: 'a' }), /pruned/],
    ['a rewrite without scores_invalidated', line({ ...snap(5), rewrite: { spans_modified: 1 } }), /scores_invalidated/],
    ['a negative spans_modified', line({ ...snap(5), rewrite: { spans_modified: -1, scores_invalidated: 0 } }), /spans_modified/],
    ['a numeric ts', line({ ...snap(5), ts: 5 }), /ts/],
    ['a duplicate span_id', line(snap(5, [span('a'), span('b'), span('a', { text: 'other' })])), /span_id|"a"/],
    ['a lone surrogate in a text (\\ud800 escape)', valid.replace('"text":"the text of span a"', '"text":"broken \\ud800 here"'), /surrogate|Unicode/i],
    ['a lone low surrogate in a text (\\udc00 escape)', valid.replace('"text":"the text of span a"', '"text":"\\udc00"'), /surrogate|Unicode/i],
    ['a lone surrogate in a span_id', valid.replace('"span_id":"b"', '"span_id":"b\\ud83c"'), /surrogate|Unicode/i],
    ['a lone surrogate in the session_id', valid.replace('"session_id":"s"', '"session_id":"s\\udfff"'), /surrogate|Unicode/i],
    ['a lone surrogate written in upper-case hex (\\uDBFF)', valid.replace('"text":"the text of span a"', '"text":"\\uDBFF!"'), /surrogate|Unicode/i],
    [
      'a lone surrogate in a text of a line that also holds a raw non-ASCII text',
      line(snap(5, [span('a', { text: 'café 🌍' }), span('b')])).replace('"text":"the text of span b"', '"text":"\\ud800"'),
      /surrogate|Unicode/i,
    ],
    ['a header config out of range', line({ type: 'session', session_id: 'h', config: { drift_turns: 0 } }), /drift_turns/],
    ['a header config of the wrong type', line({ type: 'session', session_id: 'h', config: { spread_floor: '0.1' } }), /spread_floor/],
    ['a header title that is not a string', line({ type: 'session', session_id: 'h', title: 3 }), /title/],
  ])('%s', (_what, bad, mentions) => {
    const { error } = between(bad);
    expect(error.message).toMatch(mentions);
  });

  it('a well-formed surrogate pair (escaped or raw) is fine', () => {
    const outcomes = feed([valid.replace('"text":"the text of span a"', '"text":"\\ud83c\\udf0d"'), line(snap(6, [span('a', { text: '🌍' })]))]);
    expect(outcomes.map((o) => o.kind)).toEqual(['turn', 'turn']);
  });

  it('an escaped backslash before "ud800" is not a surrogate escape', () => {
    const outcomes = feed([valid.replace('"text":"the text of span a"', '"text":"C:\\\\ud800"')]);
    expect(outcomes.map((o) => o.kind)).toEqual(['turn']);
  });

  it('the error names the session when the message names one', () => {
    const { error } = between(withSpan({ score: 'high' }));
    expect(error.session_id).toBe('s');
  });

  it('unknown fields are kept and ignored', () => {
    const outcomes = feed([line({ ...snap(1), harness: { v: 2 }, spans: [{ ...span('a'), embedding: [0.1, 0.2], extra: null }] })]);
    expect(outcomes[0]!.kind).toBe('turn');
  });

  it('optional fields may be absent; score and text_sha256 may be null', () => {
    const bare = { type: 'snapshot', session_id: 's', turn: 0, spans: [{ span_id: 'a', text: 'x', score: null, text_sha256: null }] };
    expect(feed([line(bare)])[0]!.kind).toBe('turn');
    expect(feed([line({ ...bare, turn: -3 })])[0]!.kind).toBe('turn');
  });
});

describe('contract §2 turn order', () => {
  it('a different snapshot whose turn does not increase is an input error', () => {
    const outcomes = feed([line(snap(1)), line(snap(2)), line(snap(2, [span('a')])), line(snap(1, [span('z')])), line(snap(3))]);
    expect(outcomes.map((o) => o.kind)).toEqual(['turn', 'turn', 'error', 'error', 'turn']);
    expect(errorOf(outcomes[2]).line).toBe(3);
    expect(errorOf(outcomes[3]).line).toBe(4);
    expectPlainSentence(errorOf(outcomes[2]).message);
    expect(errorOf(outcomes[2]).message).toMatch(/turn/);
  });

  it('an older turn replayed with a changed score of the same length is an input error, not a replay', () => {
    // a long line: a change anywhere, not only where a sampled fingerprint looks, must count
    const spans = Array.from({ length: 60 }, (_, i) => span(`m${i}`, { text: `span number ${i} `.repeat(20), score: 0.25 }));
    const original = line(snap(1, spans));
    for (let k = 0; k < 60; k += 7) {
      const changed = line(
        snap(
          1,
          spans.map((s, i) => (i === k ? { ...s, score: 0.75 } : s)),
        ),
      );
      expect(changed.length).toBe(original.length);
      const outcomes = feed([original, line(snap(2)), line(snap(3)), changed]);
      expect(
        outcomes.map((o) => o.kind),
        `score of m${k} changed`,
      ).toEqual(['turn', 'turn', 'turn', 'error']);
    }
  });

  it('turns of different sessions are independent', () => {
    const outcomes = feed([
      line(snap(5, undefined, {}, 'A')),
      line(snap(1, undefined, {}, 'B')),
      line(snap(6, undefined, {}, 'A')),
      line(snap(2, undefined, {}, 'B')),
    ]);
    expect(outcomes.map((o) => o.kind)).toEqual(['turn', 'turn', 'turn', 'turn']);
  });

  it('gaps in turn numbers are allowed', () => {
    expect(feed([line(snap(1)), line(snap(10)), line(snap(11)), line(snap(1000))]).map((o) => o.kind)).toEqual(['turn', 'turn', 'turn', 'turn']);
  });
});

describe("Engine.forgoReplays: input whose turns cannot come again (another agent's transcript)", () => {
  it('keeps every other outcome, and an older turn is then an error rather than a recognised replay', () => {
    const first = line(snap(1, [span('a', { text: 'first' })]));
    const lines = [first, line(snap(2)), line(snap(3)), line(snap(3)), first, line(snap(4))];
    const engine = new Engine({ sha256 });
    engine.forgoReplays();
    const outcomes = lines.map((l, i) => engine.ingestLine(l, i + 1));
    // the same snapshot right after itself is still told by comparing it with the last (no fingerprint needed)
    expect(outcomes.map((o) => o.kind)).toEqual(['turn', 'turn', 'turn', 'ignored', 'error', 'turn']);
    expect(feed(lines).map((o) => o.kind)).toEqual(['turn', 'turn', 'turn', 'ignored', 'ignored', 'turn']);
  });

  it('is refused once the engine has read a message (a session keeps all its fingerprints or none)', () => {
    const engine = new Engine({ sha256 });
    engine.ingestLine(line(snap(1)), 1);
    expect(() => engine.forgoReplays()).toThrow(/already read/);
  });
});

describe('contract §2 replays are ignored silently', () => {
  it('the same snapshot right after itself', () => {
    const outcomes = feed([line(snap(1)), line(snap(2)), line(snap(2)), line(snap(3))]);
    expect(outcomes.map((o) => o.kind)).toEqual(['turn', 'turn', 'ignored', 'turn']);
  });

  it('an older snapshot a few turns later', () => {
    const first = line(snap(1, [span('a', { text: 'first' })]));
    const outcomes = feed([first, line(snap(2)), line(snap(3)), line(snap(4)), first, line(snap(2)), line(snap(5))]);
    expect(outcomes.map((o) => o.kind)).toEqual(['turn', 'turn', 'turn', 'turn', 'ignored', 'ignored', 'turn']);
  });

  it('equal as parsed JSON: other key order and white space are still the same snapshot', () => {
    const s = snap(1, [span('a', { derived_from: ['b'] }), span('b')], { rewrite: { spans_modified: 0, scores_invalidated: 0 } });
    const reordered = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(reordered)
        : typeof v === 'object' && v !== null
          ? Object.fromEntries(
              Object.entries(v)
                .reverse()
                .map(([k, x]) => [k, reordered(x)]),
            )
          : v;
    const again = JSON.stringify(reordered(s), null, 1).replace(/\n/g, ' ');
    expect(again).not.toBe(line(s));
    // right after, and a few turns later
    expect(feed([line(s), again]).map((o) => o.kind)).toEqual(['turn', 'ignored']);
    expect(feed([line(s), line(snap(2)), line(snap(3)), again]).map((o) => o.kind)).toEqual(['turn', 'turn', 'turn', 'ignored']);
  });

  it('an older turn whose spans repeated the turn before but for their scores, or one other value: recognised, and told from its neighbours', () => {
    // turn t's fingerprint reuses turn t − 1's hash of a span's values but the score when
    // they are all the same (snapshotFingerprint); a replay is hashed from nothing, and must
    // come out the same, whichever value changed from the turn before
    const spansAt = (t: number): Span[] =>
      Array.from({ length: 12 }, (_, i) =>
        span(`m${i}`, { text: `text ${i}`, score: (t * 7 + i) / 100, tokens: 5 + i, role: i % 2 === 0 ? 'user' : 'tool', derived_from: [`m${(i + 1) % 12}`] }),
      );
    const edits: ((s: Span) => Span)[] = [
      (s) => ({ ...s }),
      (s) => ({ ...s, role: 'system' }),
      (s) => ({ ...s, tokens: 99 }),
      (s) => ({ ...s, derived_from: ['m0', 'm1'] }),
      (s) => ({ ...s, rewrite_count: 1 }),
      (s) => ({ ...s, pinned: true }),
      (s) => ({ ...s, text_sha256: null }),
      (s) => ({ ...s, extra: 1 }) as Span,
    ];
    for (const [e, edit] of edits.entries()) {
      // turn 4 is turn 3 with new scores and span m5 edited; turn 5 is as turn 3 again
      const edited = line(
        snap(
          4,
          spansAt(4).map((s, i) => (i === 5 ? edit(s) : s)),
        ),
      );
      const turns = [line(snap(1, spansAt(1))), line(snap(2, spansAt(2))), line(snap(3, spansAt(3))), edited, line(snap(5, spansAt(5)))];
      expect(
        feed([...turns, edited]).map((o) => o.kind),
        `edit ${e}, replayed`,
      ).toEqual(['turn', 'turn', 'turn', 'turn', 'turn', 'ignored']);
      const plain = line(snap(4, spansAt(4)));
      expect(
        feed([...turns, plain]).map((o) => o.kind),
        `edit ${e}, the unedited turn 4`,
      ).toEqual(['turn', 'turn', 'turn', 'turn', 'turn', e === 0 ? 'ignored' : 'error']);
    }
  });

  it('0.50 and 0.5 are the same JSON number', () => {
    const outcomes = feed([valid, line(snap(6)), valid.replace('"score":0.5', '"score":0.50')]);
    expect(outcomes.map((o) => o.kind)).toEqual(['turn', 'turn', 'ignored']);
  });

  it('a replay is not analysed twice: the report has one entry per turn', () => {
    const engine = new Engine({ sha256 });
    const report = new CheckOutputBuilder();
    const lines = [line(snap(1, [span('a', { text_sha256: null })])), line(snap(2)), line(snap(1, [span('a', { text_sha256: null })])), line(snap(2))];
    lines.forEach((t, i) => report.add(engine.ingestLine(t, i + 1)));
    const built = report.build();
    expect(built.input_errors).toEqual([]);
    expect(built.sessions[0]!.turns).toBe(2);
    expect(built.sessions[0]!.findings.filter((f) => f.signal === 'unbound_score').map((f) => f.turn)).toEqual([1]);
  });
});

describe('contract §2 session headers', () => {
  const head: SessionHeader = { type: 'session', session_id: 's', title: 'run', config: { spread_floor: 0.1 } };

  it('a header before the first snapshot is accepted', () => {
    expect(feed([line(head), line(snap(1))]).map((o) => o.kind)).toEqual(['header', 'turn']);
  });

  it('a later identical header is ignored, before or after snapshots, in any key order', () => {
    const reordered = line({ config: { spread_floor: 0.1 }, title: 'run', session_id: 's', type: 'session' });
    expect(feed([line(head), line(head), line(snap(1)), reordered, line(snap(2))]).map((o) => o.kind)).toEqual([
      'header',
      'ignored',
      'turn',
      'ignored',
      'turn',
    ]);
  });

  it('a later different header is an input error', () => {
    const outcomes = feed([line(head), line(snap(1)), line({ ...head, title: 'another' }), line(snap(2))]);
    expect(outcomes.map((o) => o.kind)).toEqual(['header', 'turn', 'error', 'turn']);
    expect(errorOf(outcomes[2]).line).toBe(3);
    expectPlainSentence(errorOf(outcomes[2]).message);
  });

  it('a header after the first snapshot of its session is an input error', () => {
    const outcomes = feed([line(snap(1)), line(head), line(snap(2))]);
    expect(outcomes.map((o) => o.kind)).toEqual(['turn', 'error', 'turn']);
    expect(errorOf(outcomes[1]).line).toBe(2);
    expectPlainSentence(errorOf(outcomes[1]).message);
  });

  it("a header's config applies when it came first; a refused header changes nothing", () => {
    const engine = new Engine({ sha256 });
    engine.ingestLine(line(snap(1)), 1);
    engine.ingestLine(line({ ...head, config: { max_rewrites: 0 } }), 2);
    expect(engine.thresholds('s')?.max_rewrites).toBe(2);
  });

  it("another session's header is no business of this one", () => {
    expect(feed([line(snap(1)), line({ ...head, session_id: 'other' }), line(snap(1, undefined, {}, 'other'))]).map((o) => o.kind)).toEqual([
      'turn',
      'header',
      'turn',
    ]);
  });
});

describe('contract §2 bad input never stops the reader', () => {
  it('a transcript with every kind of fault: each good line analysed, each bad line one error with its number', () => {
    const lines = [
      line({ type: 'session', session_id: 'A', title: 'a' }),
      line(snap(1, undefined, {}, 'A')),
      '',
      'garbage',
      line(snap(1, undefined, {}, 'B')),
      '   ',
      line(snap(2, [span('a'), span('a')], {}, 'A')),
      line(snap(2, undefined, {}, 'A')),
      line({ type: 'session', session_id: 'A', title: 'b' }),
      line(snap(2, undefined, {}, 'B')),
      line(snap(2, undefined, {}, 'A')),
      line(snap(1, [], {}, 'A')),
      valid.replace('"score":0.5', '"score":NaN'),
      line(snap(3, undefined, {}, 'A')),
    ];
    const engine = new Engine({ sha256 });
    const report = new CheckOutputBuilder();
    const outcomes = lines.map((t, i) => engine.ingestLine(t, i + 1));
    outcomes.forEach((o) => report.add(o));
    expect(outcomes.map((o) => o.kind)).toEqual([
      'header',
      'turn',
      'ignored',
      'error',
      'turn',
      'ignored',
      'error',
      'turn',
      'error',
      'turn',
      'ignored',
      'error',
      'error',
      'turn',
    ]);
    const built = report.build();
    expect(built.input_errors.map((e) => e.line)).toEqual([4, 7, 9, 12, 13]);
    for (const e of built.input_errors) expectPlainSentence(e.message);
    expect(built.sessions.map((s) => [s.session_id, s.turns])).toEqual([
      ['A', 3],
      ['B', 2],
    ]);
  });

  it('blank and white-space lines are skipped silently', () => {
    expect(feed(['', ' ', '\t', '\r']).map((o) => o.kind)).toEqual(['ignored', 'ignored', 'ignored', 'ignored']);
  });
});
