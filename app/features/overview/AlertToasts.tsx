// Alert firings as they arrive on the overview channel: a toast each (text only: span
// and session text is untrusted), with the link to the session at that turn; browser
// notifications too once the person allowed them (overviewStore.ts). The channel is open
// while the home page's overview is: a toast shown there stays when a session is opened.
import { useEffect } from 'react';
import { dismissToast, useOverview } from './overviewStore.ts';

const SHOW_MS = 12_000;

export function AlertToasts() {
  const toasts = useOverview((s) => s.toasts);
  useEffect(() => {
    if (toasts.length === 0) return;
    const oldest = toasts[0]!;
    const t = setTimeout(() => dismissToast(oldest.id), SHOW_MS);
    return () => clearTimeout(t);
  }, [toasts]);
  const canAsk = typeof Notification !== 'undefined' && Notification.permission === 'default';
  if (toasts.length === 0) return null;
  return (
    <div className="toasts" role="status" aria-live="polite" data-testid="alert-toasts">
      {toasts.map((a) => (
        <div key={a.id} className={`toast toast-${a.severity}`} data-testid="alert-toast">
          <strong>{a.title ?? a.session_id}</strong>
          <span>
            {a.what}, turn {a.turn}
          </span>
          <span className="toast-actions">
            <a href={new URL(a.link).hash}>Open turn {a.turn}</a>
            {canAsk && (
              <button type="button" className="link" onClick={() => void Notification.requestPermission()}>
                Notify me
              </button>
            )}
            <button type="button" className="link" onClick={() => dismissToast(a.id)} aria-label="Dismiss">
              ×
            </button>
          </span>
        </div>
      ))}
    </div>
  );
}
