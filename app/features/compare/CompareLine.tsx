// B's series drawn dashed inside one of A's charts, on A's turn axis (align.ts). Renders
// nothing when no comparison is open, so each chart only adds one line for it.
import { useMemo } from 'react';
import type { SeriesView } from '../../../src/worker/client.ts';
import type { LegendItem } from '../../components/ChartFrame.tsx';
import { useAnalysis } from '../../stores/analysis.ts';
import { SeriesLine } from '../charts/Series.tsx';
import { partnerX } from './align.ts';
import { useCompare } from './compareStore.ts';
import { useFixedChart } from '../charts/fixedSize.tsx';

export const B_COLOR = '#ad1457';

export function CompareLine({ pick, yAxisId }: { pick: (v: SeriesView) => { x: Float64Array; y: Float64Array } | null; yAxisId?: string }) {
  const fixed = useFixedChart() !== null;
  const view = useCompare((s) => (fixed ? null : s.view));
  const align = useCompare((s) => s.align);
  const aTurns = useAnalysis((s) => s.view?.turns);
  const line = useMemo(() => {
    if (view === null || aTurns === undefined) return null;
    const p = pick(view);
    return p === null ? null : { x: partnerX(p.x, view.turns, aTurns, align), y: p.y };
  }, [view, aTurns, align, pick]);
  if (line === null) return null;
  return <SeriesLine x={line.x} y={line.y} yAxisId={yAxisId} stroke={B_COLOR} width={1.6} dash="5 4" />;
}

/** The legend entry of B's dashed line, when a comparison is open. */
export function useCompareLegend(label: string): LegendItem[] {
  // a chart of fixed size (a report) draws one session: no partner
  const fixed = useFixedChart() !== null;
  const on = useCompare((s) => !fixed && s.partner !== null);
  return useMemo(() => (on ? [{ label: `B: ${label} (dashed)`, color: B_COLOR, kind: 'dash' as const }] : []), [on, label]);
}

/** The series of B each chart draws: the chart's headline line. */
export const B_SERIES = {
  spread: (v: SeriesView) => ({ x: v.spread.x, y: v.spread.stdev }),
  canary: (v: SeriesView) => (v.canary.canaries[0] === undefined ? null : { x: v.canary.x, y: v.canary.canaries[0].rank }),
  drift: (v: SeriesView) => ({ x: v.drift.x, y: v.drift.mean }),
  orphans: (v: SeriesView) => ({ x: v.orphans.x, y: v.orphans.edges }),
};
