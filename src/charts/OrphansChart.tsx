import { useMemo } from 'react';
import { CartesianGrid, ComposedChart, XAxis, YAxis } from 'recharts';
import { ChartFrame } from './ChartFrame.tsx';
import { ChartBox, useFixedChart } from './fixedSize.tsx';
import { C } from './theme.ts';
import { CHART_MARGIN, turnXAxis, VALUE_Y_AXIS, yLabel } from './common.tsx';
import { useChartHost } from './host.tsx';
import { useStableDomain, useTurnAxis } from './common.tsx';
import { countTicks, edgesDomain, readout } from './rows.ts';
import { SeriesStepArea } from './Series.tsx';
import { CompactionMarkers, COMPACTION_LEGEND } from './CompactionMarkers.tsx';
import { TurnOverlay, type Readout } from './TurnOverlay.tsx';
import { ChartViewContext, FromView, ViewShade } from './chartView.tsx';
import type { SeriesView } from '../results/series.ts';
import { B_SERIES, CompareLine, useCompareLegend } from './CompareLine.tsx';

// Drawn from the view (chartView.tsx): module-level, so the chart's element stays the same
const drawArea = (v: SeriesView) => <SeriesStepArea x={v.orphans.x} y={v.orphans.edges} color={C.fault} xEnd={v.to} />;
const pickOrphaned = (v: SeriesView) => v.orphans.orphaned;
const drawCompactions = (v: SeriesView) => <CompactionMarkers turns={v.compactions} />;
const hover: Readout = (v, t) => readout(v.orphans.x, t, [{ label: 'orphan edges', y: v.orphans.edges, color: C.fault, digits: 0 }]);

export function OrphansChart() {
  // drawn for a report: no lineage graph below it
  const fixed = useFixedChart() !== null;
  const { OrphansFooter } = useChartHost();
  const { view, xd, minW, anchor, xTicks } = useTurnAxis(3);
  const s = view?.orphans;
  const yEdges = useStableDomain(useMemo(() => (s ? edgesDomain(s) : ([0, 2] as [number, number])), [s]));
  const yTicks = useMemo(() => countTicks(yEdges[1]), [yEdges]);
  const bLegend = useCompareLegend('orphan edges');
  // the same element while the axes and shaded ranges are: a data update re-renders the series only
  const plot = useMemo(
    () => (
      <ChartBox height={150}>
        <ComposedChart data={anchor} margin={CHART_MARGIN}>
          <CartesianGrid stroke={C.grid} vertical={false} />
          <XAxis {...turnXAxis(xTicks, xd)} />
          <YAxis {...VALUE_Y_AXIS} allowDecimals={false} domain={yEdges} ticks={yTicks} width={56} label={yLabel('edges (count)', 'left')} />
          <ViewShade pick={pickOrphaned} minWidth={minW} fill={C.shadeFault} opacity={0.25} />
          <FromView draw={drawArea} />
          <CompareLine pick={B_SERIES.orphans} />
          <FromView draw={drawCompactions} />
          <TurnOverlay readout={hover} />
        </ComposedChart>
      </ChartBox>
    ),
    [anchor, xTicks, xd, yEdges, yTicks, minW],
  );
  return (
    <ChartFrame
      testId="chart-orphans"
      title="Orphaned lineage"
      subtitle={
        <>
          Orphan edges per turn: distinct (live span, missing parent) pairs of <code>derived_from</code>.
          {fixed ? '' : ' Below, the derivation graph of the selected turn; missing parents are dashed ghost nodes.'}
        </>
      }
      state={view === null ? 'loading' : s && s.x.length > 0 ? 'ready' : 'empty'}
      points={s?.x.length ?? 0}
      legend={[
        { label: 'orphan edges', color: C.fault, kind: 'area' },
        { label: 'orphaned_parent fired', color: C.shadeFault, kind: 'shade' },
        ...bLegend,
        ...(view && view.compactions.length > 0 ? [COMPACTION_LEGEND] : []),
      ]}
      footer={<OrphansFooter />}
    >
      <ChartViewContext.Provider value={view}>{plot}</ChartViewContext.Provider>
    </ChartFrame>
  );
}
