// The turns where the agent compacted its context (docs/adapters.md compaction: the first
// call after a Claude Code compact_boundary), a vertical dashed line on a chart's turn axis.
// Every chart draws them, so a change in any series can be read against the compaction.
import { usePlotArea, useXAxisScale } from 'recharts';
import { C } from './theme.ts';

export const COMPACTION_LEGEND = { label: 'compaction (context summarised)', color: C.compaction, kind: 'dash' as const };

export function CompactionMarkers({ turns }: { turns: Float64Array | undefined }) {
  const scale = useXAxisScale();
  const plot = usePlotArea();
  if (turns === undefined || turns.length === 0 || scale === undefined || plot === undefined) return null;
  return (
    <g className="compactions" pointerEvents="none">
      {Array.from(turns, (turn) => {
        const x = scale(turn);
        if (x === undefined || x < plot.x - 0.5 || x > plot.x + plot.width + 0.5) return null;
        return (
          <g key={turn} data-testid="compaction-marker" data-turn={turn}>
            <title>{`turn ${turn}: the context was compacted`}</title>
            <line x1={x} x2={x} y1={plot.y} y2={plot.y + plot.height} stroke={C.compaction} strokeWidth={1.5} strokeDasharray="2 3" />
            <text x={x + 3} y={plot.y + plot.height - 4} fontSize={10} fill={C.compaction}>
              compaction
            </text>
          </g>
        );
      })}
    </g>
  );
}
