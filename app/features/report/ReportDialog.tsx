// The incident report's dialog: progress, then "Download .zip" (already downloaded once) and
// "Copy Markdown", with the Markdown shown as text (never rendered: span texts are input).
import { useState } from 'react';
import { download } from '../../components/savePng.ts';
import { useReport } from './reportStore.ts';

export function ReportDialog() {
  const r = useReport();
  const [copied, setCopied] = useState<string | null>(null);
  if (!r.open) return null;
  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(r.markdown ?? '');
      setCopied('Markdown copied');
    } catch (e) {
      setCopied(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <section className="report-dialog" role="dialog" aria-label="Incident report" data-testid="report-dialog" data-state={r.state}>
      <header>
        <strong>{r.subject} report</strong>
        <button type="button" className="btn small ghost" onClick={() => useReport.setState({ open: false })} aria-label="Close the report">
          Close
        </button>
      </header>
      {r.state === 'building' && <p>Building the report: zooming the charts to the incident and exporting them…</p>}
      {r.state === 'failed' && <p className="error">The report could not be built: {r.error}</p>}
      {r.state === 'ready' && (
        <>
          <p>
            <button type="button" className="btn small" onClick={() => r.zip && r.fileName && download(r.zip, r.fileName, 'application/zip')}>
              Download .zip
            </button>{' '}
            <button type="button" className="btn small" onClick={() => void copy()}>
              Copy Markdown
            </button>{' '}
            {copied !== null && <span role="status">{copied}</span>}
          </p>
          <pre className="report-markdown" data-testid="report-markdown">
            {r.markdown}
          </pre>
        </>
      )}
    </section>
  );
}
