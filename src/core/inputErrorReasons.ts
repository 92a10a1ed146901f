// contract §2.5 "Past the first 1,000": the reason an input error is counted under once it
// is no longer listed in full. A reason is a short stable key, one per rule of §2.5 (and
// one each for the extensions' own refusals), told from the message's words: every message
// is written by this product (the engine, the readers, the adapters), so its shape is
// known. The patterns are anchored at a fixed start or end of the sentence, never matched
// anywhere in it, so an id or a value quoted inside a message (input text) cannot make it
// count under another reason. test/core/inputErrorReasons.test.ts makes each error through
// the reader that writes it and checks its reason, so a reworded message fails there.
import { tooDeepMessage } from './nesting.ts';

/** The reasons, in the order of contract §2.5's rules (then §7's), the order of `by_reason`. */
export const INPUT_ERROR_REASONS = [
  'not-utf8', // rule 1
  'not-json', // rule 2
  'not-object', // rule 3
  'bad-type', // rule 4
  'bad-session-id', // rule 5
  'bad-field', // rule 6
  'duplicate-span-id', // rule 7
  'lone-surrogate', // rule 8
  'ordering', // rule 9
  'broken-structure', // rule 10 (a .json array; also a Gemini CLI or SWE-agent document, §7.3)
  'too-deep', // rule 11
  'too-long', // rule 12
  'compact', // §7.1: a left-out text that cannot be carried
  'record', // §7.3: another agent's record that could not be read, or a file not of its format
  'otlp', // §7.4: spans the relay could not place (the dashboard, following a live session)
  'other', // none of the above
] as const;

export type InputErrorReason = (typeof INPUT_ERROR_REASONS)[number];

const TOO_DEEP_END = tooDeepMessage('');
const STARTS: readonly (readonly [string, InputErrorReason])[] = [
  ['not valid UTF-8: ', 'not-utf8'],
  ['not valid JSON: ', 'not-json'],
  ['a message must be a JSON object', 'not-object'],
  ['type must be "session" or "snapshot"', 'bad-type'],
  ['session_id contains a lone surrogate', 'lone-surrogate'],
  ['session_id ', 'bad-session-id'],
  ['a second, different session header for ', 'ordering'],
  ['the message does not match the wire format', 'bad-field'],
  // src/ingest/jsonArray.ts
  ['a .json transcript must be a JSON array', 'broken-structure'],
  ['expected , or ] between array elements', 'broken-structure'],
  ['unexpected content after the closing ]', 'broken-structure'],
  ['unbalanced } on line', 'broken-structure'],
  ['the array ends inside an element', 'broken-structure'],
  // src/ingest/jsonDocument.ts (a Gemini CLI session read as it streams)
  ['a document must be one JSON object', 'broken-structure'],
  ['expected a member name on line', 'broken-structure'],
  ['a member name ', 'broken-structure'],
  ['expected : after ', 'broken-structure'],
  ['expected , or } after ', 'broken-structure'],
  ["unexpected content after the document's closing }", 'broken-structure'],
  ['the document is empty', 'broken-structure'],
  ['the document ends before its closing }', 'broken-structure'],
  // src/ingest/adapters/pipeline.ts
  ['the record could not be read: ', 'record'],
  ['not a Gemini CLI session: ', 'record'],
  ['not a SWE-agent trajectory: ', 'record'],
  // src/worker/relayInputErrors.ts
  ['OTLP span ', 'otlp'],
];
const ENDS: readonly (readonly [string, InputErrorReason])[] = [
  [TOO_DEEP_END, 'too-deep'],
  ['(--max-line-bytes): it was skipped, not read', 'too-long'],
  [': span ids must be unique within a snapshot', 'duplicate-span-id'],
  ['lone surrogate (not valid Unicode)', 'lone-surrogate'],
  ['must come before its first snapshot', 'ordering'],
  ['(contract §7 compact wire: a span may leave out its text only when the previous snapshot had it)', 'compact'],
  ['more OTLP spans the relay could not place (not listed)', 'otlp'],
];
// src/core/engine.ts: the session id in the middle is quoted input, so both ends are held
const TURN_NOT_INCREASING = /^turn -?\d+ of session ".*" does not increase \(the previous snapshot was turn -?\d+\)$/s;
/** src/node/openhandsFolder.ts names the event file first: "<file>: not valid JSON: …" */
const FILE_PREFIX = /^[^\s:]+: /;

export function inputErrorReason(message: string): InputErrorReason {
  const reason = reasonOf(message);
  if (reason !== 'other') return reason;
  const prefix = FILE_PREFIX.exec(message);
  return prefix === null ? 'other' : reasonOf(message.slice(prefix[0].length));
}

function reasonOf(message: string): InputErrorReason {
  for (const [start, reason] of STARTS) if (message.startsWith(start)) return reason;
  for (const [end, reason] of ENDS) if (message.endsWith(end)) return reason;
  if (TURN_NOT_INCREASING.test(message)) return 'ordering';
  return breaksFieldRule(message) ? 'bad-field' : 'other';
}

/**
 * src/core/validate.ts describeIssue: "<field> is required but missing", "<field> must not
 * be empty", "<field> must be …, got …". String searches, not a regular expression: a quoted
 * span id may be long, and a pattern with two wildcards could backtrack over it.
 */
function breaksFieldRule(message: string): boolean {
  if (message.endsWith(' is required but missing') || message.endsWith(' must not be empty')) return true;
  const must = message.indexOf(' must be ');
  return must >= 0 && message.lastIndexOf(', got ') > must;
}
