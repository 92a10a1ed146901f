// What differs between A and B (contract §6.4, the rules of `diff`): turns each signal
// fired on in A and in B and the difference, the first turn whose verdicts differ (a
// button that moves the cursor there), and the incidents only in A, only in B and in both.
import type { Comparison, Incident } from '../../../src/worker/client.ts';
import { selectTurn } from '../../analysis.ts';
import { SeverityBadge } from '../../components/bits.tsx';
import { SEVERITY } from '../../../src/worker/client.ts';
import { useAnalysis } from '../../stores/analysis.ts';
import { selectPair } from './compare.ts';
import { partnerLabel, useCompare } from './compareStore.ts';

export function ComparePanel() {
  const partner = useCompare((s) => s.partner);
  const comparison = useCompare((s) => s.comparison);
  const bSession = useCompare((s) => s.sessionId);
  const aSession = useAnalysis((s) => s.sessionId);
  const load = useCompare((s) => s.load);
  const requested = useCompare((s) => s.requested);
  if (partner === null) return null;
  return (
    <section className="panel compare-panel" aria-label="What differs between A and B" data-testid="compare-panel" data-ready={comparison !== null}>
      <header className="panel-head">
        <h2>
          A vs B{' '}
          <span className="muted">
            <span className="compare-key" aria-hidden="true" /> A session {aSession ?? '—'} · <span className="compare-key b" aria-hidden="true" /> B{' '}
            {partnerLabel(partner, bSession)}
          </span>
        </h2>
      </header>
      {comparison !== null ? (
        <Differences c={comparison} />
      ) : load === 'done' && bSession === null ? (
        <p className="empty" role="alert">
          B has no session{requested === null ? ' with a turn' : ` ${JSON.stringify(requested)}`}: nothing to compare.
        </p>
      ) : (
        <p className="muted">Comparing… (both sessions are analysed, each in its own worker)</p>
      )}
    </section>
  );
}

function Differences({ c }: { c: Comparison }) {
  const d = c.firstDivergence;
  return (
    <div className="compare-body">
      <div>
        {c.signals.length === 0 ? (
          <p className="empty ok">No signal fired in either session.</p>
        ) : (
          <table data-testid="compare-signals">
            <thead>
              <tr>
                <th scope="col">signal</th>
                <th scope="col">A</th>
                <th scope="col">B</th>
                <th scope="col">B − A</th>
              </tr>
            </thead>
            <tbody>
              {c.signals.map((s) => (
                <tr key={s.signal} data-testid="compare-signal" data-signal={s.signal} data-a={s.a} data-b={s.b} data-difference={s.difference}>
                  <td>
                    <SeverityBadge severity={s.severity} /> <code>{s.signal}</code>
                  </td>
                  <td>{s.a.toLocaleString('en-US')}</td>
                  <td>{s.b.toLocaleString('en-US')}</td>
                  <td className={s.difference > 0 ? 'more' : s.difference < 0 ? 'fewer' : ''}>
                    {s.difference > 0 ? `+${s.difference}` : s.difference === 0 ? '0' : `−${-s.difference}`}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      <div>
        <p>
          {d === null ? (
            <span data-testid="first-divergence-none">The verdicts are the same on every compared turn.</span>
          ) : (
            <>
              First divergence:{' '}
              <button
                type="button"
                className="link"
                data-testid="first-divergence"
                data-a-turn={d.a.turn}
                data-b-turn={d.b.turn}
                onClick={() => selectPair(d.a.turn, d.b.turn)}
              >
                {c.align === 'turn' ? `turn ${d.a.turn}` : `A turn ${d.a.turn} / B turn ${d.b.turn}`}
              </button>
              : A{' '}
              <code>
                {d.a.action}
                {d.a.drops ? ' + drop' : ''}
              </code>
              , B{' '}
              <code>
                {d.b.action}
                {d.b.drops ? ' + drop' : ''}
              </code>
              {d.cause !== null && (
                <>
                  , because of <code>{d.cause}</code>
                </>
              )}
            </>
          )}
        </p>
        <Incidents title="Only in B" testId="compare-only-b" list={c.onlyB} side="b" />
        <Incidents title="Only in A" testId="compare-only-a" list={c.onlyA} side="a" />
        <Incidents title="In both" testId="compare-both" list={c.both.map((p) => p.a)} side="a" pairs={c.both.map((p) => p.b)} />
      </div>
    </div>
  );
}

function turns(x: Incident): string {
  return x.firstTurn === x.lastTurn ? `turn ${x.firstTurn}` : `turns ${x.firstTurn}–${x.lastTurn}`;
}

/** A list of incidents; A's turns are the cursor's, so an incident of A is a button to its first turn. */
function Incidents({ title, testId, list, side, pairs }: { title: string; testId: string; list: Incident[]; side: 'a' | 'b'; pairs?: Incident[] }) {
  return (
    <>
      <h3>
        {title} ({list.length})
      </h3>
      <ul data-testid={testId}>
        {list.map((x, k) => (
          <li key={`${x.signal}:${x.first}:${k}`} data-signal={x.signal} data-first-turn={x.firstTurn} data-last-turn={x.lastTurn}>
            <SeverityBadge severity={SEVERITY[x.signal]} /> <code>{x.signal}</code>{' '}
            {side === 'a' ? (
              <button type="button" className="link" onClick={() => selectTurn(x.firstTurn)}>
                {turns(x)}
              </button>
            ) : (
              <span>B {turns(x)}</span>
            )}
            {pairs !== undefined && <span className="muted"> · B {turns(pairs[k]!)}</span>}
          </li>
        ))}
      </ul>
    </>
  );
}
