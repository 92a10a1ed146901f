// The whole session at a glance: worst severity per pixel column (red fault, amber
// warning, blue info), the zoom window as a brush, and the cursor. Drag to zoom, click to
// select a turn; the two window edges are keyboard sliders.
import { useEffect, useRef, useState } from 'react';
import type { SeriesView } from '../../../src/worker/client.ts';
import { selectTurn } from '../../analysis.ts';
import { C } from '../../../src/charts/theme.ts';
import { useAnalysis } from '../../stores/analysis.ts';
import { nearestTurn, setUi, useUi, zoomAround } from '../../stores/ui.ts';
import { markContinuous } from '../links/linkStore.ts';

const SEV_COLORS = ['#e9edf2', '#9cc3ea', '#f0b35c', '#d9534f'];

export function Overview() {
  const view = useAnalysis((s) => s.view);
  const zoom = useUi((s) => s.zoom);
  const turn = useUi((s) => s.selectedTurn);
  const box = useRef<HTMLDivElement>(null);
  const [drag, setDrag] = useState<{ a: number; b: number } | null>(null);

  if (view === null || view.turnCount === 0) return null;
  const first = view.firstTurn;
  const last = view.lastTurn;
  const spanTurns = last - first + 1;
  const pct = (t: number): number => ((t - first) / spanTurns) * 100;
  const turnAt = (clientX: number): number => {
    const r = box.current!.getBoundingClientRect();
    return first + ((clientX - r.left) / r.width) * spanTurns;
  };
  const from = zoom?.from ?? first;
  const to = zoom?.to ?? last;
  const step = Math.max(1, Math.round(spanTurns / 100));
  const setEdge = (edge: 'from' | 'to', value: number): void => {
    let a = edge === 'from' ? value : from;
    let b = edge === 'to' ? value : to;
    a = Math.max(first, Math.min(a, last - 1));
    b = Math.min(last, Math.max(b, a + 1));
    markContinuous(); // an edge slider moves in steps: one history entry, not one per step
    setUi({ zoom: a <= first && b >= last ? null : { from: a, to: b } });
  };
  const sliderKeys = (edge: 'from' | 'to') => (e: React.KeyboardEvent) => {
    const v = edge === 'from' ? from : to;
    const d =
      e.key === 'ArrowLeft' || e.key === 'ArrowDown'
        ? -step
        : e.key === 'ArrowRight' || e.key === 'ArrowUp'
          ? step
          : e.key === 'PageDown'
            ? -step * 10
            : e.key === 'PageUp'
              ? step * 10
              : 0;
    if (d === 0) return;
    e.preventDefault();
    e.stopPropagation();
    setEdge(edge, v + d);
  };

  return (
    <section className="overview" aria-label="Whole session overview and zoom">
      <div className="overview-head">
        <span>
          <strong>Session overview</strong>{' '}
          <span className="muted">
            turns {first}–{last} ({view.turnCount.toLocaleString('en-US')} snapshots){zoom ? ` · showing ${from}–${to}` : ''}
            <span data-no-export> · drag to zoom, click to select</span>
          </span>
        </span>
        <ZoomButtons first={first} last={last} middle={turn ?? (from + to) / 2} />
      </div>
      <div
        className="overview-strip"
        ref={box}
        onPointerDown={(e) => {
          if ((e.target as HTMLElement).getAttribute('role') === 'slider') return;
          (e.currentTarget as HTMLElement).setPointerCapture(e.pointerId);
          const t = turnAt(e.clientX);
          setDrag({ a: t, b: t });
        }}
        onPointerMove={(e) => drag && setDrag({ a: drag.a, b: turnAt(e.clientX) })}
        onPointerUp={() => {
          if (drag === null) return;
          const a = Math.min(drag.a, drag.b);
          const b = Math.max(drag.a, drag.b);
          setDrag(null);
          const px = ((b - a) / spanTurns) * (box.current?.getBoundingClientRect().width ?? 1);
          if (px < 4) selectTurn(nearestTurn(view.turns, a));
          else setUi({ zoom: b - a >= spanTurns - 1 ? null : { from: Math.max(first, Math.floor(a)), to: Math.min(last, Math.ceil(b)) } });
        }}
      >
        <RibbonCanvas view={view} />
        {zoom !== null && (
          <>
            <div className="overview-dim" style={{ left: 0, width: `${pct(from)}%` }} />
            <div className="overview-dim" style={{ left: `${pct(to + 1)}%`, right: 0 }} />
            <div className="overview-window" style={{ left: `${pct(from)}%`, width: `${pct(to + 1) - pct(from)}%` }} />
          </>
        )}
        {drag !== null && (
          <div className="overview-drag" style={{ left: `${pct(Math.min(drag.a, drag.b))}%`, width: `${Math.abs(pct(drag.b) - pct(drag.a))}%` }} />
        )}
        {turn !== null && <div className="overview-cursor" style={{ left: `${pct(turn + 0.5)}%`, background: C.cursor }} />}
        <InputErrorMarks pct={pct} first={first} />
        <EdgeSlider edge="from" value={from} first={first} last={last} onKeyDown={sliderKeys('from')} left={pct(from)} />
        <EdgeSlider edge="to" value={to} first={first} last={last} onKeyDown={sliderKeys('to')} left={pct(to + 1)} />
      </div>
    </section>
  );
}

/** The severity ribbon: one pixel column per turn column of the view, drawn on a canvas one pixel tall. */
function RibbonCanvas({ view }: { view: SeriesView }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const cv = canvas.current;
    if (cv === null) return;
    const w = view.ribbon.length;
    cv.width = w;
    cv.height = 1;
    const ctx = cv.getContext('2d');
    if (ctx === null) return;
    const img = ctx.createImageData(w, 1);
    for (let c = 0; c < w; c++) {
      const hex = SEV_COLORS[view.ribbon[c]!] ?? SEV_COLORS[0]!;
      img.data[c * 4] = parseInt(hex.slice(1, 3), 16);
      img.data[c * 4 + 1] = parseInt(hex.slice(3, 5), 16);
      img.data[c * 4 + 2] = parseInt(hex.slice(5, 7), 16);
      img.data[c * 4 + 3] = 255;
    }
    ctx.putImageData(img, 0, 0);
  }, [view]);
  return <canvas ref={canvas} className="overview-canvas" aria-hidden="true" />;
}

function ZoomButtons({ first, last, middle }: { first: number; last: number; middle: number }) {
  const zoom = useUi((s) => s.zoom);
  return (
    <span className="overview-buttons" data-no-export>
      <button
        type="button"
        className="btn small ghost"
        onClick={() => setUi({ zoom: zoomAround(first, last, zoom, middle, 0.5) })}
        title="Zoom in around the cursor (+)"
      >
        Zoom in
      </button>
      <button
        type="button"
        className="btn small ghost"
        onClick={() => setUi({ zoom: zoomAround(first, last, zoom, middle, 2) })}
        disabled={zoom === null}
        title="Zoom out (−)"
      >
        Zoom out
      </button>
      <button type="button" className="btn small ghost" onClick={() => setUi({ zoom: null })} disabled={zoom === null} title="Whole session (0)">
        Whole session
      </button>
    </span>
  );
}

function EdgeSlider({
  edge,
  value,
  first,
  last,
  left,
  onKeyDown,
}: {
  edge: 'from' | 'to';
  value: number;
  first: number;
  last: number;
  left: number;
  onKeyDown: (e: React.KeyboardEvent) => void;
}) {
  return (
    <div
      className="overview-handle"
      role="slider"
      tabIndex={0}
      aria-label={edge === 'from' ? 'Zoom window start (turn)' : 'Zoom window end (turn)'}
      aria-valuemin={first}
      aria-valuemax={last}
      aria-valuenow={value}
      style={{ left: `${left}%` }}
      onKeyDown={onKeyDown}
    />
  );
}

/**
 * Where the input lines that could not be read fell on the turn axis (issue 24: a file with
 * bad lines said nothing of where): a black notch under the strip after the turn read last
 * before each, its line numbers on hover.
 */
function InputErrorMarks({ pct, first }: { pct: (t: number) => number; first: number }) {
  const errors = useAnalysis((s) => s.summary?.inputErrors);
  const after = useAnalysis((s) => s.summary?.inputErrorAfterTurn);
  if (errors === undefined || after === undefined || errors.length === 0) return null;
  const byTurn = new Map<number, number[]>();
  errors.forEach((e, i) => {
    const t = after[i] ?? first - 1;
    byTurn.set(t, [...(byTurn.get(t) ?? []), e.line]);
  });
  return (
    <div className="input-error-marks" data-testid="input-error-marks" data-count={errors.length}>
      {[...byTurn].map(([t, lines]) => (
        <span
          key={t}
          className="input-error-mark"
          style={{ left: `${Math.max(0, Math.min(100, pct(t + 1)))}%` }}
          title={`${lines.length === 1 ? `line ${lines[0]}` : `lines ${lines.join(', ')}`} could not be read (after turn ${t < first ? '—' : t})`}
        />
      ))}
    </div>
  );
}
