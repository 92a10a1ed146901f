import { useAnalysis } from '../../stores/analysis.ts';
import { useUi } from '../../stores/ui.ts';

/** contract §6 connection-status: the live WebSocket's state in plain words. */
export function ConnectionStatus() {
  const c = useAnalysis((s) => s.connection);
  const follow = useUi((s) => s.follow);
  let text = 'Connecting…';
  let tone = 'pending';
  let state = 'connecting';
  if (c !== null) {
    state = c.state;
    switch (c.state) {
      case 'connecting':
        text = c.attempt > 1 ? `Connecting (attempt ${c.attempt})…` : 'Connecting…';
        break;
      case 'catching-up':
        text = `Catching up: ${c.received.toLocaleString('en-US')} of ${Math.max(0, c.lastSeq - c.since).toLocaleString('en-US')} stored messages`;
        break;
      case 'live':
        text = follow ? 'Live' : 'Live (view paused)';
        tone = 'ok';
        break;
      case 'reconnecting':
        text = `Disconnected: ${c.reason}. Reconnecting in ${(c.inMs / 1000).toFixed(1)} s, resuming after message ${c.lastSeq}`;
        tone = 'bad';
        break;
      case 'closed':
        text = `Closed: ${c.reason}`;
        tone = 'bad';
        break;
      case 'failed':
        text = `Failed: ${c.reason}`;
        tone = 'bad';
        break;
    }
  }
  return (
    <span className={`conn conn-${tone}`} data-testid="connection-status" data-state={state} role="status" aria-live="polite">
      <span className="conn-dot" aria-hidden="true" />
      {text}
    </span>
  );
}
