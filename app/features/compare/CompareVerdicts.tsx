// The verdicts of A's selected turn and of B's turn beside it, side by side under the
// banner (contract §5 action; which B turn: contract §6.4 alignment).
import { useAnalysis } from '../../stores/analysis.ts';
import { useCompare } from './compareStore.ts';

export function CompareVerdicts() {
  const partner = useCompare((s) => s.partner);
  const a = useAnalysis((s) => s.turn);
  const b = useCompare((s) => s.turn);
  if (partner === null || a === null) return null;
  const say = (action: string, drops: boolean): string => `${action.replace('_', ' ').toUpperCase()}${drops ? ' + DROP' : ''}`;
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
        <span className="compare-key" aria-hidden="true" /> A turn {a.turn}: <strong>{say(a.action, a.drop.length > 0)}</strong>
      </div>
      <div className="b">
        <span className="compare-key b" aria-hidden="true" />{' '}
        {b === null ? (
          'B has no turn here'
        ) : (
          <>
            B turn {b.turn}: <strong>{say(b.action, b.drop.length > 0)}</strong>
          </>
        )}
      </div>
    </section>
  );
}
