// File loading: progress (percent, MB/s) with a cancel button while reading; then the
// contract §6 load-status sentence, and the input errors listed by line.
import { useState } from 'react';
import { cancelLoad } from '../../analysis.ts';
import { loadStatusText, useAnalysis } from '../../stores/analysis.ts';
import { moreInputErrorsWords, unshownReasons } from '../../../src/report/inputErrorWords.ts';

export function LoadBar() {
  const source = useAnalysis((s) => s.source);
  const load = useAnalysis((s) => s.load);
  const summary = useAnalysis((s) => s.latestSummary);
  const error = useAnalysis((s) => s.error);
  const [showErrors, setShowErrors] = useState(false);
  if (source === null) return null;
  const p = load.progress;
  const errors = summary?.inputErrorCount ?? 0;
  return (
    <div className="loadbar">
      {source.kind !== 'live' && load.state === 'reading' && (
        <div className="progress" data-testid="load-progress" role="group" aria-label="Loading">
          <span className="progress-name">Reading {source.name}</span>
          <progress max={1} value={p?.bytesTotal ? p.bytesRead / p.bytesTotal : undefined} aria-label="Read progress" />
          <span className="progress-figures">{progressText(p)}</span>
          <span className="muted">{(summary?.sessions.reduce((n, s) => n + s.turns, 0) ?? 0).toLocaleString('en-US')} turns so far</span>
          <button type="button" className="btn small" onClick={cancelLoad}>
            Cancel
          </button>
        </div>
      )}
      {source.kind !== 'live' && load.state !== 'reading' && load.state !== 'idle' && (
        <div className={`load-status ${load.state === 'done' && errors === 0 ? 'ok' : load.state === 'done' ? 'warn' : 'bad'}`}>
          <span
            data-testid="load-status"
            data-state={load.state}
            data-turns={summary?.sessions.reduce((n, s) => n + s.turns, 0) ?? 0}
            data-errors={errors}
            data-timing={
              p
                ? `read ${Math.round(p.elapsedMs)} ms = decode ${p.decodeMs ?? '?'} ms + parse+engine ${p.engineMs ?? '?'} ms + store ${p.storeMs ?? '?'} ms + reading and messages; ${p.parseWorkers ?? 0} parsing Workers${(p.parseWorkers ?? 0) > 0 && p.parseWorkersStarted === false ? ' (not started: the scanner read the lines)' : ''}`
                : undefined
            }
          >
            {loadStatusText(source, load, summary)}
          </span>
          {p !== null && load.state === 'done' && <span className="muted"> · {progressText(p)}</span>}
        </div>
      )}
      {errors > 0 && (
        <div className="input-errors">
          <button type="button" className="link" aria-expanded={showErrors} onClick={() => setShowErrors(!showErrors)}>
            {showErrors ? 'Hide' : 'Show'} the {errors} input error{errors === 1 ? '' : 's'}
          </button>{' '}
          <span className="muted">(these {source.kind === 'live' ? 'messages' : 'lines'} were skipped; every other one was analysed)</span>
          {showErrors && (
            <ol className="error-list" data-testid="input-errors">
              {summary!.inputErrors.map((e, i) => (
                <li key={i} data-line={e.line}>
                  <strong>
                    {source.kind === 'live' ? 'message' : 'line'} {e.line}
                  </strong>
                  : {e.message}
                </li>
              ))}
              {errors > summary!.inputErrors.length && (
                <li className="muted" data-testid="input-errors-more">
                  {summary!.inputErrorsOmitted === undefined
                    ? `… and ${errors - summary!.inputErrors.length} more`
                    : moreInputErrorsWords(errors - summary!.inputErrors.length, unshownReasons([], summary!.inputErrorsOmitted))}
                </li>
              )}
            </ol>
          )}
        </div>
      )}
      {error !== null && (
        <div className="load-status bad" role="alert">
          The analysis Worker could not answer: {error}
        </div>
      )}
    </div>
  );
}

function progressText(p: { bytesRead: number; bytesTotal: number | null; elapsedMs: number } | null): string {
  if (p === null) return 'starting…';
  const mb = p.bytesRead / 1e6;
  const rate = p.elapsedMs > 0 ? mb / (p.elapsedMs / 1000) : 0;
  const pct = p.bytesTotal ? `${Math.floor((p.bytesRead / p.bytesTotal) * 100)}% · ` : '';
  return `${pct}${mb.toFixed(1)}${p.bytesTotal ? ` of ${(p.bytesTotal / 1e6).toFixed(1)}` : ''} MB · ${rate.toFixed(0)} MB/s`;
}
