// What a correct harness does next at the selected turn (contract §5), said plainly, with the
// session's headline: where scores stopped being trustworthy.
import { SEVERITY_RANK, type Action } from '../../../src/worker/client.ts';
import { selectTurn } from '../../analysis.ts';
import { SeverityBadge, SpanChips } from '../../components/bits.tsx';
import { SIGNAL_INFO } from '../../signalInfo.ts';
import { sessionOnScreen, useAnalysis } from '../../stores/analysis.ts';
import { useUi } from '../../stores/ui.ts';

const ACTION_TEXT: Record<Action, { label: string; tone: string; say: string }> = {
  prune_ok: { label: 'PRUNE OK', tone: 'ok', say: 'Every score is bound to its text and the scorer is not collapsed: pruning may proceed.' },
  recompute: { label: 'RECOMPUTE', tone: 'warn', say: 'Recompute these scores before pruning (never adjust a stale score by a delta):' },
  freeze: { label: 'FREEZE', tone: 'fault', say: 'Relevance collapse: halt pruning and carry the full context forward until scores recover.' },
};

export function VerdictBanner() {
  const turn = useAnalysis((s) => s.turn);
  const session = useAnalysis(sessionOnScreen);
  const selected = useUi((s) => s.selectedTurn);
  const load = useAnalysis((s) => s.load);
  if (session === null || session.turns === 0) {
    return (
      <section className="verdict pending" data-testid="verdict" aria-live="polite">
        {load.state === 'reading' ? 'Analysing… the verdict appears with the first turn.' : 'No turn analysed in this source.'}
      </section>
    );
  }
  const headline = session.firstFault ? (
    <span>
      Scores stopped being trustworthy at{' '}
      <button type="button" className="link" onClick={() => selectTurn(session.firstFault!.turn)}>
        turn {session.firstFault.turn}
      </button>{' '}
      (<code>{session.firstFault.signal}</code>).
    </span>
  ) : (
    <span>No fault in {session.turns.toLocaleString('en-US')} turns.</span>
  );
  if (turn === null) {
    return (
      <section className="verdict pending" data-testid="verdict">
        <div className="verdict-headline">{headline}</div>
      </section>
    );
  }
  const a = ACTION_TEXT[turn.action];
  const worst = [...turn.findings].sort((x, y) => SEVERITY_RANK[y.severity] - SEVERITY_RANK[x.severity]);
  return (
    <section
      className={`verdict ${a.tone}${turn.turn !== selected ? ' stale' : ''}`}
      data-testid="verdict"
      data-action={turn.action}
      data-turn={turn.turn}
      aria-live="polite"
    >
      <div className="verdict-headline">{headline}</div>
      <div className="verdict-main">
        <span className="verdict-turn">Turn {turn.turn}</span>
        <span className={`verdict-action ${a.tone}`}>{a.label}</span>
        <span className="verdict-say">
          {a.say}
          {turn.action === 'recompute' && (
            <>
              {' '}
              <strong>{turn.recompute.length}</strong> span{turn.recompute.length === 1 ? '' : 's'} <SpanChips ids={turn.recompute} limit={14} tone="bad" />
            </>
          )}
        </span>
      </div>
      {turn.drop.length > 0 && (
        <div className="verdict-drop">
          <span className="verdict-action fault">DROP</span> paraphrase of a paraphrase, do not rescore: <SpanChips ids={turn.drop} limit={14} tone="drop" />
        </div>
      )}
      {worst.length > 0 && (
        <ul className="verdict-findings">
          {worst.map((f) => (
            <li key={f.signal}>
              <SeverityBadge severity={f.severity} /> <strong>{SIGNAL_INFO[f.signal].title}</strong>{' '}
              <span className="muted">— {SIGNAL_INFO[f.signal].todo}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
