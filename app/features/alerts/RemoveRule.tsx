// "Remove" for an alert rule asks first (issue 24: it deleted at once): "Remove? Yes / No",
// as Delete does for a session. The removal itself is the panel's (it reports refusals).
import { useState } from 'react';

export function RemoveRule({ id, onRemove }: { id: string; onRemove: (id: string) => Promise<void> }) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!confirming)
    return (
      <button type="button" className="btn small ghost" onClick={() => setConfirming(true)} aria-label={`Remove rule ${id}`}>
        Remove
      </button>
    );
  return (
    <span className="overview-confirm" role="group" aria-label={`Remove rule ${id}?`}>
      Remove?{' '}
      <button
        type="button"
        className="btn small danger"
        disabled={busy}
        data-testid="alert-remove-yes"
        onClick={() => {
          setBusy(true);
          void onRemove(id).finally(() => {
            setBusy(false);
            setConfirming(false);
          });
        }}
      >
        Yes
      </button>{' '}
      <button type="button" className="btn small ghost" onClick={() => setConfirming(false)}>
        No
      </button>
    </span>
  );
}
