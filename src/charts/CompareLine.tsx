// B's series drawn dashed inside one of A's charts, on A's turn axis (align.ts). Renders
// nothing when no comparison is open, so each chart only adds one line for it.
import { useMemo } from 'react';
import { usePlotArea, useXAxisScale } from 'recharts';
import type { SeriesView } from '../results/series.ts';
import type { LegendItem } from './ChartFrame.tsx';
import { SeriesLine } from './Series.tsx';
import { partnerX } from './align.ts';
import { useChartHost } from './host.tsx';
import { useFixedChart } from './fixedSize.tsx';

/**
 * B's hue and dash: a violet no threshold, series or marker of A uses (spread_floor is red
 * "6 4", the median grey "5 4", compactions teal "2 3"), in a dash-dot no other line has, so
 * B's line is never read as a threshold (issue 24: the magenta dash looked like spread_floor).
 */
export const B_COLOR = '#6d28d9';
export const B_DASH = '9 3 2 3';

/** B's fault turns, on A's axis: a violet tick at the top of the plot per turn, in both alignments. */
function PartnerFaultMarks({ x }: { x: Float64Array }) {
  const scale = useXAxisScale();
  const plot = usePlotArea();
  if (scale === undefined || plot === undefined || x.length === 0) return null;
  let d = '';
  let last = -Infinity;
  for (const turn of x) {
    const px = scale(turn);
    // one tick per pixel column: thousands of fault turns cost one short path
    if (px === undefined || !Number.isFinite(px) || px < plot.x - 0.5 || px > plot.x + plot.width + 0.5 || px - last < 1) continue;
    last = px;
    d += `M${(px - 3).toFixed(1)},${plot.y}L${(px + 3).toFixed(1)},${plot.y}L${px.toFixed(1)},${plot.y + 6}Z`;
  }
  return <path className="partner-faults" data-testid="partner-fault-marks" d={d} fill={B_COLOR} opacity={0.85} pointerEvents="none" />;
}

export function CompareLine({ pick, yAxisId }: { pick: (v: SeriesView) => { x: Float64Array; y: Float64Array } | null; yAxisId?: string }) {
  const fixed = useFixedChart() !== null;
  const partner = useChartHost().usePartnerView();
  const view = fixed ? null : partner.view;
  const { align, aTurns } = partner;
  const line = useMemo(() => {
    if (view === null || aTurns === undefined) return null;
    const p = pick(view);
    return p === null ? null : { x: partnerX(p.x, view.turns, aTurns, align), y: p.y };
  }, [view, aTurns, align, pick]);
  const faults = useMemo(() => {
    if (view === null || aTurns === undefined) return null;
    const turns: number[] = [];
    for (let k = 0; k < view.turns.length; k++) if (view.severity[k]! >= 3) turns.push(view.turns[k]!);
    return partnerX(Float64Array.from(turns), view.turns, aTurns, align);
  }, [view, aTurns, align]);
  if (line === null) return null;
  return (
    <>
      <SeriesLine x={line.x} y={line.y} yAxisId={yAxisId} stroke={B_COLOR} width={1.8} dash={B_DASH} />
      {faults !== null && <PartnerFaultMarks x={faults} />}
    </>
  );
}

/** The legend entry of B's dashed line, when a comparison is open. */
export function useCompareLegend(label: string): LegendItem[] {
  // a chart of fixed size (a report) draws one session: no partner
  const fixed = useFixedChart() !== null;
  const on = useChartHost().usePartnerOpen() && !fixed;
  return useMemo(
    () =>
      on
        ? [
            { label: `B: ${label} (violet dash-dot)`, color: B_COLOR, kind: 'dash' as const },
            { label: 'B: fault turn (violet tick, top)', color: B_COLOR, kind: 'dot' as const },
          ]
        : [],
    [on, label],
  );
}

/** The series of B each chart draws: the chart's headline line. */
export const B_SERIES = {
  spread: (v: SeriesView) => ({ x: v.spread.x, y: v.spread.stdev }),
  canary: (v: SeriesView) => (v.canary.canaries[0] === undefined ? null : { x: v.canary.x, y: v.canary.canaries[0].rank }),
  drift: (v: SeriesView) => ({ x: v.drift.x, y: v.drift.mean }),
  orphans: (v: SeriesView) => ({ x: v.orphans.x, y: v.orphans.edges }),
};
