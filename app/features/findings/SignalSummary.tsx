// contract §6 signal-count: for the session on screen, one element per signal that fired,
// with the number of turns on which it fired. Click one to filter the findings. Below, greyed,
// the signals that do not apply to the session (contract §8.1) and why.
import { SEVERITY, SIGNALS, type Signal } from '../../../src/worker/client.ts';
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
        <p className="empty ok">
          {Object.keys(s.notApplicable).length > 0
            ? 'No signal fired: no compaction, no orphaned lineage, no pressure on the window.'
            : 'No signal fired: scores are bound to their texts and the loop looks healthy.'}
        </p>
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
      <NotApplicable reasons={s.notApplicable} />
    </section>
  );
}

/**
 * contract §8.1: the detectors the session's scope leaves out, greyed, grouped by their
 * reason (the seeds' own words), so an empty list above is not read as "all clear" for them.
 */
function NotApplicable({ reasons }: { reasons: Partial<Record<Signal, string>> }) {
  const byReason = new Map<string, Signal[]>();
  for (const sig of SIGNALS) {
    const reason = reasons[sig];
    if (reason !== undefined) byReason.set(reason, [...(byReason.get(reason) ?? []), sig]);
  }
  if (byReason.size === 0) return null;
  return (
    <div className="not-applicable" data-testid="not-applicable">
      <h3>Not applicable to this session</h3>
      {[...byReason].map(([reason, signals]) => (
        <div key={reason} className="na-group">
          <ul className="signal-list">
            {signals.map((sig) => (
              <li key={sig}>
                <span className="signal-na" data-testid="signal-not-applicable" data-signal={sig} data-reason={reason} aria-disabled="true" title={reason}>
                  {sig}
                </span>
              </li>
            ))}
          </ul>
          <p className="na-reason">{reason}</p>
        </div>
      ))}
    </div>
  );
}
