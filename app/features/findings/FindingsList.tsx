// Every finding of the session, grouped into incidents (runs of consecutive turns on which
// one signal fired), virtualised. Each finding row carries contract §6 test hooks
// data-signal / data-turn / data-severity.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useMemo, useRef, type CSSProperties } from 'react';
import { ROW_INCIDENT, SEVERITY, SIGNALS, type FindingDetail, type FindingsIndex, type Severity, type Signal } from '../../../src/worker/client.ts';
import { selectSpan, selectTurn } from '../../analysis.ts';
import { SeverityBadge } from '../../components/bits.tsx';
import { SIGNAL_INFO } from '../../signalInfo.ts';
import { sessionOnScreen, useAnalysis } from '../../stores/analysis.ts';
import { setUi, useUi } from '../../stores/ui.ts';
import { useFindingDetails } from './detailsCache.ts';
import { reportIncident } from '../report/reportIncident.ts';
import { countBySeverity, firstRowAtTurn, incidentLabel, namedMessage, visibleRows } from './rows.ts';
import { shortLabel } from '../turn/spanNames.ts';

// two lines: the signal's name in full, then its title and turns (issue 24: names were cut off)
const INCIDENT_H = 44;
const FINDING_H = 30;

export function FindingsList() {
  const ix = useAnalysis((s) => s.findings);
  // the signals that fired, as a string: a new summary with the same signals does not re-render the list
  const firedKey = useAnalysis((s) => {
    const counts = sessionOnScreen(s)?.signalCounts ?? {};
    return SIGNALS.filter((sig) => (counts[sig] ?? 0) > 0).join(',');
  });
  const live = useAnalysis((s) => s.source?.kind === 'live');
  const follow = useUi((s) => s.follow);
  const following = live && follow;
  const severities = useUi((s) => s.severities);
  const signal = useUi((s) => s.signalFilter);
  const collapsed = useUi((s) => s.collapsed);
  const selectedTurn = useUi((s) => s.selectedTurn);
  const rows = useMemo(() => (ix === null ? new Int32Array(0) : visibleRows(ix, { severities, signal, collapsed })), [ix, severities, signal, collapsed]);
  const parent = useRef<HTMLDivElement>(null);
  const estimateSize = useCallback((k: number) => (ix !== null && ix.rowKind[rows[k]!] === ROW_INCIDENT ? INCIDENT_H : FINDING_H), [ix, rows]);
  // TanStack Virtual re-renders through its own subscription; the compiler need not memoise this component
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => parent.current,
    // a stable function: a new one makes the virtualiser re-measure every row (100,000s)
    estimateSize,
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const findingIdx =
    ix === null
      ? []
      : items
          .map((it) => rows[it.index]!)
          .filter((r) => ix.rowKind[r] !== ROW_INCIDENT)
          .map((r) => ix.rowRef[r]!);
  const details = useFindingDetails(findingIdx);

  // keep the selected turn's findings in view when the cursor moves (keyboard stepping);
  // not while following a live session: the list would jump under the reader every second
  useEffect(() => {
    if (ix === null || selectedTurn === null || following) return;
    const k = firstRowAtTurn(ix, rows, selectedTurn);
    if (k >= 0) virtualizer.scrollToIndex(k, { align: 'auto' });
  }, [selectedTurn, ix, rows, virtualizer, following]);

  const fired = firedKey === '' ? [] : (firedKey.split(',') as Signal[]);

  return (
    <section className="panel findings" aria-label="Findings">
      <header className="panel-head">
        <h2>
          Findings{' '}
          <span className="muted">
            {ix === null ? '' : `${ix.findings.toLocaleString('en-US')} in ${ix.incidentSignal.length.toLocaleString('en-US')} incidents`}
          </span>
        </h2>
        <FindingsFilters ix={ix} fired={fired} />
      </header>
      <div className="findings-scroll" ref={parent} data-testid="findings-list" data-rows={rows.length}>
        {ix !== null && rows.length === 0 && (
          <p className="empty">{ix.findings === 0 ? 'No findings: every turn so far looks healthy.' : 'No finding matches these filters.'}</p>
        )}
        {ix === null && <p className="empty">Findings appear here as turns are analysed.</p>}
        {ix !== null && (
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {items.map((it) => {
              const r = rows[it.index]!;
              const style = { position: 'absolute' as const, top: 0, left: 0, right: 0, height: it.size, transform: `translateY(${it.start}px)` };
              if (ix.rowKind[r] === ROW_INCIDENT) return <IncidentRow key={`i${ix.rowRef[r]!}`} ix={ix} k={ix.rowRef[r]!} style={style} />;
              const fi = ix.rowRef[r]!;
              return <FindingRow key={`f${fi}`} sig={SIGNALS[ix.rowSignal[r]!]!} turn={ix.rowTurn[r]!} d={details.get(fi)} style={style} />;
            })}
          </div>
        )}
      </div>
    </section>
  );
}

type RowStyle = CSSProperties;

function FindingsFilters({ ix, fired }: { ix: FindingsIndex | null; fired: readonly Signal[] }) {
  const severities = useUi((s) => s.severities);
  const signal = useUi((s) => s.signalFilter);
  const collapsed = useUi((s) => s.collapsed);
  const counts = useMemo(() => countBySeverity(ix), [ix]);
  const allCollapsed = ix !== null && collapsed.size >= ix.incidentSignal.length && ix.incidentSignal.length > 0;
  return (
    <div className="filters" role="group" aria-label="Filter findings">
      {(['fault', 'warning', 'info'] as Severity[]).map((sev) => (
        <label key={sev} className={`toggle sev-${sev}`}>
          <input type="checkbox" checked={severities[sev]} onChange={(e) => setUi({ severities: { ...severities, [sev]: e.target.checked } })} />
          {sev} <span className="muted">{counts[sev]}</span>
        </label>
      ))}
      <select aria-label="Signal" value={signal ?? ''} onChange={(e) => setUi({ signalFilter: e.target.value === '' ? null : (e.target.value as Signal) })}>
        <option value="">all signals</option>
        {fired.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </select>
      <button
        type="button"
        className="btn small ghost"
        onClick={() => setUi({ collapsed: allCollapsed || ix === null ? new Set() : new Set(Array.from({ length: ix.incidentSignal.length }, (_, k) => k)) })}
        disabled={ix === null || ix.incidentSignal.length === 0}
      >
        {allCollapsed ? 'Expand all' : 'Collapse all'}
      </button>
    </div>
  );
}

/** An incident's header row: collapse, its signal and turns (a click selects its first turn), and "Report". */
function IncidentRow({ ix, k, style }: { ix: FindingsIndex; k: number; style: RowStyle }) {
  const collapsed = useUi((s) => s.collapsed);
  const inc = incidentLabel(ix, k);
  const isCollapsed = collapsed.has(k);
  return (
    <div className={`incident-row sev-${SEVERITY[inc.signal]}`} style={style}>
      <button
        type="button"
        className="incident-toggle"
        aria-expanded={!isCollapsed}
        aria-label={`${isCollapsed ? 'Expand' : 'Collapse'} ${inc.signal} turns ${inc.from} to ${inc.to}`}
        onClick={() => {
          const next = new Set(collapsed);
          if (isCollapsed) next.delete(k);
          else next.add(k);
          setUi({ collapsed: next });
        }}
      >
        {isCollapsed ? '▸' : '▾'}
      </button>
      <button
        type="button"
        className="incident-main"
        onClick={() => selectTurn(inc.from)}
        title={`${SIGNAL_INFO[inc.signal].title}: ${SIGNAL_INFO[inc.signal].means}`}
      >
        <SeverityBadge severity={SEVERITY[inc.signal]} />
        <span className="incident-title">{SIGNAL_INFO[inc.signal].title}</span>
        <code className="muted">{inc.signal}</code>
        <span className="incident-turns">
          {inc.from === inc.to ? `turn ${inc.from}` : `turns ${inc.from}–${inc.to}`} · {inc.count} turn{inc.count === 1 ? '' : 's'}
        </span>
      </button>
      <button
        type="button"
        className="btn small ghost incident-report"
        onClick={() => void reportIncident(k + 1)}
        aria-label={`Report incident ${k + 1}: ${inc.signal} ${inc.from === inc.to ? `turn ${inc.from}` : `turns ${inc.from} to ${inc.to}`}`}
        title="Report this incident: Markdown + stamped charts as a .zip"
      >
        Report
      </button>
    </div>
  );
}

/** One finding: its turn, severity and message (a click selects the turn and the first span it names). */
function FindingRow({ sig, turn, d, style }: { sig: Signal; turn: number; d: FindingDetail | undefined; style: RowStyle }) {
  const selectedTurn = useUi((s) => s.selectedTurn);
  return (
    <button
      type="button"
      className={`finding-row${turn === selectedTurn ? ' current' : ''}`}
      style={style}
      data-signal={sig}
      data-turn={turn}
      data-severity={SEVERITY[sig]}
      onClick={() => {
        selectTurn(turn);
        if (d !== undefined && d.spanIds.length > 0) selectSpan(d.spanIds[0]!);
      }}
      title={
        d === undefined
          ? undefined
          : d.spanIds.length > 0
            ? `${d.message}\nspans: ${d.spanIds.slice(0, 5).join(', ')}${d.spanIds.length > 5 ? ' …' : ''}`
            : d.message
      }
    >
      <span className="finding-turn">{turn}</span>
      <span className={`dot sev-${SEVERITY[sig]}`} aria-hidden="true" />
      <span className="finding-msg">{d === undefined ? sig : namedMessage(d.message, d.spanIds, d.labels)}</span>
      {d !== undefined && d.spanIds.length > 0 && <FindingSpan ids={d.spanIds} labels={d.labels} />}
    </button>
  );
}

/** The span a click on the finding opens, by its label (contract §8.8), and how many more it names. */
function FindingSpan({ ids, labels }: { ids: readonly string[]; labels: Readonly<Record<string, string>> }) {
  const first = ids[0]!;
  return (
    <span className="finding-span muted" data-testid="finding-span" data-span-id={first}>
      {shortLabel(labels[first] ?? first, 32)}
      {ids.length > 1 ? ` +${ids.length - 1}` : ''}
    </span>
  );
}
