// groupedDigits writes what toLocaleString('en-US') writes, for any number.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { groupedDigits } from './digits.ts';

it('groups a number as toLocaleString("en-US") does', () => {
  for (const n of [
    0,
    -0,
    1,
    12,
    123,
    1234,
    12345,
    123456,
    1234567,
    -1,
    -1234,
    -999999,
    1000,
    1e15,
    Number.MAX_SAFE_INTEGER,
    -Number.MAX_SAFE_INTEGER,
    2 ** 60,
    0.5,
    1234.5678,
    NaN,
    Infinity,
    -Infinity,
  ])
    expect(groupedDigits(n)).toBe(n.toLocaleString('en-US'));
  fc.assert(fc.property(fc.oneof(fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }), fc.double()), (n) => groupedDigits(n) === n.toLocaleString('en-US')));
});
