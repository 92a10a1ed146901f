// spanObjectHash remembers its last answer per span id (equality.ts): a span whose unknown
// fields or keys changed must get the number of its new fields, never the remembered one.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { knownSpanObjectHash, spanNestsTooDeep, spanObjectHash } from './equality.ts';

const span = (extra: Record<string, unknown>): object => ({ span_id: 'memo-a', text: 't', score: null, text_sha256: null, ...extra });

describe('spanObjectHash', () => {
  it('answers for the object it is given, whatever it answered for the same span id before', () => {
    const x = spanObjectHash(span({ label: 'read src/a.ts' }));
    const y = spanObjectHash(span({ label: 'read src/b.ts' }));
    expect(y).not.toBe(x);
    expect(spanObjectHash(span({ label: 'read src/a.ts' }))).toBe(x);
    // a key more, a key other, the same keys in another order
    const z = spanObjectHash(span({ label: 'read src/a.ts', tool: 'Read' }));
    expect(z).not.toBe(x);
    expect(spanObjectHash(span({ labels: 'read src/a.ts' }))).not.toBe(x);
    expect(spanObjectHash(span({ tool: 'Read', label: 'read src/a.ts' }))).toBe(z);
    // a known field added changes the key count only
    expect(spanObjectHash(span({ label: 'read src/a.ts', tokens: 3 }))).toBe(x ^ knownSpanObjectHash(5) ^ knownSpanObjectHash(6));
  });

  it('a value that is not a short primitive is hashed each time, and one nested too deep is still refused', () => {
    const long = 'x'.repeat(300);
    const a = spanObjectHash(span({ note: long }));
    expect(spanObjectHash(span({ note: long.slice(0, 299) + 'y' }))).not.toBe(a);
    expect(spanObjectHash(span({ note: { n: 1 } }))).not.toBe(spanObjectHash(span({ note: { n: 2 } })));
    let deep: unknown = 1;
    for (let i = 0; i < 200; i++) deep = [deep];
    expect(spanObjectHash(span({ note: deep }))).toBeNaN();
    expect(spanObjectHash(span({ note: 1 }))).not.toBeNaN();
  });
});

describe('spanNestsTooDeep', () => {
  // any JSON value, nested up to `depth` arrays or objects
  const json = (depth: number): fc.Arbitrary<unknown> =>
    depth === 0
      ? fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.boolean(), fc.constant(null))
      : fc.oneof(
          json(0),
          fc.array(json(depth - 1), { maxLength: 2 }),
          fc.dictionary(fc.constantFrom('k', 'm', 'text', 'tokens'), json(depth - 1), { maxKeys: 2 }),
        );
  /** a value nested exactly `levels` arrays deep, with `inner` innermost */
  const nested = (levels: number, inner: unknown): unknown => (levels === 0 ? inner : [nested(levels - 1, inner)]);

  it("is spanObjectHash's NaN: the same depth rule, whatever the span's fields", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom('meta', 'extra', 'derived_from', 'role', 'kind'), json(3), { maxKeys: 3 }),
        fc.integer({ min: 55, max: 64 }),
        fc.constantFrom('meta', 'extra', 'tokens'),
        (fields, levels, deepKey) => {
          const span = { span_id: 'a', text: 't', ...fields, [deepKey]: nested(levels, fields) };
          expect(spanNestsTooDeep(span)).toBe(Number.isNaN(spanObjectHash(span)));
        },
      ),
      { numRuns: 400 },
    );
  });
});
