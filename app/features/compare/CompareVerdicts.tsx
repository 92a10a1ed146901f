// The verdicts of A's selected turn and of B's turn beside it, side by side under the
// banner, in the banner's own words (turnHeadline: the worst of the §5 action and the turn's
// findings, or for a session in the reference scope, contract §8.1, the §8.9 headline of what
// was measured); which B turn: contract §6.4 alignment.
import type { CompactionRecord, SessionSummary, TurnDetail } from '../../../src/worker/client.ts';
import { headline } from '../../../src/report/headline.ts';
import { sessionOnScreen, useAnalysis } from '../../stores/analysis.ts';
import { outOfScope, turnHeadline } from '../turn/turnHeadline.ts';
import { useCompare } from './compareStore.ts';

/** One side's words: the headline's label, with a drop and the faults beside it where the scored loop ran. */
function say(t: TurnDetail, session: SessionSummary | null | undefined, records: readonly CompactionRecord[] | undefined): { kind: string; text: string } {
  if (session != null && outOfScope(session)) {
    const context = turnHeadline(t, session, records);
    return { kind: context.kind, text: context.label };
  }
  const h = headline(t);
  const extra = [t.drop.length > 0 && h.kind !== 'drop' ? 'DROP' : '', h.faults > 0 ? `${h.faults} fault${h.faults === 1 ? '' : 's'}` : '']
    .filter((x) => x !== '')
    .join(', ');
  return { kind: h.kind, text: extra === '' ? h.label : `${h.label} (${extra})` };
}

export function CompareVerdicts() {
  const partner = useCompare((s) => s.partner);
  const a = useAnalysis((s) => s.turn);
  const aSession = useAnalysis(sessionOnScreen);
  const aRecords = useAnalysis((s) => s.compactions?.records);
  const b = useCompare((s) => s.turn);
  const bSession = useCompare((s) => s.summary?.sessions.find((x) => x.sessionId === s.sessionId));
  const bRecords = useCompare((s) => (s.compactions !== null && s.compactions.sessionId === s.sessionId ? s.compactions.records : undefined));
  if (partner === null || a === null) return null;
  const aSays = say(a, aSession, aRecords);
  const bSays = b === null ? null : say(b, bSession, bRecords);
  return (
    <section
      className="compare-verdicts"
      data-testid="compare-verdicts"
      data-a-turn={a.turn}
      data-a-action={a.action}
      data-a-headline={aSays.kind}
      data-b-turn={b?.turn ?? ''}
      data-b-action={b?.action ?? ''}
      data-b-headline={bSays?.kind ?? ''}
      aria-live="polite"
    >
      <div className="a">
        <span className="compare-key" aria-hidden="true" /> A turn {a.turn}: <strong>{aSays.text}</strong>
      </div>
      <div className="b">
        <span className="compare-key b" aria-hidden="true" />{' '}
        {bSays === null ? (
          'B has no turn here'
        ) : (
          <>
            B turn {b!.turn}: <strong>{bSays.text}</strong>
          </>
        )}
      </div>
    </section>
  );
}
