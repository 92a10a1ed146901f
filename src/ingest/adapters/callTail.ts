// adapters.md compaction: the end of one call's snapshot, the same in the Gemini CLI,
// OpenHands and Codex adapters: what left the history since the last call (pruned, and
// archived since the agent's file still holds it, contract §8.2), the compaction the call is
// the first after (judged against everything the call saw, contract §8.4) and the refetches
// the auditor saw. Claude Code's is its own: its compactions carry a trigger and pre_tokens.
import { notFollowedField, type CompactionAuditor } from '../../core/compactionAudit.ts';
import type { Snapshot } from '../../core/wire.ts';
import type { ContextItem } from './contextItems.ts';

export interface PendingCompaction {
  replaced: string[];
  summary: string[];
  /** the summary is encrypted: what it kept cannot be read (contract §8.3 `summary_state`), so a missing item is unknown */
  encrypted?: boolean;
}

export function closeCall(
  snap: Snapshot,
  items: readonly ContextItem[],
  removed: string[],
  compaction: PendingCompaction | null,
  audit: CompactionAuditor,
  trigger: string | null,
): void {
  if (removed.length > 0) {
    snap.pruned = removed;
    snap.archived = removed;
  }
  if (compaction !== null) {
    const encrypted = compaction.encrypted === true;
    const judged = audit.judge(snap.turn, items.map((i) => i.text).join('\n'), encrypted);
    snap.compaction = {
      kind: 'compact',
      trigger,
      pre_tokens: null,
      replaced: compaction.replaced,
      summary: compaction.summary,
      ...(encrypted ? { summary_state: 'encrypted' } : {}),
      items: judged.items,
      carried: judged.carried,
      ...notFollowedField(judged),
    };
  }
  const refetched = audit.takeRefetches();
  if (refetched.length > 0) snap.refetched = refetched;
}
