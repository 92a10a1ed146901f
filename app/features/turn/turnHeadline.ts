// A turn's headline as every view of one turn says it (the banner, the compare view's two
// sides): the scored loop's (src/report/headline.ts) for a session where every detector runs,
// or for a session in the reference scope (contract §8.1) what was measured there (§8.9:
// lineage, compactions, pressure), never a score verdict. Its findings stay listed either way.
import { headline, type Headline, type HeadlineKind } from '../../../src/report/headline.ts';
import { contextHeadline, type ContextKind } from '../../../src/report/contextHeadline.ts';
import type { CompactionRecord, SessionSummary, TurnDetail } from '../../../src/worker/client.ts';

/** Whether no score detector ran on the session (contract §8.1): its turns get §8.9's words. */
export function outOfScope(session: Pick<SessionSummary, 'notApplicable'>): boolean {
  return Object.keys(session.notApplicable).length > 0;
}

/** The turn's headline; `records` are the session's compactions (§8.3), undefined while not pulled. */
export function turnHeadline(
  turn: TurnDetail,
  session: Pick<SessionSummary, 'notApplicable' | 'thresholds'>,
  records: readonly CompactionRecord[] | undefined,
): Headline & { kind: HeadlineKind | ContextKind } {
  const scored = headline(turn);
  if (!outOfScope(session)) return scored;
  const context = contextHeadline({
    turn: turn.turn,
    tokensTotal: turn.metrics.tokens_total,
    window: turn.contextWindow?.tokens ?? null,
    pressureThreshold: session.thresholds.pressure_threshold,
    orphanEdges: turn.metrics.orphan_edges,
    compactions: records ?? [],
  });
  return { ...context, findings: scored.findings };
}
