// What only paper shows (docs/dashboard.md "Print"): a header line naming what is printed
// (source, session, turn, window, thresholds set, time), and the incidents as a short table
// (the on-screen list is virtualised: it holds only the rows scrolled into view): the
// cursor's incident first, then by severity and length (printOrder.ts).
import { SEVERITY, SIGNALS, type FindingsIndex, type Severity, type Signal } from '../../../src/worker/client.ts';
import { useAnalysis } from '../../stores/analysis.ts';
import { useUi } from '../../stores/ui.ts';
import { printRows, rowTurns } from './printOrder.ts';
import './print.css';

/** Incident rows a printed page has room for, beside the banner and the four charts. */
export const PRINT_INCIDENTS = 8;

export function PrintHeader() {
  const source = useAnalysis((s) => s.source);
  const sessionId = useAnalysis((s) => s.sessionId);
  const turn = useUi((s) => s.selectedTurn);
  const zoom = useUi((s) => s.zoom);
  const user = useUi((s) => s.userThresholds);
  if (source === null) return null;
  const name =
    source.kind === 'live'
      ? `live session ${source.sessionId}`
      : `${source.name}${source.kind === 'file' && source.sha256 ? ` (sha256 ${source.sha256.slice(0, 12)})` : ''}`;
  const set = Object.entries(user).map(([k, v]) => `${k}=${v}`);
  return (
    <header className="print-only print-header" data-testid="print-header">
      <strong>Context Health</strong> · {name}
      {sessionId !== null && source.kind !== 'live' ? ` · session ${sessionId}` : ''}
      {turn !== null ? ` · turn ${turn}` : ''}
      {zoom !== null ? ` · turns ${zoom.from}–${zoom.to}` : ' · whole session'}
      {set.length > 0 ? ` · thresholds ${set.join(', ')}` : ''} · printed {new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC
    </header>
  );
}

/** The incidents the findings list's filters let through, by first turn (as the list shows them). */
export function printedIncidents(ix: FindingsIndex, severities: Readonly<Record<Severity, boolean>>, signal: Signal | null): number[] {
  const out: number[] = [];
  for (let i = 0; i < ix.incidentSignal.length; i++) {
    const sig = SIGNALS[ix.incidentSignal[i]!]!;
    if (severities[SEVERITY[sig]] && (signal === null || sig === signal)) out.push(i);
  }
  return out;
}

export function PrintIncidents() {
  const ix = useAnalysis((s) => s.findings);
  const severities = useUi((s) => s.severities);
  const filter = useUi((s) => s.signalFilter);
  const cursor = useUi((s) => s.selectedTurn);
  if (ix === null) return null;
  const all = printedIncidents(ix, severities, filter);
  const n = all.length;
  const ordered = printRows(ix, all, cursor);
  const rows = ordered.slice(0, PRINT_INCIDENTS);
  const rest = ordered.slice(PRINT_INCIDENTS);
  let findings = 0;
  for (const inc of all) findings += ix.incidentCount[inc]!;
  const restIncidents = rest.reduce((k, r) => k + r.runs, 0);
  const restFindings = rest.reduce((k, r) => k + r.findings, 0);
  return (
    <section className="print-only print-incidents" data-testid="print-incidents" aria-label="Incidents">
      <h2>
        Incidents{' '}
        <span className="muted">
          {`${findings.toLocaleString('en-US')} findings in ${n.toLocaleString('en-US')} incidents`}
          {filter !== null || !severities.fault || !severities.warning || !severities.info ? ' (the findings filters applied)' : ''}
          {' · at the cursor first, then by severity and length'}
        </span>
      </h2>
      {n === 0 ? (
        <p className="empty ok">No incident.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>turns</th>
              <th>signal</th>
              <th>severity</th>
              <th>findings</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={`${r.signal}-${r.from}-${r.runs}`} data-signal={r.signal} data-from={r.from} data-to={r.to} data-cursor={r.atCursor}>
                <td>
                  {rowTurns(r)}
                  {r.atCursor ? ' (cursor)' : ''}
                </td>
                <td>{r.signal}</td>
                <td className={`sev-${r.severity}`}>{r.severity}</td>
                <td>{r.findings}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {rest.length > 0 && (
        <p className="muted">
          …and {restIncidents.toLocaleString('en-US')} more incident{restIncidents === 1 ? '' : 's'} ({restFindings.toLocaleString('en-US')} findings), listed
          in the dashboard.
        </p>
      )}
    </section>
  );
}
