// docs/adapters.md "Telling the format": the one sentence for a file none of whose lines is a
// record of any format this reads, said the same by `check` and the dashboard.
import type { TranscriptFormat } from './detect.ts';

export const FORMAT_NAMES: Record<TranscriptFormat, string> = {
  wire: 'Context Health messages',
  'claude-code': 'Claude Code transcript',
  'swe-agent': 'SWE-agent trajectory',
  codex: 'Codex CLI rollout',
  gemini: 'Gemini CLI session',
  openhands: 'OpenHands conversation',
};

/** The input errors a line that is no record of any format gets (the engine's words, src/core/validate.ts, inputErrors.ts, lines.ts). */
const NOT_A_RECORD = /^(not valid JSON|a message must be a JSON object|type must be "session" or "snapshot"|not valid UTF-8)/;

/** Whether an input error is of the kind a line of no format at all gets. */
export function isNotARecord(message: string): boolean {
  return NOT_A_RECORD.test(message);
}

export function notATranscriptSentence(): string {
  const kinds = Object.entries(FORMAT_NAMES).map(([format, name]) => (format === 'wire' ? name : `${/^[AEIOU]/.test(name) ? 'an' : 'a'} ${name}`));
  return `not a transcript this reads: expected one of ${kinds.slice(0, -1).join(', ')} or ${kinds[kinds.length - 1]!} (check --help shows a line of each)`;
}
