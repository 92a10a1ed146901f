// How deep a message may nest arrays and objects. The contract (§2) keeps unknown fields
// and sets no depth, but every walk over a parsed value (replay hashing and equality, the
// CLI's decoding, the relay's re-serialising) is bounded only if the depth is: a 20 KB line
// can nest 10,000 arrays, and a recursive walk over it overflows the stack and takes the
// whole read down with it. The wire format's own fields nest four levels (message, spans,
// span, derived_from), so the limit only ever meets unknown fields.

/** The deepest nesting of arrays and objects a message may have; the message itself is level 1. */
export const MAX_NESTING = 64;

/**
 * Whether `value`, standing at nesting level `level`, holds arrays or objects deeper than
 * MAX_NESTING. The recursion stops at the limit, so it cannot overflow the stack itself.
 */
export function exceedsNesting(value: unknown, level: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (level > MAX_NESTING) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (typeof v === 'object' && v !== null && exceedsNesting(v, level + 1)) return true;
    }
    return false;
  }
  for (const key in value) {
    const v = (value as Record<string, unknown>)[key];
    if (typeof v === 'object' && v !== null && exceedsNesting(v, level + 1)) return true;
  }
  return false;
}

/** The input error for a message nested too deep, naming where and the limit. */
export function tooDeepMessage(where: string): string {
  return `${where} nests arrays and objects more than ${MAX_NESTING} levels deep: a message may nest at most ${MAX_NESTING} levels (docs/engine.md, "Hostile input")`;
}

/**
 * JSON text held in a string field that an importer parses (a Codex `function_call`'s
 * `arguments`): parsing itself cannot overflow the stack, but any walk of what it gives may,
 * so what nests deeper than MAX_NESTING is refused here, before anything walks it.
 */
export class TooDeepError extends Error {
  constructor(where: string) {
    super(tooDeepMessage(where));
    this.name = 'TooDeepError';
  }
}

/** JSON.parse of a stringified field, or null when it is not JSON; throws TooDeepError when it nests too deep. */
export function parseNestedJson(text: string, where: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    return null;
  }
  if (exceedsNesting(value, 1)) throw new TooDeepError(where);
  return value;
}
