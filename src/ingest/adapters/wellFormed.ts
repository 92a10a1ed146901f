// A lone UTF-16 surrogate in another agent's transcript (docs/security.md "Hostile transcripts"):
// Node agents cut long texts with String.slice, which can split an emoji, and JSON.stringify
// writes the half left as a `\ud83d` escape. The product's own format refuses such a text
// (contract §2.5 rule 8), and a span holding one would make every later snapshot that lists it
// an input error. An adapted record's lone surrogates are read as U+FFFD instead: what the text
// becomes when the agent sends it as UTF-8.
/** The kind an adapter's skipped records count a record so read under (docs/adapters.md "Records not mapped"). */
export const LONE_SURROGATE_RECORD = 'record with a lone surrogate (read as U+FFFD)';

/**
 * `value` with every string value that holds a lone surrogate made well-formed (toWellFormed:
 * U+FFFD in its place), objects and arrays changed in place; keys are left as they are (no
 * adapter puts one in a span). Walked with a stack, not recursion: a record's depth is not
 * limited here. `replaced` is called once when any string was (the record is counted).
 */
export function wellFormedRecord(value: unknown, replaced: () => void): unknown {
  if (typeof value === 'string') {
    if (value.isWellFormed()) return value;
    replaced();
    return value.toWellFormed();
  }
  let any = false;
  const stack: unknown[] = [value];
  for (let v = stack.pop(); v !== undefined; v = stack.pop()) {
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (typeof x === 'string') {
          if (!x.isWellFormed()) {
            v[i] = x.toWellFormed();
            any = true;
          }
        } else if (typeof x === 'object' && x !== null) stack.push(x);
      }
      continue;
    }
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      const x = o[k];
      if (typeof x === 'string') {
        if (!x.isWellFormed()) {
          // defined, not assigned: a key `__proto__` of JSON.parse is an own property, and stays one
          Object.defineProperty(o, k, { value: x.toWellFormed(), writable: true, enumerable: true, configurable: true });
          any = true;
        }
      } else if (typeof x === 'object' && x !== null) stack.push(x);
    }
  }
  if (any) replaced();
  return value;
}
