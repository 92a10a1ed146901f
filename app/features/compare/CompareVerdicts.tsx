// The verdicts of A's selected turn and of B's turn beside it, side by side under the
// banner, in the banner's own words (src/report/headline.ts: the worst of the §5 action and
// the turn's findings); which B turn: contract §6.4 alignment.
import { headline } from '../../../src/report/headline.ts';
import type { TurnDetail } from '../../../src/worker/client.ts';
import { useAnalysis } from '../../stores/analysis.ts';
import { useCompare } from './compareStore.ts';

export function CompareVerdicts() {
  const partner = useCompare((s) => s.partner);
  const a = useAnalysis((s) => s.turn);
  const b = useCompare((s) => s.turn);
  if (partner === null || a === null) return null;
  const say = (t: TurnDetail): string => {
    const h = headline(t);
    const extra = [t.drop.length > 0 && h.kind !== 'drop' ? 'DROP' : '', h.faults > 0 ? `${h.faults} fault${h.faults === 1 ? '' : 's'}` : '']
      .filter((x) => x !== '')
      .join(', ');
    return extra === '' ? h.label : `${h.label} (${extra})`;
  };
  return (
    <section
      className="compare-verdicts"
      data-testid="compare-verdicts"
      data-a-turn={a.turn}
      data-a-action={a.action}
      data-b-turn={b?.turn ?? ''}
      data-b-action={b?.action ?? ''}
      aria-live="polite"
    >
      <div className="a">
        <span className="compare-key" aria-hidden="true" /> A turn {a.turn}: <strong>{say(a)}</strong>
      </div>
      <div className="b">
        <span className="compare-key b" aria-hidden="true" />{' '}
        {b === null ? (
          'B has no turn here'
        ) : (
          <>
            B turn {b.turn}: <strong>{say(b)}</strong>
          </>
        )}
      </div>
    </section>
  );
}
