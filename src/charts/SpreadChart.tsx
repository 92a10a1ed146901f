import { useMemo } from 'react';
import { CartesianGrid, ComposedChart, XAxis, YAxis } from 'recharts';
import { ChartFrame } from './ChartFrame.tsx';
import { ChartBox } from './fixedSize.tsx';
import { C } from './theme.ts';
import { CHART_HEIGHT, CHART_MARGIN, turnXAxis, VALUE_Y_AXIS, yLabel } from './common.tsx';
import { useStableDomain, useTurnAxis } from './common.tsx';
import { niceTicks, readout, scoreDomain, stdevDomain } from './rows.ts';
import { Rule, SeriesBand, SeriesLine } from './Series.tsx';
import { CompactionMarkers, COMPACTION_LEGEND } from './CompactionMarkers.tsx';
import { TurnOverlay, type Readout } from './TurnOverlay.tsx';
import { B_SERIES, CompareLine, useCompareLegend } from './CompareLine.tsx';
import { ChartViewContext, FromView, ViewShade } from './chartView.tsx';
import type { SeriesView } from '../results/series.ts';

// Drawn from the view (chartView.tsx): module-level, so the chart's element stays the same
const drawSeries = (v: SeriesView) => (
  <>
    <SeriesBand x={v.spread.x} lo={v.spread.p10} hi={v.spread.p90} yAxisId="score" fill={C.band} />
    <SeriesLine x={v.spread.x} y={v.spread.median} yAxisId="score" stroke={C.median} width={1.2} dash="4 3" />
    <SeriesLine x={v.spread.x} y={v.spread.stdev} yAxisId="stdev" stroke={C.primary} width={2} />
  </>
);
const pickCollapse = (v: SeriesView) => v.spread.collapse;
const pickRelCollapse = (v: SeriesView) => v.spread.relevanceCollapse;
const drawCompactions = (v: SeriesView) => <CompactionMarkers turns={v.compactions} />;
const hover: Readout = (v, t) =>
  readout(v.spread.x, t, [
    { label: 'stdev', y: v.spread.stdev, color: C.primary },
    { label: 'p90', y: v.spread.p90, color: C.band },
    { label: 'median', y: v.spread.median, color: C.median },
    { label: 'p10', y: v.spread.p10, color: C.band },
  ]);

export function SpreadChart() {
  const { view, xd, minW, anchor, xTicks } = useTurnAxis(0);
  const s = view?.spread;
  const yStdev = useStableDomain(useMemo(() => (s ? stdevDomain(s) : ([0, 1] as [number, number])), [s]));
  const stdevTicks = useMemo(() => niceTicks(yStdev[0], yStdev[1], 5), [yStdev]);
  const yScore = useStableDomain(useMemo(() => (s ? scoreDomain(s) : ([0, 1] as [number, number])), [s]));
  const scoreTicks = useMemo(() => niceTicks(yScore[0], yScore[1], 5), [yScore]);
  const floor = s?.spreadFloor ?? 0.08;
  const bLegend = useCompareLegend('stdev of scores');
  // the same element while the axes and shaded ranges are: a data update re-renders the series only
  const plot = useMemo(
    () => (
      <ChartBox height={CHART_HEIGHT}>
        <ComposedChart data={anchor} margin={CHART_MARGIN}>
          <CartesianGrid stroke={C.grid} vertical={false} yAxisId="stdev" />
          <XAxis {...turnXAxis(xTicks, xd)} />
          <YAxis {...VALUE_Y_AXIS} yAxisId="stdev" domain={yStdev} ticks={stdevTicks} width={56} label={yLabel('stdev (score units)', 'left')} />
          <YAxis {...VALUE_Y_AXIS} yAxisId="score" orientation="right" domain={yScore} ticks={scoreTicks} width={52} label={yLabel('score', 'right')} />
          <ViewShade pick={pickCollapse} minWidth={minW} fill={C.shadeWarn} opacity={0.35} />
          <ViewShade pick={pickRelCollapse} minWidth={minW} fill={C.shadeFault} opacity={0.35} />
          <FromView draw={drawSeries} />
          <CompareLine pick={B_SERIES.spread} yAxisId="stdev" />
          {/* Rule, not Recharts' ReferenceLine: it re-registers itself on every render (docs/perf-log/notebook.md) */}
          <Rule yAxisId="stdev" y={floor} stroke={C.fault} dash="6 4" width={1.5} label={`spread_floor ${floor}`} />
          <FromView draw={drawCompactions} />
          <TurnOverlay readout={hover} />
        </ComposedChart>
      </ChartBox>
    ),
    [anchor, xTicks, xd, yStdev, stdevTicks, yScore, scoreTicks, minW, floor],
  );
  return (
    <ChartFrame
      testId="chart-spread"
      title="Score spread"
      subtitle={
        <>
          Population stdev of the scores per turn against the <code>spread_floor</code> ({floor}); shaded where <code>spread_collapse</code> fired (stdev under
          the floor for several snapshots) and darker where it became a <code>relevance_collapse</code>.
        </>
      }
      state={view === null ? 'loading' : s && s.x.length > 0 ? 'ready' : 'empty'}
      points={s?.x.length ?? 0}
      legend={[
        { label: 'stdev of scores (left axis)', color: C.primary, kind: 'line' },
        { label: `spread_floor ${floor}`, color: C.fault, kind: 'dash' },
        { label: 'scores p10–p90 (right axis)', color: C.band, kind: 'area' },
        { label: 'median score (right axis)', color: C.median, kind: 'dash' },
        { label: 'spread_collapse', color: C.shadeWarn, kind: 'shade' },
        { label: 'relevance_collapse', color: C.shadeFault, kind: 'shade' },
        ...bLegend,
        ...(view && view.compactions.length > 0 ? [COMPACTION_LEGEND] : []),
      ]}
    >
      <ChartViewContext.Provider value={view}>{plot}</ChartViewContext.Provider>
    </ChartFrame>
  );
}
