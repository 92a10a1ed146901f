// The selected turn: its metrics (contract §3), every finding with its message, and the live
// spans with their score binding; a click on a span opens the inspector.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef, useState } from 'react';
import type { SpanRow } from '../../../src/worker/client.ts';
import { selectSpan } from '../../analysis.ts';
import { fmtNum, SeverityBadge, SpanChips } from '../../components/bits.tsx';
import { useAnalysis } from '../../stores/analysis.ts';
import { useUi } from '../../stores/ui.ts';
import { TurnComposition } from './TurnComposition.tsx';
import { namedMessage } from '../findings/rows.ts';
import { shortLabel } from './spanNames.ts';

const ROW_HEIGHT = 26;
const rowHeight = (): number => ROW_HEIGHT;
/** a row's name holds two lines of the span column at 1024 px */
const ROW_NAME = 60;
const BINDING_ORDER = { stale: 0, unbound: 1, unscored: 2, bound: 3 } as const;

export function TurnPanel() {
  const turn = useAnalysis((s) => s.turn);
  const selected = useUi((s) => s.selectedTurn);
  if (selected === null) return <p className="empty">Select a turn (click a chart, a finding, or use ← →).</p>;
  if (turn === null) return <p className="empty">Loading turn {selected}…</p>;
  const m = turn.metrics;
  // while the next turn's detail is on its way the previous one stays, dimmed: no flicker
  return (
    <div className={`turn-panel${turn.turn !== selected ? ' stale' : ''}`} aria-busy={turn.turn !== selected}>
      <dl className="metrics">
        <Metric k="spans" v={`${m.n_spans} (${m.n_scored} scored)`} />
        <Metric k="tokens" v={`${fmtNum(m.tokens_total)}${m.tokens_estimated ? ' (some estimated)' : ''}`} />
        <Metric k="mean" v={fmtNum(m.mean_score)} />
        <Metric k="median" v={fmtNum(m.median_score)} />
        <Metric k="stdev" v={fmtNum(m.stdev_score)} />
        <Metric k="p10–p90" v={`${fmtNum(m.p10_score)}–${fmtNum(m.p90_score)}`} />
        <Metric k="modified / invalidated" v={`${m.spans_modified} / ${m.scores_invalidated}`} />
        <Metric k="texts changed" v={String(m.texts_changed)} />
        <Metric k="orphan edges" v={String(m.orphan_edges)} />
      </dl>
      {turn.findings.length > 0 && (
        <ul className="turn-findings" aria-label={`Findings at turn ${turn.turn}`}>
          {turn.findings.map((f) => (
            <li key={f.signal}>
              <SeverityBadge severity={f.severity} /> <code>{f.signal}</code> <span className="msg">{namedMessage(f.message, f.spanIds, f.labels)}</span>
              {f.spanIds.length > 0 && (
                <div>
                  <SpanChips ids={f.spanIds} limit={10} tone={f.severity === 'fault' ? 'bad' : 'plain'} />
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      <TurnComposition turn={turn} />
      <SpanTable spans={turn.spans} turn={turn.turn} />
    </div>
  );
}

function Metric({ k, v }: { k: string; v: string }) {
  return (
    <div>
      <dt>{k}</dt>
      <dd>{v}</dd>
    </div>
  );
}

function SpanTable({ spans, turn }: { spans: SpanRow[] | null; turn: number }) {
  const [badFirst, setBadFirst] = useState(true);
  const selected = useUi((s) => s.selectedSpan);
  const rows = useMemo(() => {
    if (spans === null) return [];
    return badFirst ? [...spans].sort((a, b) => BINDING_ORDER[a.binding] - BINDING_ORDER[b.binding] || b.rewrites - a.rewrites) : spans;
  }, [spans, badFirst]);
  const parent = useRef<HTMLDivElement>(null);
  // TanStack Virtual re-renders through its own subscription; the compiler need not memoise this component
  // eslint-disable-next-line react-hooks/incompatible-library
  const v = useVirtualizer({ count: rows.length, getScrollElement: () => parent.current, estimateSize: rowHeight, overscan: 10 });
  if (spans === null) return <p className="empty">Per-span rows of turn {turn} are no longer held (the store keeps recent turns on long runs).</p>;
  return (
    <div className="span-table">
      <div className="span-table-head">
        <strong>{spans.length} live spans</strong>
        <label className="toggle">
          <input type="checkbox" checked={badFirst} onChange={(e) => setBadFirst(e.target.checked)} /> problems first
        </label>
      </div>
      <div className="span-cols" aria-hidden="true">
        <span>span</span>
        <span>score</span>
        <span>binding</span>
        <span>rewrites</span>
        <span>tokens</span>
      </div>
      <div className="span-scroll" ref={parent}>
        <div style={{ height: v.getTotalSize(), position: 'relative' }}>
          {v.getVirtualItems().map((it) => {
            const s = rows[it.index]!;
            return (
              <button
                type="button"
                key={s.spanId}
                // a label may take two lines: each row is measured, not assumed
                ref={v.measureElement}
                data-index={it.index}
                data-span-id={s.spanId}
                className={`span-row${s.spanId === selected ? ' current' : ''}`}
                style={{ position: 'absolute', top: 0, left: 0, right: 0, minHeight: ROW_HEIGHT, transform: `translateY(${it.start}px)` }}
                onClick={() => selectSpan(s.spanId)}
              >
                <span className={s.label === null ? 'span-id' : 'span-label'} title={s.label === null ? s.spanId : `${s.label}\nspan ${s.spanId}`}>
                  {s.pinned && (
                    <span className="pin" title="pinned canary">
                      pin
                    </span>
                  )}
                  {s.label === null ? s.spanId : shortLabel(s.label, ROW_NAME)}
                </span>
                <span>{fmtNum(s.score)}</span>
                <span className={`binding b-${s.binding}`}>{s.binding}</span>
                <span>{s.rewrites}</span>
                <span>{s.tokens}</span>
              </button>
            );
          })}
        </div>
      </div>
    </div>
  );
}
