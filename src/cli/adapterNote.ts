// What `check` says about a transcript an adapter read (docs/adapters.md): which format it
// was told to be and every record it left out, by kind. Nothing for the product's own
// format, so that report stays exactly as before (contract §7).
import { describeSkipped } from '../ingest/adapters/skipped.ts';
import type { AdapterSummary } from '../ingest/adapters/pipeline.ts';
import type { TranscriptFormat } from '../ingest/adapters/detect.ts';

const FORMAT_NAMES: Record<TranscriptFormat, string> = {
  wire: 'Context Health messages',
  'claude-code': 'Claude Code transcript',
  'swe-agent': 'SWE-agent trajectory',
  codex: 'Codex CLI rollout',
  gemini: 'Gemini CLI session',
  openhands: 'OpenHands conversation',
};

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
