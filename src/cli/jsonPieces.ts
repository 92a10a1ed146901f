// JSON text written in pieces (docs/security.md "Output streams"): the same bytes as
// JSON.stringify(value), but never one string, so an output of any size fits in V8's
// string limit and in memory at once. The values are the commands' own outputs (plain
// objects, arrays and primitives, nesting a few levels), so the walk's recursion is bounded.

/** About how long a piece grows before it is handed out. */
const PIECE_CHARS = 1 << 16;

/** The pieces of JSON.stringify(value), in order. */
export function* jsonPieces(value: unknown): Generator<string> {
  const piece: string[] = [];
  let length = 0;
  const emit = function* (text: string): Generator<string> {
    piece.push(text);
    length += text.length;
    if (length >= PIECE_CHARS) {
      yield piece.join('');
      piece.length = 0;
      length = 0;
    }
  };
  function* walk(v: unknown): Generator<string> {
    if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') v = (v as { toJSON: () => unknown }).toJSON();
    if (Array.isArray(v)) {
      yield* emit('[');
      for (let i = 0; i < v.length; i++) {
        if (i > 0) yield* emit(',');
        yield* walk(v[i]);
      }
      yield* emit(']');
      return;
    }
    if (v !== null && typeof v === 'object') {
      yield* emit('{');
      let first = true;
      for (const key of Object.keys(v)) {
        const x = (v as Record<string, unknown>)[key];
        if (x === undefined || typeof x === 'function' || typeof x === 'symbol') continue;
        yield* emit(first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`);
        first = false;
        yield* walk(x);
      }
      yield* emit('}');
      return;
    }
    const text = JSON.stringify(v) as string | undefined;
    // undefined, a function or a symbol in an array: null, as JSON.stringify writes it (objects skip them above)
    yield* emit(text ?? 'null');
  }
  yield* walk(value);
  if (piece.length > 0) yield piece.join('');
}
