// The selected turn's live spans: one row each with its score binding and the first words of
// its text (rendered as text, never HTML: span texts are untrusted), sortable by any column
// (a header is a button; aria-sort says the order); a click on a row opens the inspector.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef, useState } from 'react';
import type { SpanRow } from '../../../src/worker/client.ts';
import { selectSpan } from '../../analysis.ts';
import { fmtNum } from '../../components/bits.tsx';
import { useUi } from '../../stores/ui.ts';
import { outOfScopeOnScreen, useAnalysis } from '../../stores/analysis.ts';
import { shortLabel } from './spanNames.ts';
import { useSpanPreviews } from './spanPreview.ts';
import { clicked, SPAN_COLUMNS, sortSpans, type SpanColumn, type SpanOrder } from './spanSort.ts';

/** a row: its cells, then its text preview on a line of its own */
const ROW_HEIGHT = 42;
const rowHeight = (): number => ROW_HEIGHT;
/** a row's name holds two lines of the span column at 1024 px */
const ROW_NAME = 60;

export function SpanTable({ spans, turn }: { spans: SpanRow[] | null; turn: number }) {
  const [order, setOrder] = useState<SpanOrder>({ by: 'problems' });
  const rows = useMemo(() => (spans === null ? [] : sortSpans(spans, order)), [spans, order]);
  const parent = useRef<HTMLDivElement>(null);
  // TanStack Virtual re-renders through its own subscription; the compiler need not memoise this component
  // eslint-disable-next-line react-hooks/incompatible-library
  const v = useVirtualizer({ count: rows.length, getScrollElement: () => parent.current, estimateSize: rowHeight, overscan: 10 });
  const items = v.getVirtualItems();
  const preview = useSpanPreviews(
    turn,
    items.map((it) => rows[it.index]?.spanId ?? ''),
  );
  if (spans === null) return <p className="empty">Per-span rows of turn {turn} are no longer held (the store keeps recent turns on long runs).</p>;
  return (
    <div className="span-table" role="table" aria-label={`Live spans at turn ${turn}`} aria-rowcount={rows.length + 1} data-testid="span-table">
      <div className="span-table-head">
        <strong>{spans.length} live spans</strong>
        <label className="toggle">
          <input type="checkbox" checked={order.by === 'problems'} onChange={(e) => setOrder({ by: e.target.checked ? 'problems' : 'snapshot' })} /> problems
          first
        </label>
      </div>
      <div className="span-cols" role="row" aria-rowindex={1}>
        {SPAN_COLUMNS.map((c) => (
          <SortHeader key={c.key} column={c.key} name={c.name} order={order} onSort={(col) => setOrder((o) => clicked(o, col))} />
        ))}
      </div>
      <div className="span-scroll" ref={parent} role="rowgroup">
        <div style={{ height: v.getTotalSize(), position: 'relative' }}>
          {items.map((it) => {
            const s = rows[it.index]!;
            return (
              <div
                key={s.spanId}
                // a label may take two lines: each row is measured, not assumed
                ref={v.measureElement}
                data-index={it.index}
                style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${it.start}px)` }}
              >
                <SpanRowButton s={s} index={it.index} preview={preview(s.spanId)} />
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

function SortHeader({ column, name, order, onSort }: { column: SpanColumn; name: string; order: SpanOrder; onSort: (c: SpanColumn) => void }) {
  const sort = order.by === column && 'dir' in order ? order.dir : 'none';
  return (
    <span role="columnheader" aria-sort={sort} data-column={column}>
      <button
        type="button"
        className="sort-head"
        onClick={() => onSort(column)}
        title={`Sort by ${name}${sort === 'none' ? '' : sort === 'ascending' ? ' (now ascending)' : ' (now descending)'}`}
      >
        {name}
        <span aria-hidden="true" className="sort-mark">
          {sort === 'ascending' ? ' ▲' : sort === 'descending' ? ' ▼' : ''}
        </span>
      </button>
    </span>
  );
}

function SpanRowButton({ s, index, preview }: { s: SpanRow; index: number; preview: string | null | undefined }) {
  const selected = useUi((u) => u.selectedSpan);
  // contract §8.9: where no score detector ran the binding is not judged: the reference scorer's score is shown, its binding not
  const outOfScope = useAnalysis(outOfScopeOnScreen);
  return (
    <button
      type="button"
      role="row"
      aria-rowindex={index + 2}
      data-span-id={s.spanId}
      className={`span-row${s.spanId === selected ? ' current' : ''}`}
      onClick={() => selectSpan(s.spanId)}
    >
      <span role="cell" className={s.label === null ? 'span-id' : 'span-label'} title={s.label === null ? s.spanId : `${s.label}\nspan ${s.spanId}`}>
        {s.pinned && (
          <span className="pin" title="pinned canary">
            pin
          </span>
        )}
        {s.label === null ? s.spanId : shortLabel(s.label, ROW_NAME)}
      </span>
      <span role="cell">{fmtNum(s.score)}</span>
      <span
        role="cell"
        className={`binding b-${outOfScope ? 'ref' : s.binding}`}
        title={outOfScope ? 'scored by the reference scorer; no score detector runs on this session (contract §8.1)' : undefined}
      >
        {outOfScope ? 'ref.' : s.binding}
      </span>
      <span role="cell">{s.rewrites}</span>
      <span role="cell">{s.tokens}</span>
      {/* text, never markup: React escapes it */}
      <span role="cell" className="span-preview" data-testid="span-preview">
        {preview === undefined ? '…' : preview === null ? '(text not held at this turn)' : preview === '' ? '(empty text)' : preview}
      </span>
    </button>
  );
}
