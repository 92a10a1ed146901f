// docs/hooks.md: the audited compaction (pendingCompaction.ts) as the hand-back's input:
// which of its items and carried items go back, and the line that names the full audit.
import type { AuditItem } from '../../core/compactionAudit.ts';
import { composeHandback, type Handback, type HandbackFile } from '../../core/handback.ts';
import type { AuditedCompaction } from '../../ingest/adapters/pendingCompaction.ts';

/** A path quoted for a POSIX shell when it needs it (the audit line is a command to paste). */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** docs/hooks.md: where the whole audit of this compaction is. */
export function auditLine(c: AuditedCompaction, transcript: string, numbered: boolean): string {
  const file = shellWord(transcript);
  return numbered
    ? `Full audit of this compaction: context-health report ${file} --compaction ${c.ordinal} (or check ${file} --json, sessions[].compactions[${c.ordinal - 1}]).`
    : `Full audit: context-health check ${file} --json (sessions[].compactions[], the last one; the transcript was too long to number it here).`;
}

/**
 * The items to hand back: prompts not held word for word (status other than `kept`: lost,
 * paraphrased, or any status the audit cannot decide) and files lost, from the compaction's
 * own stretch and from earlier ones it judged again (`carried`); the stretch's pending todos. A
 * text that recurs is handed back once.
 */
export function handbackOf(c: AuditedCompaction, transcript: string, budget: number, numbered: boolean): Handback {
  const all: AuditItem[] = [...c.items, ...c.carried];
  const seen = new Set<string>();
  const once = (it: AuditItem): boolean => {
    const key = `${it.kind}\0${it.text}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
  const prompts = all.filter((it) => it.kind === 'user_prompt' && it.status !== 'kept' && once(it));
  // the stretch's own last list: a todo carried from an older list is no longer pending work
  const todos = c.items.filter((it) => it.kind === 'todo' && once(it)).map((it) => it.text);
  const files: HandbackFile[] = all
    .filter((it) => it.kind === 'file' && it.status === 'lost' && once(it))
    .map((it) => ({ path: it.text, edited: c.edited.has(it.text) }));
  return composeHandback({ prompts, todos, files, auditLine: auditLine(c, transcript, numbered), budget });
}
