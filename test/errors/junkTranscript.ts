// A wire transcript that is nearly all junk, for the input-error cap (contract §2.5 "Past the
// first 1,000"): `check` (inputErrorCap.test.ts) and the dashboard's Worker
// (src/worker/jobErrors.test.ts) are held to the same lines and the same counts.
import { LISTED_INPUT_ERRORS } from '../../src/core/inputErrorList.ts';
import type { InputErrorReason } from '../../src/core/inputErrorReasons.ts';

const good = (turn: number): string =>
  JSON.stringify({ type: 'snapshot', session_id: 's', turn, spans: [{ span_id: 'a', text: 'the text', score: 0.5, text_sha256: null, tokens: 3 }] });
/** three kinds of junk, by line number: not JSON, not an object, a bad type */
const junk = (n: number): string => (n % 3 === 0 ? `junk ${n}` : n % 3 === 1 ? String(n) : `{"type":"x${n}","session_id":"s"}`);
/** the reason the engine must give line `n` of the junk */
export const junkReason = (n: number): InputErrorReason => (n % 3 === 0 ? 'not-json' : n % 3 === 1 ? 'not-object' : 'bad-type');

export interface JunkTranscript {
  lines: string[];
  /** the good snapshots among them (turns 1, 2, …) */
  turns: number;
  /** the junk lines' numbers, in order */
  errorLines: number[];
  /** what must be counted past the cap, by reason */
  byReason: Map<InputErrorReason, number>;
}

/** `lines` lines, every `every`-th a good snapshot, the rest junk; what the report must say of them. */
export function junkTranscript(lines: number, every: number): JunkTranscript {
  const out: string[] = [];
  const errorLines: number[] = [];
  let turns = 0;
  for (let n = 1; n <= lines; n++) {
    if (n % every === 0) out.push(good(++turns));
    else {
      out.push(junk(n));
      errorLines.push(n);
    }
  }
  const byReason = new Map<InputErrorReason, number>();
  for (const n of errorLines.slice(LISTED_INPUT_ERRORS)) byReason.set(junkReason(n), (byReason.get(junkReason(n)) ?? 0) + 1);
  return { lines: out, turns, errorLines, byReason };
}
