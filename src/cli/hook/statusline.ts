// `context-health statusline`: Claude Code's status line (docs/hooks.md "Status line"). Reads
// the status-line JSON on stdin and prints one short line: "ctx 74% · 1 compaction · 1 lost".
// It runs on every refresh, so the transcript's audit is never run again for a refresh that
// adds no compaction: a cache (statuslineCache.ts), keyed by the transcript's path, inode,
// size and mtime, keeps the counts, and a grown transcript is scanned only in its new bytes
// for a compact boundary (or the first call after a pending one).
import { isObject, type JsonObject } from '../../ingest/adapters/json.ts';
import { writeAll } from '../output.ts';
import { auditTranscript } from './auditTranscript.ts';
import { readStdin } from './boundedRead.ts';
import { grownBytes, keyOf, readCache, writeCache, type Counts } from './statuslineCache.ts';

/** contract §8.4 kinds the hook hands back: the ones the status line counts as lost */
const COUNTED = new Set(['user_prompt', 'file', 'todo']);

/** Claude Code's `context_window`: `used_percentage` (2.1.6+), else current_usage / context_window_size. */
export function contextPercent(input: JsonObject): number | null {
  const cw = isObject(input.context_window) ? input.context_window : null;
  if (cw === null) return null;
  if (typeof cw.used_percentage === 'number' && Number.isFinite(cw.used_percentage)) return cw.used_percentage;
  const size = cw.context_window_size;
  const usage = isObject(cw.current_usage) ? cw.current_usage : null;
  if (typeof size !== 'number' || size <= 0 || usage === null) return null;
  let used = 0;
  for (const k of ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens']) if (typeof usage[k] === 'number') used += usage[k] as number;
  return (100 * used) / size;
}

/** The counts of a transcript: every compaction, and the lost items of the last one (recomputed in full). */
function countTranscript(path: string): Counts | { error: string } {
  const audit = auditTranscript(path, 'statusline');
  if ('error' in audit) return audit;
  const c = audit.compaction;
  const lost = c === null ? 0 : [...c.items, ...c.carried].filter((it) => COUNTED.has(it.kind) && it.status === 'lost').length;
  return { compactions: c?.compacts ?? 0, lost, pending: c?.pending ?? false };
}

export function statusText(percent: number | null, counts: Counts | null): string {
  const parts: string[] = [];
  if (percent !== null) parts.push(`ctx ${Math.round(percent)}%`);
  if (counts !== null) {
    parts.push(`${counts.compactions} compaction${counts.compactions === 1 ? '' : 's'}`);
    if (counts.compactions > 0) parts.push(`${counts.lost} lost`);
  }
  return parts.join(' · ');
}

/** The counts for the transcript now: the cache's when it still holds, else the new bytes scanned, else counted in full. */
export function transcriptCounts(path: string): Counts | null {
  const now = keyOf(path);
  if (now === null) return null;
  const cached = readCache(path, now);
  if (cached !== null && cached.fresh) return cached.counts;
  if (cached !== null) {
    const grown = grownBytes(path, cached.key);
    // no new boundary, and nothing pending whose first call may have come: the counts hold
    if (grown !== null && !grown.includes('"compact_boundary"') && !(cached.counts.pending && grown.includes('"assistant"'))) {
      writeCache(path, now, cached.counts);
      return cached.counts;
    }
  }
  const counted = countTranscript(path);
  if ('error' in counted) return null;
  writeCache(path, now, counted);
  return counted;
}

export async function runStatusline(): Promise<number> {
  const raw = await readStdin(1024 * 1024, 1000);
  let input: unknown = null;
  if (typeof raw === 'string') {
    try {
      input = JSON.parse(raw);
    } catch {
      input = null;
    }
  }
  if (!isObject(input)) {
    await writeAll(process.stdout, 'ctx ?\n');
    return 0;
  }
  const transcript = typeof input.transcript_path === 'string' && input.transcript_path !== '' ? input.transcript_path : null;
  const counts = transcript === null ? null : transcriptCounts(transcript);
  await writeAll(process.stdout, `${statusText(contextPercent(input), counts) || 'ctx ?'}\n`);
  return 0;
}
