// What `check` says about a transcript an adapter read (docs/adapters.md): which format it
// was told to be and every record it left out, by kind. Nothing for the product's own
// format, so that report stays exactly as before (contract §7).
import { describeSkipped } from '../ingest/adapters/skipped.ts';
import type { AdapterSummary } from '../ingest/adapters/pipeline.ts';
import type { TranscriptFormat } from '../ingest/adapters/detect.ts';
import { FORMAT_NAMES, isNotARecord, notATranscriptSentence } from '../ingest/adapters/notATranscript.ts';
import type { OmittedInputErrors } from '../core/inputErrorList.ts';
import { inputErrorCount, type CheckOutput } from '../core/checkOutput.ts';
import type { InputErrorReason } from '../core/inputErrorReasons.ts';

export function adapterNote(summary: AdapterSummary): string {
  if (summary.format === 'wire') return '';
  const skipped = describeSkipped(summary.skipped);
  const name = FORMAT_NAMES[summary.format];
  const lines = ['', `Read as ${/^[AEIOU]/.test(name) ? 'an' : 'a'} ${name} (docs/adapters.md).`];
  lines.push(skipped === '' ? 'Records not mapped: none.' : `Records not mapped: ${skipped}.`);
  return lines.join('\n') + '\n';
}

/** contract §7: the --json output of an adapted transcript carries one more key, `adapter`. */
export function adapterJson(summary: AdapterSummary): { adapter?: { format: TranscriptFormat; skipped_records: Record<string, number> } } {
  return summary.format === 'wire' ? {} : { adapter: { format: summary.format, skipped_records: summary.skipped } };
}

export function parseFrom(value: string | undefined): TranscriptFormat | undefined | { error: string } {
  if (value === undefined || value === 'auto') return undefined;
  if (value === 'claude-code' || value === 'swe-agent' || value === 'codex' || value === 'gemini' || value === 'openhands' || value === 'wire') return value;
  return { error: `--from must be claude-code, swe-agent, codex, gemini, openhands, wire or auto, got ${JSON.stringify(value)}` };
}

/** The errors of isNotARecord() by their reasons (src/core/inputErrorReasons.ts) */
const NOT_A_RECORD_REASONS: ReadonlySet<InputErrorReason> = new Set(['not-json', 'not-object', 'bad-type', 'not-utf8']);

/**
 * docs/adapters.md "Telling the format": a file none of whose lines is a record of any format
 * this reads (no adapter knew its first message, no line was a session or snapshot, every
 * line an error of that kind) gets one sentence instead of an input error per line. A
 * transcript with any message of the product's own format, even a broken one, keeps its
 * report exactly as before.
 */
export function notATranscript(
  summary: AdapterSummary,
  report: { sessions: readonly unknown[]; input_errors: readonly { message: string }[]; input_errors_omitted?: OmittedInputErrors },
): string | null {
  if (summary.format !== 'wire' || report.sessions.length > 0 || report.input_errors.length === 0) return null;
  if (!report.input_errors.every((e) => isNotARecord(e.message))) return null;
  // past the first 1,000 (contract §2.5) the rest are known by their reasons: the same four kinds
  const counted = Object.keys(report.input_errors_omitted?.by_reason ?? {}) as InputErrorReason[];
  if (!counted.every((reason) => NOT_A_RECORD_REASONS.has(reason))) return null;
  return notATranscriptSentence();
}

/**
 * What `check`, `diff` and `report` say of an input with no snapshot to analyse (exit 2). An
 * agent's session that was read without an error but holds no model call (a Gemini CLI
 * session of prompts that all failed, a Claude Code file of summaries alone) is said to be
 * that, not "no valid snapshot", which reads as a broken file; anything else keeps the count
 * of its input errors.
 */
export function noSnapshotSentence(source: string, summary: AdapterSummary, report: Pick<CheckOutput, 'input_errors' | 'input_errors_omitted'>): string {
  const errors = inputErrorCount(report);
  if (summary.format !== 'wire' && errors === 0) {
    const name = FORMAT_NAMES[summary.format];
    return `${source} is ${/^[AEIOU]/.test(name) ? 'an' : 'a'} ${name} with no model call in it: nothing to analyse`;
  }
  return `${source} holds no valid snapshot (${errors} input errors)`;
}
