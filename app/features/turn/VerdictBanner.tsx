// What a correct harness does next at the selected turn, said plainly: one headline
// (src/report/headline.ts) carrying the worst of the contract §5 verdict and of the turn's
// findings, so the banner never says "pruning may proceed" beside a fault or a drop. Above
// it the session's own headline: where scores stopped being trustworthy, and the next
// fault after the cursor.
import { SEVERITY, SIGNALS, type FindingsIndex } from '../../../src/worker/client.ts';
import { isDisconnected } from './disconnected.ts';
import { droppedLinesWords } from '../../../src/report/headline.ts';
import { turnHeadline } from './turnHeadline.ts';
import { useRef } from 'react';
import { ExportButtons } from '../../components/ExportButtons.tsx';
import { incidentAt, reportIncident } from '../report/reportIncident.ts';
import { selectTurn } from '../../analysis.ts';
import { SeverityBadge, SpanChips } from '../../components/bits.tsx';
import { sessionOnScreen, useAnalysis } from '../../stores/analysis.ts';
import { useUi } from '../../stores/ui.ts';

/** The first fault incident starting after `turn`: where the next untrustworthy stretch begins. */
export function nextFault(ix: FindingsIndex | null, turn: number): { turn: number; signal: string } | null {
  if (ix === null) return null;
  let best: { turn: number; signal: string } | null = null;
  for (let k = 0; k < ix.incidentSignal.length; k++) {
    const signal = SIGNALS[ix.incidentSignal[k]!]!;
    const start = ix.incidentStart[k]!;
    if (SEVERITY[signal] === 'fault' && start > turn && (best === null || start < best.turn)) best = { turn: start, signal };
  }
  return best;
}

function SessionHeadline() {
  const session = useAnalysis(sessionOnScreen);
  const findings = useAnalysis((s) => s.findings);
  const selected = useUi((s) => s.selectedTurn);
  if (session === null) return null;
  const next = selected === null ? null : nextFault(findings, selected);
  // contract §8.9: where no score detector ran, the only fault is orphaned lineage; no word of scores
  const outOfScope = Object.keys(session.notApplicable).length > 0;
  if (session.firstFault === null)
    return (
      <span>
        {outOfScope ? `No orphaned lineage in ${session.turns.toLocaleString('en-US')} turns.` : `No fault in ${session.turns.toLocaleString('en-US')} turns.`}
      </span>
    );
  return (
    <span>
      {outOfScope ? 'The lineage first broke at' : 'Scores stopped being trustworthy at'}{' '}
      <button type="button" className="link" onClick={() => selectTurn(session.firstFault!.turn)}>
        turn {session.firstFault.turn}
      </button>{' '}
      (<code>{session.firstFault.signal}</code>)
      {next !== null && next.turn !== session.firstFault.turn && (
        <>
          {' '}
          · next fault after turn {selected}:{' '}
          <button type="button" className="link" onClick={() => selectTurn(next.turn)} data-testid="next-fault">
            turn {next.turn}
          </button>{' '}
          (<code>{next.signal}</code>)
        </>
      )}
      .
    </span>
  );
}

function useDisconnected(): boolean {
  const live = useAnalysis((s) => s.source?.kind === 'live');
  const c = useAnalysis((s) => s.connection);
  return live && isDisconnected(c);
}

export function VerdictBanner() {
  const ref = useRef<HTMLElement>(null);
  const findings = useAnalysis((s) => s.findings);
  const turn = useAnalysis((s) => s.turn);
  const session = useAnalysis(sessionOnScreen);
  const selected = useUi((s) => s.selectedTurn);
  const load = useAnalysis((s) => s.load);
  const inputErrors = useAnalysis((s) => s.summary?.inputErrorCount ?? 0);
  const disconnected = useDisconnected();
  const records = useAnalysis((s) => s.compactions?.records);
  if (session === null || session.turns === 0) {
    return (
      <section className="verdict pending" data-testid="verdict" aria-live="polite">
        {load.state === 'reading' ? 'Analysing… the verdict appears with the first turn.' : 'No turn analysed in this source.'}
      </section>
    );
  }
  if (turn === null) {
    return (
      <section className="verdict pending" data-testid="verdict">
        <div className="verdict-headline">
          <SessionHeadline />
        </div>
      </section>
    );
  }
  const h = turnHeadline(turn, session, records);
  const worstSignal = h.findings[0]?.signal;
  // the incident of the worst finding at this turn: what "Report this incident" reports
  const incident = findings === null || worstSignal === undefined ? null : incidentAt(SIGNALS.indexOf(worstSignal), turn.turn);
  const tone = disconnected ? 'offline' : h.tone;
  return (
    <section
      ref={ref}
      className={`verdict ${tone}${turn.turn !== selected ? ' stale' : ''}`}
      data-testid="verdict"
      data-action={turn.action}
      data-headline={h.kind}
      data-turn={turn.turn}
      aria-live="polite"
    >
      <div className="verdict-headline">
        <SessionHeadline />
        <span className="verdict-tools" data-no-export>
          {incident !== null && (
            <button
              type="button"
              className="btn small"
              onClick={() => void reportIncident(incident)}
              aria-label={`Report this incident (incident ${incident}: ${worstSignal})`}
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
      {disconnected && (
        <p className="verdict-notice" data-testid="verdict-disconnected">
          As of turn {session.lastTurn ?? turn.turn}, disconnected: the relay is not answering, so this is the last verdict received, not the current
          turn&apos;s.
        </p>
      )}
      {inputErrors > 0 && (
        <p className="verdict-notice" data-testid="verdict-dropped-lines">
          {droppedLinesWords(inputErrors, session.turns)}
        </p>
      )}
      <div className="verdict-main" data-testid="headline" data-kind={h.kind}>
        <span className="verdict-turn">Turn {turn.turn}</span>
        <span className={`verdict-action ${h.tone}`}>{h.label}</span>
        <span className="verdict-say">
          {disconnected && h.kind === 'prune_ok' ? "Every score was bound at this turn; the current turn's verdict is unknown until the relay answers." : h.say}
          {turn.action === 'recompute' && (
            <>
              {' '}
              <strong>{turn.recompute.length}</strong> span{turn.recompute.length === 1 ? '' : 's'} <SpanChips ids={turn.recompute} limit={14} tone="bad" />
            </>
          )}
          {h.kind === 'drop' && (
            <>
              {' '}
              <SpanChips ids={turn.drop} limit={14} tone="drop" />
            </>
          )}
        </span>
      </div>
      {turn.drop.length > 0 && h.kind !== 'drop' && (
        <div className="verdict-drop">
          <span className="verdict-action fault">DROP</span> paraphrase of a paraphrase, do not rescore: <SpanChips ids={turn.drop} limit={14} tone="drop" />
        </div>
      )}
      {h.findings.length > 0 && (
        <ul className="verdict-findings">
          {h.findings.map((f) => (
            <li key={f.signal} data-signal={f.signal}>
              <SeverityBadge severity={f.severity} /> <strong>{f.title}</strong> <code className="muted">{f.signal}</code>{' '}
              <span className="muted">— {f.todo}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
