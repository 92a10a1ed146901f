// Every session the relay holds, in one virtualised table (only the rows in view are in the
// DOM, so 500 sessions scroll and update smoothly): status, verdict, worst severity of the
// last turns, last fault, turns, rate, and sparklines of score spread and canary rank.
// Worst first; filtered by text and state; a click opens the session. Fed by the relay's
// overview channel (overviewStore.ts), not by polling.
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useMemo, useRef, useState } from 'react';
import type { ContextSummary, LastCompaction, SessionSummary } from '../../../src/protocol/relay.ts';
import { chipKind } from '../../../src/report/headline.ts';
import { agentName, projectName, SCORE_COLUMN_REASON } from '../../../src/report/contextHeadline.ts';
import { retentionWords, tokensWords } from '../compactions/compactionRows.ts';
import { openLive } from '../../analysis.ts';
import { AlertsPanel } from '../alerts/AlertsPanel.tsx';
import { setRelayToken, useRelayToken } from '../alerts/relayWrites.ts';
import { DeleteSession } from './DeleteSession.tsx';
import { sessionNames, type SessionName } from './sessionNames.ts';
import { connectOverview, setOverviewFilter, unreachableWords, useOverview, visibleRows, type StateFilter } from './overviewStore.ts';

// the name and, after it, the id's start (sessionNames.ts) fit two lines of a row: nothing is cut off below it
const ROW_HEIGHT = 40;

export function SessionsOverview() {
  useEffect(() => connectOverview(), []);
  const sessions = useOverview((s) => s.sessions);
  const analysis = useOverview((s) => s.analysis);
  const text = useOverview((s) => s.text);
  const state = useOverview((s) => s.state);
  const rows = useMemo(() => visibleRows(sessions, text, state), [sessions, text, state]);
  // names depend on the ids and titles only: a batch of new figures keeps every row's name object (Row is memoised)
  const titleKey = sessions === null ? '' : [...sessions.values()].map((s) => `${s.session_id}\u0001${s.title ?? ''}`).join('\u0000');
  const names = useMemo(
    () =>
      sessionNames(
        titleKey === ''
          ? []
          : titleKey.split('\u0000').map((r) => {
              const [session_id, title] = r.split('\u0001') as [string, string];
              return { session_id, title: title === '' ? null : title };
            }),
      ),
    [titleKey],
  );
  const scroller = useRef<HTMLDivElement>(null);
  const [alertsOpen, setAlertsOpen] = useState(false);
  const [writeError, setWriteError] = useState<string | null>(null);
  const lostAt = useOverview((s) => (s.connection === 'open' ? null : s.lostAt));
  // the virtualiser's functions are read fresh on each render, as in the findings list
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtual = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 8 });
  if (sessions === null || !analysis) return null;
  return (
    <section
      className={`panel overview${lostAt !== null ? ' unreachable' : ''}`}
      aria-label="All sessions"
      data-testid="overview"
      data-unreachable={lostAt !== null}
    >
      <OverviewHead shown={rows.length} total={sessions.size} alertsOpen={alertsOpen} onAlerts={() => setAlertsOpen((o) => !o)} />
      {lostAt !== null && (
        <p className="overview-unreachable" role="status" data-testid="overview-unreachable">
          {unreachableWords(lostAt)}
        </p>
      )}
      {writeError !== null && (
        <p className="error" role="alert" data-testid="overview-error">
          {writeError}{' '}
          <button type="button" className="link" onClick={() => setWriteError(null)} aria-label="Dismiss">
            ×
          </button>
        </p>
      )}
      <div role="table" aria-label="Sessions, worst first" aria-rowcount={rows.length + 1} className="overview-table">
        <HeaderRow lastTurns={rows[0]?.window ?? 20} />
        <div
          ref={scroller}
          className="overview-scroll"
          data-testid="overview-scroll"
          style={{ '--rows-height': `${virtual.getTotalSize()}px` } as React.CSSProperties}
        >
          <div style={{ height: virtual.getTotalSize(), position: 'relative' }}>
            {virtual.getVirtualItems().map((item) => {
              const s = rows[item.index]!;
              return (
                <Row
                  key={s.session_id}
                  s={s}
                  name={names.get(s.session_id) ?? { name: s.session_id, idStart: null }}
                  index={item.index}
                  top={item.start}
                  onWrite={setWriteError}
                />
              );
            })}
          </div>
        </div>
      </div>
      {alertsOpen && <AlertsPanel />}
    </section>
  );
}

/** The table's title, its filters, the relay token (sent on writes) and the Alerts button. */
function OverviewHead({ shown, total, alertsOpen, onAlerts }: { shown: number; total: number; alertsOpen: boolean; onAlerts: () => void }) {
  const text = useOverview((s) => s.text);
  const state = useOverview((s) => s.state);
  const token = useRelayToken((t) => t.token);
  return (
    <header className="panel-head overview-head">
      <h2>All sessions</h2>
      <span className="muted">{shown === total ? `${total}` : `${shown} of ${total}`} · worst first</span>
      <input
        type="search"
        placeholder="Filter by id or title"
        aria-label="Filter sessions by id or title"
        value={text}
        onChange={(e) => setOverviewFilter({ text: e.target.value })}
        data-testid="overview-filter"
      />
      <select
        aria-label="Filter sessions by state"
        value={state}
        onChange={(e) => setOverviewFilter({ state: e.target.value as StateFilter })}
        data-testid="overview-state"
      >
        <option value="all">all states</option>
        <option value="live">live</option>
        <option value="idle">idle</option>
        <option value="ended">ended</option>
      </select>
      <input
        type="password"
        autoComplete="off"
        placeholder="relay token"
        aria-label="Relay token (kept in this tab only, sent on deletes and rule changes)"
        title="Kept in this tab only (sessionStorage); sent as Authorization: Bearer on deletes and rule changes"
        value={token}
        onChange={(e) => setRelayToken(e.target.value)}
        data-testid="relay-token"
      />
      <button type="button" aria-expanded={alertsOpen} onClick={onAlerts} data-testid="overview-alerts">
        Alerts
      </button>
    </header>
  );
}

function HeaderRow({ lastTurns }: { lastTurns: number }) {
  return (
    <div role="row" className="overview-row overview-header">
      <span role="columnheader">state</span>
      <span role="columnheader">session</span>
      <span role="columnheader">verdict</span>
      <span role="columnheader" title="The worst severity among the findings of the session's last turns">
        worst (last {lastTurns} turns)
      </span>
      <span role="columnheader">last fault</span>
      <span role="columnheader">turns</span>
      <span role="columnheader">per min</span>
      <span role="columnheader" title="How full the context window is at the last turn (an imported agent's session, contract §8.7)">
        fill
      </span>
      <span role="columnheader" title="The session's compactions and, of their lost items, how many the agent went back for (confirmed losses, contract §8.4)">
        compactions
      </span>
      <span role="columnheader">score spread</span>
      <span role="columnheader">canary rank</span>
      <span
        role="columnheader"
        title="The last compaction: what its summary kept of the files and prompts it replaced (contract §8.3), and how many it lost that the agent went back for"
      >
        last compaction
      </span>
      <span role="columnheader">
        <span className="sr-only">delete</span>
      </span>
    </div>
  );
}

const TURNS = new Intl.NumberFormat('en-US');

/**
 * One session's row. Memoised: a batch of changes re-renders only the rows whose summary
 * changed (the store keeps the unchanged summaries' objects) or that moved; placed with a
 * transform, so a row that moves is not laid out again (docs/perf-log/notebook.md "Overview with
 * many sessions").
 */
const Row = memo(function Row({
  s,
  name,
  index,
  top,
  onWrite,
}: {
  s: SessionSummary;
  name: SessionName;
  index: number;
  top: number;
  onWrite: (error: string | null) => void;
}) {
  const action = s.verdict?.action ?? null;
  const open = (): void => openLive(s.session_id);
  return (
    <div
      role="row"
      aria-rowindex={index + 2}
      tabIndex={0}
      className={`overview-row overview-item action-${action ?? 'none'}`}
      style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${top}px)` }}
      onClick={open}
      onKeyDown={(e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          open();
        }
      }}
      data-testid="overview-row"
      data-session={s.session_id}
    >
      <span role="cell" className={`status status-${s.status}`}>
        {s.status}
        {s.analysed ? '' : ' (reading)'}
      </span>
      <span
        role="cell"
        className="overview-name"
        title={[s.title, s.agent === null ? null : `${agentName(s.agent)}${s.project === null ? '' : ` in ${s.project}`}`, s.session_id]
          .filter((x) => x !== null)
          .join('\n')}
        data-testid="overview-name"
      >
        <strong>{name.name}</strong>
        {name.idStart !== null && <span className="muted overview-id"> {name.idStart}</span>}
        {s.agent !== null && (
          // the agent after the id's start, on the name's second line; the project only when the title does not already begin with it
          <span className="overview-agent" data-testid="overview-agent" data-agent={s.agent}>
            {' · '}
            {agentName(s.agent)}
            {s.project === null || (s.title ?? '').startsWith(projectName(s.project)) ? '' : ` · ${projectName(s.project)}`}
          </span>
        )}
      </span>
      {s.context !== null ? <ContextChip context={s.context} /> : <VerdictChip verdict={s.verdict} />}
      <span
        role="cell"
        className={`sev sev-${s.worst_recent ?? 'none'}`}
        data-testid="overview-worst"
        title={
          s.worst_recent === null
            ? `nothing fired in the last ${s.window} turns`
            : `the worst finding of the last ${s.window} turns was at turn ${s.worst_recent_turn}; the verdict is the latest turn's`
        }
      >
        {s.worst_recent === null
          ? 'none'
          : s.worst_recent_turn !== null && s.worst_recent_turn !== s.last_turn
            ? `${s.worst_recent} @ ${s.worst_recent_turn}`
            : s.worst_recent}
      </span>
      <span role="cell" className="overview-last-fault">
        {s.last_fault === null ? '—' : `${s.last_fault.signal} @ ${s.last_fault.turn}`}
      </span>
      <span role="cell" className="num" data-testid="overview-turns">
        {TURNS.format(s.turns)}
      </span>
      <span
        role="cell"
        className="num"
        data-testid="overview-rate"
        title={
          s.rate_per_min !== null
            ? 'turns per minute, over the last turns'
            : s.imported
              ? 'an imported transcript: it arrives at the reader’s pace, not the agent’s'
              : 'not live: no rate'
        }
      >
        {s.rate_per_min === null ? '—' : s.rate_per_min.toFixed(1)}
      </span>
      <FillCell context={s.context} />
      <CompactionsCell context={s.context} />
      {s.context !== null ? (
        <>
          <span role="cell" className="muted" data-testid="overview-spread" title={SCORE_COLUMN_REASON}>
            —
          </span>
          <span role="cell" className="muted" data-testid="overview-canary" title={SCORE_COLUMN_REASON}>
            —
          </span>
        </>
      ) : (
        <>
          <span role="cell" data-testid="overview-spread">
            <Sparkline values={s.spread} label="score spread" invert={false} />
          </span>
          <span role="cell" data-testid="overview-canary">
            <Sparkline values={s.canary_rank} label="canary rank (down = sinking)" invert />
          </span>
        </>
      )}
      <LastCompactionCell c={s.last_compaction} />
      <span role="cell">
        <DeleteSession id={s.session_id} onResult={onWrite} />
      </span>
    </div>
  );
});

/**
 * The last turn's headline in one word (src/report/headline.ts, the banner's words): the
 * §5 action, and "+ drop" or "+ fault" when the turn dropped a span or fired a fault, so a
 * green chip never sits beside a red fault. The chip's text starts with the §5 action (what
 * the relay's alert rules and sorting speak of).
 */
function VerdictChip({ verdict }: { verdict: SessionSummary['verdict'] }) {
  if (verdict === null)
    return (
      <span role="cell" className="verdict-chip verdict-none" data-testid="overview-verdict">
        —
      </span>
    );
  const kind = chipKind(verdict);
  const extra = kind === 'drop' ? ' + drop' : kind === 'fault' ? ' + fault' : verdict.drop.length > 0 ? ' + drop' : '';
  const tone = kind === 'prune_ok' || kind === 'warning' ? verdict.action : kind === 'recompute' ? 'recompute' : 'freeze';
  return (
    <span role="cell" className={`verdict-chip verdict-${tone}`} data-testid="overview-verdict" data-headline={kind}>
      {verdict.action}
      {extra}
    </span>
  );
}

/**
 * contract §8.9: the last turn's headline of a session where no score detector ran, in the
 * banner's word (LOSS CONFIRMED, NEAR THE LIMIT, …), the whole line on hover.
 */
function ContextChip({ context }: { context: ContextSummary }) {
  const tone = context.kind === 'context_ok' ? 'ok' : context.kind === 'lineage_broken' ? 'fault' : 'warn';
  return (
    <span role="cell" className={`verdict-chip verdict-${tone}`} data-testid="overview-verdict" data-headline={context.kind} title={context.text}>
      {context.label}
    </span>
  );
}

/** contract §8.7: the window's fill at the last turn; "—" for a scored loop's row, or where no window is known. */
function FillCell({ context }: { context: ContextSummary | null }) {
  const fill = context?.fill ?? null;
  return (
    <span
      role="cell"
      className="num"
      data-testid="overview-fill"
      data-fill={fill ?? ''}
      title={
        context === null
          ? 'measured for imported agents’ sessions'
          : fill === null
            ? `${TURNS.format(context.tokens)} tokens; no context window is known`
            : `${TURNS.format(context.tokens)} of ${TURNS.format(context.context_window ?? 0)} tokens`
      }
    >
      {fill === null ? '—' : `${Math.round(fill * 100)}%`}
    </span>
  );
}

/** contract §8.4: the session's compactions and its confirmed losses (lost items the agent went back for). */
function CompactionsCell({ context }: { context: ContextSummary | null }) {
  if (context === null)
    return (
      <span role="cell" className="num muted" data-testid="overview-compactions" title="measured for imported agents’ sessions">
        —
      </span>
    );
  return (
    <span
      role="cell"
      className="num"
      data-testid="overview-compactions"
      data-compactions={context.compactions}
      data-confirmed={context.confirmed_losses}
      title={`${context.compactions} compaction${context.compactions === 1 ? '' : 's'}; ${context.confirmed_losses} confirmed loss${context.confirmed_losses === 1 ? '' : 'es'}`}
    >
      {context.compactions}
      {context.confirmed_losses > 0 && <span className="lost"> · {context.confirmed_losses} lost</span>}
    </span>
  );
}

/** contract §8.3: "files 41/58, prompts 22/23 · 3 confirmed losses", the turn and tokens on hover. */
function LastCompactionCell({ c }: { c: LastCompaction | null }) {
  if (c === null)
    return (
      <span role="cell" className="overview-compaction muted" data-testid="overview-compaction" data-turn="">
        —
      </span>
    );
  const words = retentionWords(c.retention);
  return (
    <span
      role="cell"
      className="overview-compaction"
      data-testid="overview-compaction"
      data-turn={c.turn}
      data-confirmed={c.confirmed}
      title={`turn ${c.turn} (${c.compactions} compaction${c.compactions === 1 ? '' : 's'} so far): ${tokensWords(c)}`}
    >
      {words === '' ? `${c.kind} @ ${c.turn}` : words}
      {c.confirmed > 0 && (
        <span className="lost">
          {' '}
          · {c.confirmed} confirmed loss{c.confirmed === 1 ? '' : 'es'}
        </span>
      )}
    </span>
  );
}

const W = 96;
const H = 22;

/** A tiny line of the last turns; a gap where a value is undefined. `invert`: 1 is drawn at the bottom. */
const Sparkline = memo(function Sparkline({ values, label, invert }: { values: (number | null)[]; label: string; invert: boolean }) {
  const path = useMemo(() => {
    const finite = values.filter((v): v is number => v !== null);
    if (finite.length === 0) return '';
    const max = invert ? 1 : finite.reduce((m, v) => Math.max(m, v), 0.05);
    const dx = values.length > 1 ? W / (values.length - 1) : 0;
    let d = '';
    let pen = false;
    values.forEach((v, i) => {
      if (v === null) {
        pen = false;
        return;
      }
      const y = invert ? (v / max) * (H - 2) + 1 : H - 1 - (v / max) * (H - 2);
      d += `${pen ? 'L' : 'M'}${(i * dx).toFixed(1)},${y.toFixed(1)}`;
      pen = true;
    });
    return d;
  }, [values, invert]);
  return (
    <svg width={W} height={H} role="img" aria-label={label} className="sparkline">
      <path d={path} fill="none" stroke="currentColor" strokeWidth="1.3" />
    </svg>
  );
});
