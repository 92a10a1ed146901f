// Drawn inside each chart: the shared turn cursor, and a click layer that turns a click
// anywhere on the plot into the nearest real turn. Only this component re-renders when
// the cursor moves; the chart's series do not.
import { usePlotArea, useXAxisInverseScale, useXAxisScale } from 'recharts';
import { selectTurn } from '../../analysis.ts';
import { C } from '../../components/theme.ts';
import { useAnalysis } from '../../stores/analysis.ts';
import { nearestTurn, useUi } from '../../stores/ui.ts';

export function TurnOverlay() {
  const turn = useUi((s) => s.selectedTurn);
  const scale = useXAxisScale();
  const inverse = useXAxisInverseScale();
  const plot = usePlotArea();
  if (plot === undefined || scale === undefined) return null;
  const x = turn === null ? undefined : scale(turn);
  const onClick = (e: React.MouseEvent<SVGRectElement>): void => {
    if (inverse === undefined) return;
    const svg = e.currentTarget.ownerSVGElement;
    if (svg === null) return;
    const px = e.clientX - svg.getBoundingClientRect().left;
    const value = Number(inverse(px));
    const turns = useAnalysis.getState().view?.turns;
    if (turns === undefined || !Number.isFinite(value)) return;
    selectTurn(nearestTurn(turns, value));
  };
  return (
    <g className="turn-overlay">
      <rect x={plot.x} y={plot.y} width={plot.width} height={plot.height} fill="transparent" onClick={onClick} style={{ cursor: 'crosshair' }} />
      {x !== undefined && x >= plot.x - 0.5 && x <= plot.x + plot.width + 0.5 && (
        <g pointerEvents="none">
          <line x1={x} x2={x} y1={plot.y} y2={plot.y + plot.height} stroke={C.cursor} strokeWidth={1.5} />
          <text x={Math.min(x + 4, plot.x + plot.width - 40)} y={plot.y + 11} fontSize={11} fill={C.cursor} fontWeight={600}>
            {turn}
          </text>
        </g>
      )}
    </g>
  );
}
