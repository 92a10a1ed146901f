// What a correct harness does next at the selected turn (contract §5), said plainly, with the
// session's headline: where scores stopped being trustworthy.
import { SEVERITY_RANK, SIGNALS, type Action } from '../../../src/worker/client.ts';
import { useRef } from 'react';
import { ExportButtons } from '../../components/ExportButtons.tsx';
import { incidentAt, reportIncident } from '../report/reportIncident.ts';
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
  const ref = useRef<HTMLElement>(null);
  const findings = useAnalysis((s) => s.findings);
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
  // the incident of the worst finding at this turn: what "Report this incident" reports
  const incident = findings === null || worst[0] === undefined ? null : incidentAt(SIGNALS.indexOf(worst[0].signal), turn.turn);
  return (
    <section
      ref={ref}
      className={`verdict ${a.tone}${turn.turn !== selected ? ' stale' : ''}`}
      data-testid="verdict"
      data-action={turn.action}
      data-turn={turn.turn}
      aria-live="polite"
    >
      <div className="verdict-headline">
        {headline}
        <span className="verdict-tools" data-no-export>
          {incident !== null && (
            <button
              type="button"
              className="btn small"
              onClick={() => void reportIncident(incident)}
              aria-label={`Report this incident (incident ${incident}: ${worst[0]!.signal})`}
            >
              Report this incident
            </button>
          )}
          <ExportButtons
            figure="verdict"
            label="Verdict and charts"
            verb="Export"
            target={() => [ref.current, document.querySelector<HTMLElement>('[data-testid="charts"]')].filter((e): e is HTMLElement => e !== null)}
          />
        </span>
      </div>
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
