// A report written in pieces (issue 39, "Output streams"): report.md and report.html are made
// as a sequence of lines or parts and handed on in pieces of about PIECE_CHARS, so no report is
// ever one string (a report of a session of many turns or items may be long). Joined, the
// pieces are exactly the text the parts joined by `separator` make.

/** Pieces of at least this many characters are handed on (small parts are joined first). */
export const PIECE_CHARS = 1 << 16;

/** `parts` with `separator` between each two, in pieces of about `size` characters (a part longer than that is one piece). */
export function* joinedPieces(parts: Iterable<string>, separator = '', size = PIECE_CHARS): Generator<string> {
  let held: string[] = [];
  let chars = 0;
  let first = true;
  for (const part of parts) {
    if (!first && separator !== '') {
      held.push(separator);
      chars += separator.length;
    }
    first = false;
    held.push(part);
    chars += part.length;
    if (chars >= size) {
      yield held.join('');
      held = [];
      chars = 0;
    }
  }
  if (held.length > 0) yield held.join('');
}

const skipped = (v: unknown): boolean => v === undefined || typeof v === 'function' || typeof v === 'symbol';

/**
 * The JSON text of `value` in pieces: its first `levels` levels are walked and each element
 * below them stringified on its own; joined, the pieces are JSON.stringify(value). Pure, so
 * the app's and the renderer's projects use it; src/cli/jsonPieces.ts writes it to Node's
 * streams for `check --json` and `diff --json`.
 */
export function* jsonTextPieces(value: unknown, levels: number): Generator<string> {
  if (levels === 0 || typeof value !== 'object' || value === null || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    yield JSON.stringify(value);
    return;
  }
  if (Array.isArray(value)) {
    yield '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ',';
      const v: unknown = value[i];
      if (skipped(v)) yield 'null';
      else yield* jsonTextPieces(v, levels - 1);
    }
    yield ']';
    return;
  }
  yield '{';
  let first = true;
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    if (skipped(v)) continue;
    yield `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    yield* jsonTextPieces(v, levels - 1);
  }
  yield '}';
}
