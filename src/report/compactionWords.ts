// What `check`'s human output, `diff` and the compaction report say of a session's compactions (contract §8.3) and
// of the detectors that do not apply to it (§8.1): one line per compaction, in words a person
// debugging a lost thread reads first.
import { CARRIED_MAX } from '../core/compactionAudit.ts';
import type { CompactionRecord, KindRetention } from '../core/compactions.ts';
import type { Signal } from '../core/signals.ts';
import { groupedDigits } from '../core/digits.ts';

const SHOWN = 10;

/** contract §8.3 `summary_state: "encrypted"`: what the record says, in a user's words (check, reports and the dashboard). */
export const ENCRYPTED_SUMMARY_WORDS = 'the summary is encrypted (Codex): what it kept cannot be read';

/**
 * contract §8.4 "Repeated compactions": a compaction's `carried_not_followed`, as report.md
 * (under the carried table) and the dashboard's compaction panel both say it; null when the
 * cap left nothing out, so nothing is said. "5 more items of earlier compactions were not
 * judged again: the audit follows at most 1,000 from one compaction to the next."
 */
export function carriedNotFollowedWords(notFollowed: number | undefined): string | null {
  const n = notFollowed ?? 0;
  if (!(n > 0)) return null;
  return `${groupedDigits(n)} more item${n === 1 ? '' : 's'} of earlier compactions ${n === 1 ? 'was' : 'were'} not judged again: the audit follows at most ${groupedDigits(CARRIED_MAX)} from one compaction to the next.`;
}

/**
 * "turn 160: 167,012 → 31,002 tokens, 451 spans replaced; the next call still names 41 of 58 files (17 dropped, 3 of them
 * read again), …". contract §8.4 judges an item against everything the first call after the
 * compaction saw, the summary and what came with it (Claude Code restores the files it read
 * last), so the words name that call, not the summary alone.
 */
export function compactionLine(r: CompactionRecord): string {
  const tokens = r.tokens_before === null ? `${num(r.tokens_after)} tokens after it` : `${num(r.tokens_before)} → ${num(r.tokens_after)} tokens`;
  const head = `turn ${r.turn}: ${r.kind === 'compact' ? '' : `${r.kind}, `}${tokens}, ${r.spans_replaced} span${r.spans_replaced === 1 ? '' : 's'} replaced`;
  const parts: string[] = [];
  const file = r.retention.file;
  if (file !== undefined) {
    const dropped = file.lost;
    // contract §8.4 unknown: a file the readable text does not name may still be in an encrypted summary
    const unjudged = file.unknown === undefined ? '' : `${dropped > 0 ? ', ' : ' ('}${file.unknown} not in the readable text`;
    const open = dropped > 0 || unjudged !== '';
    parts.push(
      `the next call${r.summary_state === 'encrypted' ? "'s readable text" : ''} still names ${file.kept} of ${file.items} file${file.items === 1 ? '' : 's'}${dropped > 0 ? ` (${dropped} dropped, ${file.confirmed} of them read again` : ''}${unjudged}${open ? ')' : ''}`,
    );
  }
  const prompt = r.retention.user_prompt;
  if (prompt !== undefined) parts.push(`keeps ${prompt.kept} of ${prompt.items} prompt${prompt.items === 1 ? '' : 's'} word for word${others(prompt)}`);
  for (const kind of ['todo', 'command', 'error'] as const) {
    const k = r.retention[kind];
    if (k !== undefined) parts.push(`${kind}s: ${k.kept} kept of ${k.items}${others(k)}`);
  }
  if (r.summary_state === 'encrypted') parts.push(ENCRYPTED_SUMMARY_WORDS);
  else if (r.kind === 'compact' && r.summary_span_ids.length === 0) parts.push('no summary');
  return parts.length === 0 ? head : `${head}; ${parts.join(', ')}`;
}

export function compactionLines(records: readonly CompactionRecord[] | undefined): string[] {
  if (records === undefined || records.length === 0) return [];
  const out = [`  compactions: ${records.length} (contract §8.3; every item in --json)`];
  for (const r of records.slice(0, SHOWN)) out.push(`    ${compactionLine(r)}`);
  if (records.length > SHOWN) out.push(`    … and ${records.length - SHOWN} more (see --json)`);
  return out;
}

/** contract §8.1: the detectors left out, grouped by their reason, printed once. */
export function notApplicableLines(skipped: Partial<Record<Signal, string>> | undefined): string[] {
  if (skipped === undefined) return [];
  const byReason = new Map<string, Signal[]>();
  for (const [signal, reason] of Object.entries(skipped) as [Signal, string][]) {
    const list = byReason.get(reason) ?? [];
    list.push(signal);
    byReason.set(reason, list);
  }
  if (byReason.size === 0) return [];
  const out = ['  not applicable to this session (contract §8.1):'];
  for (const [reason, signals] of byReason) out.push(`    ${signals.join(', ')}: ${reason}`);
  return out;
}

function others(k: KindRetention): string {
  const parts: string[] = [];
  if (k.paraphrased > 0) parts.push(`${k.paraphrased} paraphrased`);
  if (k.lost > 0) parts.push(`${k.lost} lost${k.confirmed > 0 ? `, ${k.confirmed} needed again` : ''}`);
  if (k.unknown !== undefined) parts.push(`${k.unknown} unknown`);
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

function num(n: number): string {
  return groupedDigits(n);
}
