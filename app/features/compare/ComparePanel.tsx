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
import { coverageSentence, fmtPoints, fmtRate, per100, runsBySignal, type Extent } from './coverage.ts';

/** A session's length and turn range from its summary, or null before it has a turn. */
function useExtent(side: 'a' | 'b'): Extent | null {
  const a = useAnalysis((s) => s.summary?.sessions.find((x) => x.sessionId === s.sessionId) ?? null);
  const b = useCompare((s) => s.summary?.sessions.find((x) => x.sessionId === s.sessionId) ?? null);
  const x = side === 'a' ? a : b;
  return x === null || x.firstTurn === null || x.lastTurn === null || x.turns === 0 ? null : { turns: x.turns, firstTurn: x.firstTurn, lastTurn: x.lastTurn };
}

export function ComparePanel() {
  const partner = useCompare((s) => s.partner);
  const comparison = useCompare((s) => s.comparison);
  const bSession = useCompare((s) => s.sessionId);
  const aSession = useAnalysis((s) => s.sessionId);
  const load = useCompare((s) => s.load);
  const requested = useCompare((s) => s.requested);
  const a = useExtent('a');
  const b = useExtent('b');
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
      {comparison !== null && a !== null && b !== null ? (
        <Differences c={comparison} a={a} b={b} />
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

function Differences({ c, a, b }: { c: Comparison; a: Extent; b: Extent }) {
  const d = c.firstDivergence;
  const coverage = coverageSentence(c.align, a, b);
  const runs = runsBySignal(c);
  return (
    <div className="compare-body">
      <p className="compare-coverage" data-testid="compare-coverage">
        {coverage.sentence} Rates are per 100 of each session&apos;s own turns (A {a.turns.toLocaleString('en-US')}, B {b.turns.toLocaleString('en-US')}), so
        runs of different lengths compare fairly.
      </p>
      <div className="compare-table-scroll">
        {c.signals.length === 0 ? (
          <p className="empty ok">No signal fired in either session.</p>
        ) : (
          <table data-testid="compare-signals">
            <thead>
              <tr>
                <th scope="col">signal</th>
                <th scope="col" title="turns on which the signal fired, and their share of A's turns">
                  A turns (% of turns)
                </th>
                <th scope="col" title="turns on which the signal fired, and their share of B's turns">
                  B turns (% of turns)
                </th>
                <th scope="col" title="B's share of turns minus A's, in percentage points: the fair difference">
                  B − A (points)
                </th>
                <th scope="col" title="incidents (runs of consecutive turns) per 100 turns of each session">
                  runs / 100 turns A · B
                </th>
                <th scope="col" title="B's turns minus A's, raw (diff --json's difference)">
                  raw B − A
                </th>
              </tr>
            </thead>
            <tbody>
              {c.signals.map((s) => {
                const ra = per100(s.a, a.turns);
                const rb = per100(s.b, b.turns);
                const points = rb - ra;
                return (
                  <tr
                    key={s.signal}
                    data-testid="compare-signal"
                    data-signal={s.signal}
                    data-a={s.a}
                    data-b={s.b}
                    data-difference={s.difference}
                    data-rate-a={ra.toFixed(2)}
                    data-rate-b={rb.toFixed(2)}
                  >
                    <td>
                      <SeverityBadge severity={s.severity} /> <code>{s.signal}</code>
                    </td>
                    <td>
                      {s.a.toLocaleString('en-US')} <span className="muted">({fmtRate(ra)}%)</span>
                    </td>
                    <td>
                      {s.b.toLocaleString('en-US')} <span className="muted">({fmtRate(rb)}%)</span>
                    </td>
                    <td className={points >= 0.05 ? 'more' : points <= -0.05 ? 'fewer' : ''} data-testid="compare-points">
                      {fmtPoints(points)}
                    </td>
                    <td>
                      {fmtRate(per100(runs.a.get(s.signal) ?? 0, a.turns))} · {fmtRate(per100(runs.b.get(s.signal) ?? 0, b.turns))}
                    </td>
                    <td className="muted">{s.difference > 0 ? `+${s.difference}` : s.difference === 0 ? '0' : `−${-s.difference}`}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </div>
      <div>
        <p>
          {d === null ? (
            <span data-testid="first-divergence-none">
              The verdicts are the same on every compared turn ({coverage.compared}
              {coverage.sentence.includes('have no') ? '; nothing is said of the turns with no partner' : ''}).
            </span>
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
