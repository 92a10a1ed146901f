import { useMemo } from 'react';
import { CartesianGrid, ComposedChart, XAxis, YAxis } from 'recharts';
import { ChartFrame } from '../../components/ChartFrame.tsx';
import { ChartBox, useFixedChart } from './fixedSize.tsx';
import { C } from '../../components/theme.ts';
import { AXIS_TICK, CHART_MARGIN, turnAxisLabel, yLabel } from './common.tsx';
import { LineageGraph } from './LineageGraph.tsx';
import { useStableDomain, useStableRanges, useTurnAxis } from './common.tsx';
import { countTicks, bandRanges, edgesDomain, readout } from './rows.ts';
import { SeriesStepArea, Shade } from './Series.tsx';
import { CompactionMarkers, COMPACTION_LEGEND } from './CompactionMarkers.tsx';
import { TurnOverlay, type Readout } from './TurnOverlay.tsx';
import { B_SERIES, CompareLine, useCompareLegend } from '../compare/CompareLine.tsx';

export function OrphansChart() {
  // drawn for a report: no lineage graph below it
  const fixed = useFixedChart() !== null;
  const { view, xd, minW, anchor, xTicks } = useTurnAxis(3);
  const s = view?.orphans;
  const yEdges = useStableDomain(useMemo(() => (s ? edgesDomain(s) : ([0, 2] as [number, number])), [s]));
  const yTicks = useMemo(() => countTicks(yEdges[1]), [yEdges]);
  const bLegend = useCompareLegend('orphan edges');
  const bands = useStableRanges(useMemo(() => (s ? bandRanges(s.orphaned, minW) : []), [s, minW]));
  const hover: Readout | undefined = s ? (t) => readout(s.x, t, [{ label: 'orphan edges', y: s.edges, color: C.fault, digits: 0 }]) : undefined;
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
      footer={<LineageGraph />}
    >
      <ChartBox height={150}>
        <ComposedChart data={anchor} margin={CHART_MARGIN}>
          <CartesianGrid stroke={C.grid} vertical={false} />
          <XAxis dataKey="x" type="number" interval={0} ticks={xTicks} domain={xd} allowDataOverflow tick={AXIS_TICK} label={turnAxisLabel} />
          <YAxis
            interval={0}
            type="number"
            allowDecimals={false}
            domain={yEdges}
            ticks={yTicks}
            allowDataOverflow
            tick={AXIS_TICK}
            width={56}
            label={yLabel('edges (count)', 'left')}
          />
          <Shade ranges={bands} fill={C.shadeFault} opacity={0.25} />
          {s && view && <SeriesStepArea x={s.x} y={s.edges} color={C.fault} xEnd={view.to} />}
          <CompareLine pick={B_SERIES.orphans} />
          <CompactionMarkers turns={view?.compactions} />
          <TurnOverlay readout={hover} />
        </ComposedChart>
      </ChartBox>
    </ChartFrame>
  );
}
