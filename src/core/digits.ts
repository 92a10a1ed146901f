// A count written with its thousands grouped, as `n.toLocaleString('en-US')` writes it
// ("200,000"). Its first call loads the locale data: 11-12 ms of every `check` and `report`
// that prints a count (about a fortieth of a cold `check` of a 4 MB session); every later call
// is free. A safe integer is grouped here; anything else (a fraction, -0, a
// huge or non-finite number) is left to toLocaleString, so the text is the same either way.
export function groupedDigits(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n));
  let out = digits.length % 3 === 0 ? '' : digits.slice(0, digits.length % 3);
  for (let i = digits.length % 3; i < digits.length; i += 3) out += (out === '' ? '' : ',') + digits.slice(i, i + 3);
  return n < 0 ? `-${out}` : out;
}
