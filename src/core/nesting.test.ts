// Hostile input (docs/engine.md): a message nested deeper than MAX_NESTING is one input
// error naming the limit, and no walk of the engine over a parsed value can overflow the
// stack, whatever the nesting.
// eslint-disable-next-line no-restricted-imports -- the tests run on Node; the engine itself is handed its hash
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Engine, type Outcome } from './engine.ts';
import { jsonEqual } from './equality.ts';
import { MAX_NESTING } from './nesting.ts';
import { validateMessage } from './validate.ts';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** JSON text of `levels` nested arrays: `[[…]]` */
const nestedArrays = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);
/** JSON text of `levels` nested objects: `{"k":{"k":…{}}}` */
const nestedObjects = (levels: number): string => '{"k":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);

const span = (id: string, extra = ''): string => `{"span_id":"${id}","text":"t ${id}","score":0.5,"text_sha256":"${sha256(`t ${id}`)}"${extra}}`;
const snapshot = (turn: number, spans: string, extra = ''): string => `{"type":"snapshot","session_id":"s","turn":${turn},"spans":[${spans}]${extra}}`;

function feed(lines: string[]): Outcome[] {
  const engine = new Engine({ sha256 });
  return lines.map((l, i) => engine.ingestLine(l, i + 1));
}

function errorText(o: Outcome | undefined): string {
  if (o?.kind !== 'error') throw new Error(`expected an input error, got ${o?.kind}`);
  return o.error.message;
}

describe('the nesting limit', () => {
  it('turns a span whose unknown field nests 10,000 arrays into an input error naming the limit, and reads on', () => {
    const outcomes = feed([snapshot(1, span('a')), snapshot(2, span('a', `,"meta":${nestedArrays(10_000)}`)), snapshot(3, span('a'))]);
    expect(outcomes.map((o) => o.kind)).toEqual(['turn', 'error', 'turn']);
    expect(errorText(outcomes[1])).toMatch(new RegExp(`span 0 \\("a"\\) nests .* more than ${MAX_NESTING} levels`));
  });

  it('does the same for deep unknown fields of a snapshot, a header and a header config', () => {
    const outcomes = feed([
      `{"type":"session","session_id":"h","extra":${nestedObjects(5_000)}}`,
      `{"type":"session","session_id":"c","config":{"x":${nestedArrays(5_000)}}}`,
      snapshot(1, span('a'), `,"trace":${nestedObjects(100_000)}`),
      snapshot(1, span('a')),
    ]);
    expect(errorText(outcomes[0])).toContain(`field "extra" nests`);
    expect(errorText(outcomes[1])).toContain(`field "config" nests`);
    expect(errorText(outcomes[2])).toContain(`field "trace" nests arrays and objects more than ${MAX_NESTING} levels deep`);
    expect(outcomes[3]!.kind).toBe('turn');
  });

  it('accepts exactly the limit and refuses one level more (the message is level 1)', () => {
    // message (1), spans (2), span (3), the field's value from level 4 on
    const atLimit = snapshot(1, span('a', `,"meta":${nestedArrays(MAX_NESTING - 3)}`));
    const overLimit = snapshot(1, span('a', `,"meta":${nestedArrays(MAX_NESTING - 2)}`));
    expect(validateMessage(JSON.parse(atLimit)).ok).toBe(true);
    expect(validateMessage(JSON.parse(overLimit)).ok).toBe(false);
    expect(validateMessage(JSON.parse(`{"type":"session","session_id":"s","x":${nestedObjects(MAX_NESTING - 1)}}`)).ok).toBe(true);
    expect(validateMessage(JSON.parse(`{"type":"session","session_id":"s","x":${nestedObjects(MAX_NESTING)}}`)).ok).toBe(false);
  });

  it('holds the same limit, to the level, without the object hashes (an engine that keeps no replay fingerprint)', () => {
    for (const nest of [nestedArrays, nestedObjects]) {
      const atLimit = JSON.parse(snapshot(1, span('a', `,"meta":${nest(MAX_NESTING - 3)}`))) as unknown;
      const overLimit = JSON.parse(snapshot(1, span('b', `,"x":1,"meta":${nest(MAX_NESTING - 2)}`))) as unknown;
      expect(validateMessage(atLimit, false, { spare: null, known: null, objectHashes: false }).ok).toBe(true);
      const refused = validateMessage(overLimit, false, { spare: null, known: null, objectHashes: false });
      expect(refused.ok).toBe(false);
      expect(refused.ok ? '' : refused.error).toMatch(new RegExp(`span 0 \\("b"\\) nests .* more than ${MAX_NESTING} levels`));
    }
    const engine = new Engine({ sha256 });
    engine.forgoReplays();
    const lines = [snapshot(1, span('a')), snapshot(2, span('a', `,"meta":${nestedArrays(10_000)}`)), snapshot(3, span('a'))];
    expect(lines.map((l, i) => engine.ingestLine(l, i + 1).kind)).toEqual(['turn', 'error', 'turn']);
  });

  it('still recognises a replay of an older turn whose span carries a deep (allowed) unknown field', () => {
    const deep = span('a', `,"meta":${nestedObjects(MAX_NESTING - 3)}`);
    const outcomes = feed([snapshot(1, deep), snapshot(2, span('a')), snapshot(1, deep), snapshot(1, span('a', `,"meta":${nestedObjects(MAX_NESTING - 4)}`))]);
    expect(outcomes.map((o) => o.kind)).toEqual(['turn', 'turn', 'ignored', 'error']);
  });
});

describe('validateMessage on a deep value in a field of the wire format', () => {
  it('names the wrong kind without walking the value (describing `type` used JSON.stringify, which overflowed)', () => {
    const deep: unknown = JSON.parse(nestedArrays(100_000));
    const cases: [unknown, string][] = [
      [{ type: deep, session_id: 's' }, 'type must be "session" or "snapshot", got an array'],
      [{ type: 'snapshot', session_id: 's', turn: deep, spans: [] }, 'turn must be a finite number, got an array'],
      [{ type: 'snapshot', session_id: 's', turn: 1, spans: [{ span_id: deep }] }, 'span 0 span_id must be a string, got an array'],
      [{ type: 'session', session_id: 's', config: { drift_turns: deep } }, 'config drift_turns must be a finite number, got an array'],
      [deep, 'a message must be a JSON object, got an array'],
    ];
    for (const [value, error] of cases) expect(validateMessage(value)).toEqual({ ok: false, error });
  });
});

describe('jsonEqual', () => {
  it('compares values nested 100,000 levels deep without overflowing the stack', () => {
    const a: unknown = JSON.parse(nestedArrays(100_000));
    const b: unknown = JSON.parse(nestedArrays(100_000));
    const c: unknown = JSON.parse(nestedArrays(99_999));
    expect(jsonEqual(a, b)).toBe(true);
    expect(jsonEqual(a, c)).toBe(false);
    expect(jsonEqual(JSON.parse(nestedObjects(100_000)), JSON.parse(nestedObjects(100_000)))).toBe(true);
  });
});
