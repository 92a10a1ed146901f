import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SIGNALS, THRESHOLD_KEYS, thresholdProblem, type Signal, type Thresholds } from '../src/worker/client.ts';
import {
  emptyLink,
  isJump,
  parseViewLink,
  SCORERS,
  sameAnalysis,
  sameSource,
  serialiseViewLink,
  SEVERITIES,
  type LinkPartner,
  type LinkSource,
  type ViewLink,
} from './viewUrl.ts';

const SHA = 'ab'.repeat(32);

// ids as people and harnesses write them: any printable text, `&`, `=`, `#`, spaces, non-ASCII included
const id = fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' }).filter((s) => !/\p{Cc}/u.test(s));
const turn = fc.integer({ min: -1_000_000, max: 1_000_000_000 });
const source: fc.Arbitrary<LinkSource> = fc.oneof(
  id.map((sessionId) => ({ kind: 'live' as const, sessionId })),
  fc.stringMatching(/^[\w.-]{1,30}$/).map((name) => ({ kind: 'sample' as const, name })),
  fc.tuple(id, fc.stringMatching(/^[0-9a-f]{64}$/)).map(([name, sha256]) => ({ kind: 'file' as const, name, sha256 })),
);
const partner: fc.Arbitrary<LinkPartner> = fc.oneof(
  fc.stringMatching(/^[\w.-]{1,30}$/).map((name) => ({ kind: 'sample' as const, name })),
  id.map((sessionId) => ({ kind: 'live' as const, sessionId })),
  fc.constant({ kind: 'same' as const }),
);
// each threshold within what contract §4 accepts (thresholdProblem), whole numbers where it wants them
const thresholdValue = (k: keyof Thresholds): fc.Arbitrary<number> =>
  (k === 'reference_agreement_floor'
    ? fc.double({ min: -1, max: 1, noNaN: true })
    : fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.double({ min: 0, max: 1e6, noNaN: true }))
  ).filter((v) => !Object.is(v, -0) && thresholdProblem(k, v) === null);
const thresholds = fc.record(Object.fromEntries(THRESHOLD_KEYS.map((k) => [k, thresholdValue(k)])) as { [K in keyof Thresholds]: fc.Arbitrary<number> }, {
  requiredKeys: [],
});

const link: fc.Arbitrary<ViewLink> = fc.record({
  source: fc.option(source),
  session: fc.option(id),
  turn: fc.option(turn),
  zoom: fc.option(fc.tuple(turn, fc.integer({ min: 1, max: 100_000 })).map(([from, w]) => ({ from, to: from + w }))),
  severities: fc.record({ fault: fc.boolean(), warning: fc.boolean(), info: fc.boolean() }),
  signal: fc.option(fc.constantFrom(...(SIGNALS as readonly Signal[]))),
  thresholds,
  scorer: fc.constantFrom(...SCORERS),
  span: fc.option(id),
  compare: fc.option(fc.record({ partner, session: fc.option(id), align: fc.constantFrom('turn' as const, 'relative' as const) })),
});

describe('view links', () => {
  it('read back every view they were written from, with nothing left out (property)', () => {
    fc.assert(
      fc.property(link, (v) => {
        const text = serialiseViewLink(v);
        const back = parseViewLink(`#${text}`);
        expect(back.problems).toEqual([]);
        expect(back.link).toEqual(v);
        // one view, one link: writing what was read gives the same text
        expect(serialiseViewLink(back.link)).toBe(text);
      }),
      { numRuns: 400 },
    );
  });

  it('an empty fragment is the default view, and the default view is an empty link', () => {
    expect(parseViewLink('')).toEqual({ link: emptyLink, problems: [] });
    expect(parseViewLink('#')).toEqual({ link: emptyLink, problems: [] });
    expect(serialiseViewLink(emptyLink)).toBe('');
  });

  it('writes a readable link, keys in a fixed order and defaults left out', () => {
    const v: ViewLink = {
      ...emptyLink,
      source: { kind: 'file', name: 'run 7.jsonl', sha256: SHA },
      turn: 15,
      zoom: { from: 10, to: 40 },
      severities: { fault: true, warning: false, info: true },
      signal: 'stale_score',
      thresholds: { spread_floor: 0.02, collapse_turns: 3 },
      span: 's-3',
      compare: { partner: { kind: 'sample', name: 'healthy.jsonl' }, session: null, align: 'relative' },
    };
    expect(serialiseViewLink(v)).toBe(
      `file=run+7.jsonl&sha256=${SHA}&turn=15&zoom=10..40&sev=fault%2Cinfo&signal=stale_score&set.spread_floor=0.02&set.collapse_turns=3&span=s-3&compare=sample%3Ahealthy.jsonl&align=relative`,
    );
  });

  it('reads the links the dashboard wrote before (live, sample, turn, compare)', () => {
    expect(parseViewLink('#live=run-42&turn=12').link).toEqual({ ...emptyLink, source: { kind: 'live', sessionId: 'run-42' }, turn: 12 });
    const { link: l } = parseViewLink('#sample=healthy.jsonl&compare=live%3Arun%3A42&compare_session=run%3A42&align=relative');
    expect(l.source).toEqual({ kind: 'sample', name: 'healthy.jsonl' });
    expect(l.compare).toEqual({ partner: { kind: 'live', sessionId: 'run:42' }, session: 'run:42', align: 'relative' });
  });

  it('leaves out each malformed value, names it and why, and keeps the rest', () => {
    const cases: [string, Partial<ViewLink>, RegExp][] = [
      ['turn=12.5', {}, /^turn=12\.5: not an integer turn/],
      ['turn=1e3', {}, /^turn=1e3: /],
      ['turn=99999999999999999999', {}, /^turn=/],
      ['zoom=40..10', {}, /^zoom=40\.\.10: a window is two turns a\.\.b with a < b/],
      ['zoom=10..10', {}, /^zoom=/],
      ['zoom=a..b', {}, /^zoom=/],
      ['sev=fault,bogus', {}, /^sev=fault,bogus: severities are fault, warning, info/],
      ['signal=made_up', {}, /^signal=made_up: not a contract §4 signal/],
      ['set.spread_floor=-1', {}, /^set\.spread_floor=-1: must be ≥ 0/],
      ['set.collapse_turns=2.5', {}, /^set\.collapse_turns=2\.5: must be a whole number ≥ 1/],
      ['set.spread_floor=', {}, /^set\.spread_floor=: not a number/],
      ['set.spread_floor=Infinity', {}, /^set\.spread_floor=Infinity: not a number/],
      ['set.nope=1', {}, /^set\.nope=1: not a contract §4 threshold/],
      ['scorer=magic', {}, /^scorer=magic: scorers are auto, harness, reference, both/],
      ['sample=../../etc/passwd', {}, /^sample=\.\.\/\.\.\/etc\/passwd: not a sample name/],
      ['file=run.jsonl', {}, /^sha256=: a file is named by its sha256: 64 hex digits/],
      [`file=run.jsonl&sha256=${SHA.slice(1)}`, {}, /^sha256=/],
      ['live=a&sample=b.jsonl', {}, /^live and sample: a link names one source; none opened/],
      ['live=%00x', {}, /^live=\u0000x: not a session id/],
      [`span=${'x'.repeat(600)}`, {}, /^span=x{80}: not a span id/],
      ['compare=file:x', {}, /^compare=file:x: names no sample/],
      ['bogus=1', {}, /^bogus: not a part of a link/],
    ];
    for (const [bad, want, problem] of cases) {
      const { link: l, problems } = parseViewLink(`#turn=7&${bad}`.replace('#turn=7&turn=', '#turn='));
      expect(problems, bad).toHaveLength(1);
      expect(problems[0], bad).toMatch(problem);
      // everything else of the link still holds
      const keepsTurn = !bad.startsWith('turn=');
      expect(l, bad).toEqual({ ...emptyLink, ...(keepsTurn ? { turn: 7 } : {}), ...want });
    }
  });

  it('never throws, whatever the fragment (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200, unit: 'binary' }), (s) => {
        const { link: l } = parseViewLink(s);
        // what it read is itself a valid link
        expect(parseViewLink(serialiseViewLink(l)).problems).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it('a file is the same source only with the same sha256; analysis settings compare by value', () => {
    const f: LinkSource = { kind: 'file', name: 'a.jsonl', sha256: SHA };
    expect(sameSource(f, { ...f })).toBe(true);
    expect(sameSource(f, { ...f, sha256: 'cd'.repeat(32) })).toBe(false);
    expect(sameSource({ kind: 'sample', name: 'a.jsonl' }, f)).toBe(false);
    expect(sameSource(null, null)).toBe(true);
    expect(sameAnalysis({ thresholds: { spread_floor: 0.02 }, scorer: 'auto' }, { thresholds: { spread_floor: 0.02 }, scorer: 'auto' })).toBe(true);
    expect(sameAnalysis({ thresholds: { spread_floor: 0.02 }, scorer: 'auto' }, { thresholds: {}, scorer: 'auto' })).toBe(false);
    expect(sameAnalysis({ thresholds: {}, scorer: 'both' }, { thresholds: {}, scorer: 'auto' })).toBe(false);
    expect(SEVERITIES).toEqual(['fault', 'warning', 'info']);
  });

  it('a jump (a new history entry) is another source, session, zoom, span, comparison or a turn moved; defaults and filters are not', () => {
    const at: ViewLink = { ...emptyLink, source: { kind: 'sample', name: 'a.jsonl' }, session: 'run', turn: 15 };
    expect(isJump(at, { ...at, source: { kind: 'sample', name: 'b.jsonl' } })).toBe(true);
    expect(isJump(at, { ...at, turn: 16 })).toBe(true);
    expect(isJump(at, { ...at, zoom: { from: 1, to: 9 } })).toBe(true);
    expect(isJump(at, { ...at, span: 's-1' })).toBe(true);
    expect(isJump(at, { ...at, session: 'other' })).toBe(true);
    expect(isJump(at, { ...at, compare: { partner: { kind: 'same' }, session: null, align: 'turn' } })).toBe(true);
    // the page's own defaults once a load ends, and settings of the view
    expect(isJump({ ...at, turn: null, session: null }, at)).toBe(false);
    expect(isJump(at, { ...at, signal: 'stale_score', severities: { fault: true, warning: false, info: false } })).toBe(false);
    expect(isJump(at, { ...at, thresholds: { spread_floor: 0.02 }, scorer: 'both' })).toBe(false);
    expect(isJump(at, { ...at })).toBe(false);
  });
});
