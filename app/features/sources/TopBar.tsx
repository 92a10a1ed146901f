import { useRef } from 'react';
import { openFile, openLive, resumeFollow, showSession } from '../../analysis.ts';
import { useRelaySessions } from '../../queries/sessions.ts';
import { useAnalysis } from '../../stores/analysis.ts';
import { setUi, useUi } from '../../stores/ui.ts';
import { CompareBar } from '../compare/CompareBar.tsx';
import { ConnectionStatus } from './ConnectionStatus.tsx';

export const ACCEPT = '.jsonl,.json,.gz,.ndjson,application/json,application/gzip,application/x-ndjson';

export function FileButton({ className, label, testId }: { className?: string; label?: string; testId?: string }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" className={className ?? 'btn'} onClick={() => input.current?.click()}>
        {label ?? 'Open file…'}
      </button>
      <input
        ref={input}
        type="file"
        accept={ACCEPT}
        hidden
        data-testid={testId ?? 'file-input'}
        aria-label="Open a transcript file"
        onChange={(e) => {
          const f = e.target.files?.[0];
          if (f !== undefined) openFile(f);
          e.target.value = '';
        }}
      />
    </>
  );
}

export function LiveSessionPicker() {
  const q = useRelaySessions();
  const source = useAnalysis((s) => s.source);
  const current = source?.kind === 'live' ? source.sessionId : '';
  const sessions = q.data ?? [];
  const title = q.isError ? `Relay not reachable: ${(q.error as Error).message}` : `${sessions.length} live session(s) on the relay`;
  return (
    <label className="live-picker" title={title}>
      <span className="sr-only">Live session</span>
      <select
        data-testid="live-session-select"
        value={current}
        disabled={q.isError && sessions.length === 0}
        onChange={(e) => {
          if (e.target.value !== '') openLive(e.target.value);
        }}
      >
        <option value="">
          {q.isPending ? 'Live sessions…' : q.isError ? 'No relay' : sessions.length === 0 ? 'No live session yet' : 'Follow a live session…'}
        </option>
        {sessions.map((s) => (
          <option key={s.session_id} value={s.session_id}>
            {s.session_id}
            {s.title ? ` — ${s.title}` : ''} (turn {s.last_turn ?? '—'})
          </option>
        ))}
        {current !== '' && !sessions.some((s) => s.session_id === current) && <option value={current}>{current}</option>}
      </select>
    </label>
  );
}

export function TopBar() {
  const source = useAnalysis((s) => s.source);
  const summary = useAnalysis((s) => s.summary);
  const sessionId = useAnalysis((s) => s.sessionId);
  const follow = useUi((s) => s.follow);
  const user = useUi((s) => s.userThresholds);
  const scorer = useUi((st) => st.scorer);
  const custom = Object.keys(user).length;
  const latest = useAnalysis((s) => s.latestSummary);
  const shown = summary?.sessions.find((x) => x.sessionId === sessionId)?.turns ?? 0;
  const newest = latest?.sessions.find((x) => x.sessionId === sessionId)?.turns ?? 0;
  return (
    <header className="topbar">
      <div className="brand">
        <img src="/favicon.svg" alt="" width={22} height={22} />
        <span>Context Health</span>
      </div>
      <nav className="sources" aria-label="Sources">
        <FileButton />
        <LiveSessionPicker />
        {summary !== null && summary.sessions.length > 1 && (
          <label>
            <span className="sr-only">Session on screen</span>
            <select value={sessionId ?? ''} onChange={(e) => showSession(e.target.value)} data-testid="session-select">
              {summary.sessions.map((s) => (
                <option key={s.sessionId} value={s.sessionId}>
                  session {s.sessionId} ({s.turns} turns)
                </option>
              ))}
            </select>
          </label>
        )}
        {source !== null && <CompareBar />}
      </nav>
      {source?.kind === 'live' && (
        <div className="live-controls">
          <ConnectionStatus />
          <button
            type="button"
            className={`btn ${follow ? 'following' : 'paused'}`}
            data-testid="follow-toggle"
            aria-pressed={follow}
            onClick={() => (follow ? setUi({ follow: false }) : resumeFollow())}
            title="Follow the newest turn, or pause the view to inspect (F)"
          >
            {follow ? 'Pause' : `Follow live${newest > shown ? ` (+${(newest - shown).toLocaleString('en-US')} new)` : ''}`}
          </button>
        </div>
      )}
      <span className="spacer" />
      <button
        type="button"
        className="btn ghost"
        onClick={() => setUi({ settingsOpen: true })}
        title="Detector thresholds (contract §4) and the scorer (contract §7)"
      >
        Thresholds{custom > 0 ? ` (${custom} set)` : ''}
        {scorer !== 'auto' ? ` · scorer ${scorer}` : ''}
      </button>
      <button type="button" className="btn ghost" onClick={() => setUi({ helpOpen: true })} aria-label="Keyboard shortcuts (?)">
        ?
      </button>
    </header>
  );
}
