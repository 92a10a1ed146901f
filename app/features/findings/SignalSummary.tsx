// contract §6 signal-count: for the session on screen, one element per signal that fired,
// with the number of turns on which it fired. Click one to filter the findings.
import { SEVERITY, SIGNALS } from '../../../src/worker/client.ts';
import { SIGNAL_INFO } from '../../signalInfo.ts';
import { sessionOnScreen, useAnalysis } from '../../stores/analysis.ts';
import { setUi, useUi } from '../../stores/ui.ts';

export function SignalSummary() {
  const s = useAnalysis(sessionOnScreen);
  const filter = useUi((u) => u.signalFilter);
  if (s === null) return null;
  const fired = SIGNALS.filter((sig) => (s.signalCounts[sig] ?? 0) > 0);
  return (
    <section className="panel summary" aria-label="Signals that fired">
      <header className="panel-head">
        <h2>
          Signals{' '}
          <span className="muted" data-testid="session-turns" data-turns={s.turns}>
            turns on which each fired, of {s.turns.toLocaleString('en-US')}
          </span>
        </h2>
      </header>
      {fired.length === 0 ? (
        <p className="empty ok">No signal fired: scores are bound to their texts and the loop looks healthy.</p>
      ) : (
        <ul className="signal-list">
          {fired.map((sig) => {
            const count = s.signalCounts[sig]!;
            return (
              <li key={sig}>
                <button
                  type="button"
                  className={`signal-count sev-${SEVERITY[sig]}${filter === sig ? ' active' : ''}`}
                  data-testid="signal-count"
                  data-signal={sig}
                  data-count={count}
                  aria-pressed={filter === sig}
                  onClick={() => setUi({ signalFilter: filter === sig ? null : sig })}
                  title={`${SIGNAL_INFO[sig].means} What to do: ${SIGNAL_INFO[sig].todo}`}
                >
                  <span className="signal-name">{sig}</span>
                  <span className="signal-n">{count.toLocaleString('en-US')}</span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
