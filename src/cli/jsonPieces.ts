// A JSON document written in pieces (issue 39, "Output streams"): `check --json` of a session of
// millions of turns is more text than one JavaScript string may hold (V8: ~512 MiB), so its
// outer levels are walked here and only their elements (a metric, a finding, a verdict, a
// compaction record) are stringified, each on its own. The bytes are JSON.stringify's: the same
// keys in the same order, undefined members left out of objects and null in arrays.
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { jsonTextPieces, PIECE_CHARS } from '../report/pieces.ts';

/**
 * Levels walked before an element is stringified whole: the check object, its `sessions`, a
 * session, its `metrics` (or findings, verdicts, compactions); each element of those is one piece.
 */
const WALKED_LEVELS = 4;

/** The JSON text of `value` in order, piece by piece; joined, they are JSON.stringify(value). */
export function jsonPieces(value: unknown, levels = WALKED_LEVELS): Generator<string> {
  return jsonTextPieces(value, levels);
}

export interface PieceCount {
  /** writes made to the stream */
  writes: number;
  /** the longest string written */
  longest: number;
}

/**
 * Writes `value` as JSON followed by `end`, joined into pieces of about PIECE_CHARS, waiting
 * for the stream to drain whenever it asks; resolves once the last piece is flushed.
 */
export async function writeJsonPieces(stream: Writable, value: unknown, end = '\n', count?: PieceCount): Promise<void> {
  let held: string[] = [];
  let chars = 0;
  const flush = async (last: boolean): Promise<void> => {
    const text = held.join('');
    held = [];
    chars = 0;
    if (count !== undefined) {
      count.writes++;
      count.longest = Math.max(count.longest, text.length);
    }
    if (last) {
      await new Promise<void>((resolve, reject) => stream.write(text, (err) => (err ? reject(err) : resolve())));
    } else if (!stream.write(text)) await once(stream, 'drain');
  };
  for (const piece of jsonPieces(value)) {
    held.push(piece);
    chars += piece.length;
    if (chars >= PIECE_CHARS) await flush(false);
  }
  held.push(end);
  await flush(true);
}
