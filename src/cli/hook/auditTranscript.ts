// docs/hooks.md: a Claude Code transcript read within bounds (boundedRead.ts) and a time
// budget, each line given to the compaction finder (the adapter and its audit, unchanged).
// A line that is not JSON is skipped, as the adapter skips a truncated last line: the hook
// is about the compaction, not about reporting input errors (`check` does that).
import { CompactionFinder, type AuditedCompaction } from '../../ingest/adapters/pendingCompaction.ts';
import { exceedsNesting } from '../../core/nesting.ts';
import { readBoundedTail, shownPath } from './boundedRead.ts';

/** docs/hooks.md: the most of a transcript read (its tail); a longer file's older part is not audited. */
export const MAX_TRANSCRIPT_BYTES = 16 * 1024 * 1024;
/** docs/hooks.md: past this the hook gives up (exit 0, one line on stderr) rather than hold the agent. */
export const HOOK_TIME_BUDGET_MS = 4000;

export interface TranscriptAudit {
  compaction: AuditedCompaction | null;
  /** false: only the tail was read, so the compaction cannot be numbered */
  whole: boolean;
  finder: CompactionFinder;
}

export interface AuditOptions {
  maxBytes?: number;
  /** performance.now() past which reading stops */
  deadline?: number;
  /** keep the wire messages made (hook --url) */
  keep?: boolean;
}

/** The transcript's last compaction, audited; or why it could not be. */
export function auditTranscript(path: string, sessionId: string, options: AuditOptions = {}): TranscriptAudit | { error: string } {
  // Claude Code's transcripts are .jsonl (~/.claude/projects/<project>/<session>.jsonl)
  const read = readBoundedTail(path, options.maxBytes ?? MAX_TRANSCRIPT_BYTES, '.jsonl');
  if ('error' in read) return read;
  const finder = new CompactionFinder(sessionId, options.keep ?? false);
  const deadline = options.deadline ?? Number.POSITIVE_INFINITY;
  const text = read.text;
  let line = 0;
  for (let at = 0; at < text.length;) {
    const nl = text.indexOf('\n', at);
    const end = nl < 0 ? text.length : nl;
    const raw = text.slice(at, end);
    at = end + 1;
    line++;
    if ((line & 255) === 0 && performance.now() > deadline) return { error: `${shownPath(path)}: the time budget ran out after ${line} lines` };
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      continue;
    }
    // a record nested past the limit is skipped as check makes it one input error: the
    // adapter's walks over it would overflow the stack and end the whole audit
    if (exceedsNesting(value, 1)) continue;
    finder.record(value, line);
  }
  return { compaction: finder.finish(), whole: !read.truncated, finder };
}
