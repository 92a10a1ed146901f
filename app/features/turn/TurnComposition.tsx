// contract §8.7 the selected turn's context by kind (bars, largest first, the same colours as
// the composition chart) and its largest spans, each a link to the inspector by its label.
import type { TurnDetail } from '../../../src/worker/client.ts';
import { selectSpan } from '../../analysis.ts';
import { kindColor, pct } from '../../../src/charts/composition.ts';
import { shortLabel } from './spanNames.ts';

export function TurnComposition({ turn }: { turn: TurnDetail }) {
  const total = turn.metrics.tokens_total;
  const win = turn.contextWindow;
  if (turn.composition.length === 0) return null;
  const toolSlots = turn.composition.map((k) => k.kind).filter((k) => k.startsWith('tool_result:'));
  return (
    <section className="turn-composition" data-testid="turn-composition" aria-label={`What fills the context at turn ${turn.turn}`}>
      <h3>
        What fills the context{' '}
        <span className="muted">
          {total.toLocaleString('en-US')} tokens
          {win !== null
            ? ` · ${pct(total / win.tokens)} of a ${win.tokens.toLocaleString('en-US')}-token window (${win.source === 'model' ? (win.model ?? 'model') : win.source})`
            : ''}
        </span>
      </h3>
      <ul className="kind-bars">
        {turn.composition.map((k) => (
          <li key={k.kind} data-testid="kind-bar" data-kind={k.kind} data-tokens={k.tokens}>
            <span className="kind-name">{k.label}</span>
            <span className="kind-bar" aria-hidden="true">
              <span
                style={{ width: `${total > 0 ? Math.max(0.5, (k.tokens / total) * 100) : 0}%`, background: kindColor(k.kind, toolSlots.indexOf(k.kind)) }}
              />
            </span>
            <span className="kind-tokens">
              {k.tokens.toLocaleString('en-US')} <span className="muted">({total > 0 ? pct(k.tokens / total) : '—'})</span>
            </span>
          </li>
        ))}
      </ul>
      {turn.largest !== null && turn.largest.length > 0 && (
        <>
          <h4>Largest spans</h4>
          <ol className="largest-spans">
            {turn.largest.map((s) => (
              <li key={s.spanId}>
                <button
                  type="button"
                  className="link"
                  data-testid="largest-span"
                  data-span-id={s.spanId}
                  title={`span ${s.spanId}`}
                  onClick={() => selectSpan(s.spanId)}
                >
                  {shortLabel(s.label ?? s.spanId)}
                </button>{' '}
                <span className="muted">
                  {s.tokens.toLocaleString('en-US')} tokens · {s.kind}
                </span>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
