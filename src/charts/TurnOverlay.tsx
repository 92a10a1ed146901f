// Drawn inside each chart: the shared turn cursor, a click layer that turns a click on the
// plot into the nearest real turn, and a hover readout of the values under the pointer.
// Only this component re-renders when the cursor or the pointer moves.
import { useState } from 'react';
import { usePlotArea, useXAxisInverseScale, useXAxisScale } from 'recharts';
import { C } from './theme.ts';
import { useChartHost } from './host.tsx';
import type { ReadoutLine } from './rows.ts';
import { useFixedChart } from './fixedSize.tsx';
import { useViewInChart } from './chartView.tsx';
import type { SeriesView } from '../results/series.ts';

/** The values under the pointer, from the chart's view (a module-level function: see chartView.tsx). */
export type Readout = (view: SeriesView, turn: number) => { turn: number; lines: ReadoutLine[] } | null;

export function TurnOverlay({ readout }: { readout?: Readout }) {
  const fixed = useFixedChart();
  const host = useChartHost();
  const uiTurn = host.useSelectedTurn();
  const turn = fixed === null ? uiTurn : fixed.selectedTurn;
  const scale = useXAxisScale();
  const inverse = useXAxisInverseScale();
  const plot = usePlotArea();
  const [hoverPx, setHoverPx] = useState<number | null>(null);
  const view = useViewInChart();
  if (plot === undefined || scale === undefined) return null;
  const x = turn === null ? undefined : scale(turn);
  const valueAt = (e: React.PointerEvent<SVGRectElement> | React.MouseEvent<SVGRectElement>): { px: number; value: number } | null => {
    const svg = e.currentTarget.ownerSVGElement;
    if (svg === null || inverse === undefined) return null;
    const px = e.clientX - svg.getBoundingClientRect().left;
    const value = Number(inverse(px));
    return Number.isFinite(value) ? { px, value } : null;
  };
  const hover =
    fixed === null && hoverPx !== null && inverse !== undefined && readout !== undefined && view !== null ? readout(view, Number(inverse(hoverPx))) : null;
  const hx = hover === null ? undefined : scale(hover.turn);
  const boxW = 178;
  const boxH = 18 + 15 * (hover?.lines.length ?? 0);
  const boxX = hx === undefined ? 0 : hx + 12 + boxW > plot.x + plot.width ? hx - 12 - boxW : hx + 12;
  return (
    <g className="turn-overlay">
      <rect
        x={plot.x}
        y={plot.y}
        width={plot.width}
        height={plot.height}
        fill="transparent"
        style={{ cursor: 'crosshair' }}
        onClick={(e) => {
          const v = valueAt(e);
          if (v !== null) host.selectTurnNear(v.value);
        }}
        onPointerMove={(e) => setHoverPx(valueAt(e)?.px ?? null)}
        onPointerLeave={() => setHoverPx(null)}
      />
      {x !== undefined && x >= plot.x - 0.5 && x <= plot.x + plot.width + 0.5 && (
        <g pointerEvents="none">
          <line x1={x} x2={x} y1={plot.y} y2={plot.y + plot.height} stroke={C.cursor} strokeWidth={1.5} />
          <text x={Math.min(x + 4, plot.x + plot.width - 40)} y={plot.y + 11} fontSize={11} fill={C.cursor} fontWeight={600}>
            {turn}
          </text>
        </g>
      )}
      {hover !== null && hx !== undefined && (
        <g pointerEvents="none" className="readout" data-no-export>
          <line x1={hx} x2={hx} y1={plot.y} y2={plot.y + plot.height} stroke={C.axis} strokeDasharray="3 3" />
          <rect x={boxX} y={plot.y + 4} width={boxW} height={boxH} rx={4} fill="#fff" stroke={C.grid} />
          <text x={boxX + 8} y={plot.y + 17} fontSize={11} fontWeight={700} fill={C.ink}>
            turn {hover.turn}
          </text>
          {hover.lines.map((l, i) => (
            <text key={l.label} x={boxX + 8} y={plot.y + 32 + 15 * i} fontSize={11} fill={C.ink}>
              <tspan fill={l.color}>■ </tspan>
              {l.label}: {l.value}
            </text>
          ))}
        </g>
      )}
    </g>
  );
}
