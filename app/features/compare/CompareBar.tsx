// "Compare with…" in the session bar: B is a sample, a dropped or picked file, a live
// session of the relay, or another session of the source on screen. Once B is open: its
// name, its session, the alignment, and Close.
import { useRef, type DragEvent } from 'react';
import { useRelaySessions } from '../../queries/sessions.ts';
import { useAnalysis } from '../../stores/analysis.ts';
import { closeCompare, openPartner, setAlign, showPartnerSession } from './compare.ts';
import { partnerLabel, useCompare } from './compareStore.ts';
import './compare.css';

// The same files as the source picker's (TopBar's ACCEPT, Welcome's samples); not imported
// from there, because the top bar imports this bar.
const ACCEPT = '.jsonl,.json,.gz,.ndjson,application/json,application/gzip,application/x-ndjson';
const SAMPLES = [
  'all-faults.jsonl',
  'stale-scores.jsonl',
  'collapse.jsonl',
  'drift-and-orphans.jsonl',
  'healthy.jsonl',
  'with-bad-lines.jsonl',
  'two-sessions-interleaved.jsonl',
];

/**
 * The bar is also a drop zone: a file dropped on it opens as B (dropped anywhere else it
 * replaces A, as always). Its drop handler runs before the page's, which then leaves it.
 */
export function CompareBar() {
  const partner = useCompare((s) => s.partner);
  const onDrop = (e: DragEvent<HTMLSpanElement>): void => {
    const file = e.dataTransfer.files[0];
    if (file === undefined) return;
    e.preventDefault();
    openPartner({ kind: 'file', name: file.name, file });
  };
  return (
    <span
      className="compare-drop"
      data-testid="compare-drop"
      title="Drop a transcript here to compare with it"
      onDragOver={(e) => e.preventDefault()}
      onDrop={onDrop}
    >
      {partner === null ? <ComparePicker /> : <PartnerControls />}
    </span>
  );
}

function ComparePicker() {
  const q = useRelaySessions();
  const summary = useAnalysis((s) => s.summary);
  const aSession = useAnalysis((s) => s.sessionId);
  const input = useRef<HTMLInputElement>(null);
  const others = summary?.sessions.filter((s) => s.sessionId !== aSession) ?? [];
  const live = q.data ?? [];
  return (
    <span className="compare-picker">
      <label>
        <span className="sr-only">Compare with another session</span>
        <select
          data-testid="compare-pick"
          value=""
          onChange={(e) => {
            const [kind, ...rest] = e.target.value.split(':');
            const name = rest.join(':');
            if (kind === 'sample') openPartner({ kind: 'sample', name });
            else if (kind === 'live') openPartner({ kind: 'live', sessionId: name });
            else if (kind === 'same') openPartner({ kind: 'same' }, name);
            else if (kind === 'file') input.current?.click();
          }}
        >
          <option value="">Compare with…</option>
          <option value="file:">a file…</option>
          {others.length > 0 && (
            <optgroup label="Another session of this source">
              {others.map((s) => (
                <option key={s.sessionId} value={`same:${s.sessionId}`}>
                  session {s.sessionId} ({s.turns} turns)
                </option>
              ))}
            </optgroup>
          )}
          {live.length > 0 && (
            <optgroup label="Live sessions">
              {live.map((s) => (
                <option key={s.session_id} value={`live:${s.session_id}`}>
                  {s.session_id}
                  {s.title ? ` — ${s.title}` : ''}
                </option>
              ))}
            </optgroup>
          )}
          <optgroup label="Samples">
            {SAMPLES.map((name) => (
              <option key={name} value={`sample:${name}`}>
                {name}
              </option>
            ))}
          </optgroup>
        </select>
      </label>
      <input
        ref={input}
        type="file"
        accept={ACCEPT}
        hidden
        data-testid="compare-file-input"
        aria-label="Open a transcript to compare with"
        onChange={(e) => {
          const f = e.target.files?.[0];
          if (f !== undefined) openPartner({ kind: 'file', name: f.name, file: f });
          e.target.value = '';
        }}
      />
    </span>
  );
}

function PartnerControls() {
  const partner = useCompare((s) => s.partner)!;
  const sessionId = useCompare((s) => s.sessionId);
  const summary = useCompare((s) => s.summary);
  const align = useCompare((s) => s.align);
  const load = useCompare((s) => s.load);
  const connection = useCompare((s) => s.connection);
  const turns = summary?.sessions.find((s) => s.sessionId === sessionId)?.turns ?? 0;
  const state = partner.kind === 'live' ? (connection?.state ?? 'connecting') : load;
  return (
    <span className="compare-controls" data-testid="compare-status" data-state={state} data-turns={turns}>
      <span className="compare-b">
        <span className="compare-key b" aria-hidden="true" /> B: {partnerLabel(partner, partner.kind === 'same' ? sessionId : null)} ·{' '}
        {turns.toLocaleString('en-US')} turns
        {partner.kind === 'live' ? ` (${state})` : load === 'reading' ? ' (loading…)' : ''}
      </span>
      {summary !== null && summary.sessions.length > 1 && partner.kind !== 'same' && (
        <label>
          <span className="sr-only">Session of B</span>
          <select value={sessionId ?? ''} onChange={(e) => showPartnerSession(e.target.value)} data-testid="compare-session-select">
            {summary.sessions.map((s) => (
              <option key={s.sessionId} value={s.sessionId}>
                session {s.sessionId}
              </option>
            ))}
          </select>
        </label>
      )}
      <label>
        <span className="sr-only">Align A and B</span>
        <select data-testid="compare-align" value={align} onChange={(e) => setAlign(e.target.value === 'relative' ? 'relative' : 'turn')}>
          <option value="turn">by turn number</option>
          <option value="relative">by position (0–100%)</option>
        </select>
      </label>
      <button type="button" className="btn ghost" onClick={closeCompare} data-testid="compare-close">
        Close compare
      </button>
    </span>
  );
}
