// Deleting a session from the overview (DELETE /api/sessions/<id>, a write: the relay
// token is sent when one was typed). Two steps, so a stray click deletes nothing: "Delete"
// asks "Delete? Yes / No" in the row. The row goes when the overview channel reports the
// session in `removed` (docs/relay-protocol.md "Overview"), not before: what the relay
// holds is what the table shows. Clicks here do not open the session.
import { useState, type MouseEvent } from 'react';
import { deleteSession } from '../alerts/relayWrites.ts';

export function DeleteSession({ id, onResult }: { id: string; onResult: (error: string | null) => void }) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const stop = (e: MouseEvent): void => e.stopPropagation();
  const confirm = async (e: MouseEvent): Promise<void> => {
    e.stopPropagation();
    setBusy(true);
    try {
      await deleteSession(id);
      onResult(null);
    } catch (err) {
      onResult(`Could not delete ${id}: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };
  if (!confirming) {
    return (
      <button
        type="button"
        className="link"
        onClick={(e) => {
          stop(e);
          setConfirming(true);
        }}
        onKeyDown={(e) => e.stopPropagation()}
        aria-label={`Delete session ${id}`}
        data-testid="overview-delete"
      >
        Delete
      </button>
    );
  }
  return (
    <span className="overview-confirm" onClick={stop} onKeyDown={(e) => e.stopPropagation()}>
      Delete?{' '}
      <button type="button" className="link danger" disabled={busy} onClick={(e) => void confirm(e)} data-testid="overview-delete-yes">
        Yes
      </button>{' '}
      <button
        type="button"
        className="link"
        onClick={(e) => {
          stop(e);
          setConfirming(false);
        }}
        data-testid="overview-delete-no"
      >
        No
      </button>
    </span>
  );
}
