// docs/adapters.md "OpenHands": what V1 (the SDK's conversation) and V0 (the app's events)
// sessions share: their header, and what a condensation does to the audit's stretch.
import { appendAll } from '../../core/arrays.ts';
import type { AuditItemKind, CompactionAuditor } from '../../core/compactionAudit.ts';
import type { SessionHeader } from '../../core/wire.ts';
import { firstWords } from './spanLabels.ts';

/** The session header: titled by the first prompt's first words, the window when the usage gave one. */
export function openHandsHeader(sessionId: string, firstPrompt: string | null, contextWindow: number | null): SessionHeader {
  const prompt = firstPrompt === null ? null : firstWords(firstPrompt, 80);
  const header: SessionHeader = {
    type: 'session',
    session_id: sessionId,
    title: prompt ?? `OpenHands conversation ${sessionId}`,
    source: 'openhands',
  };
  if (contextWindow !== null) header.context_window = contextWindow;
  return header;
}

/** contract §8.4 item met in an event, judged once a condensation forgets that event's span */
export interface PendingItem {
  kind: AuditItemKind;
  text: string;
  turn: number;
  spanId: string;
}

/** spans a condensation replaced and its summary's, for the next call's §8.3 record */
export interface Condensed {
  replaced: string[];
  summary: string[];
}

/**
 * A condensation forgot the spans `replaced` (docs/adapters.md condensation): they go to
 * `removed` (pruned at the next call), the items met in them join the audit's stretch, which
 * ends here (contract §8.4), and two condensations before one call are one record.
 */
export function endStretch(
  audit: CompactionAuditor,
  pending: readonly PendingItem[],
  removed: string[],
  before: Condensed | null,
  replaced: string[],
  summary: string[],
): { pending: PendingItem[]; compaction: Condensed } {
  appendAll(removed, replaced);
  const gone = new Set(replaced);
  for (const p of pending) if (gone.has(p.spanId)) audit.add(p.kind, p.text, p.turn, p.spanId);
  audit.compact();
  return { pending: pending.filter((p) => !gone.has(p.spanId)), compaction: { replaced: [...(before?.replaced ?? []), ...replaced], summary } };
}
