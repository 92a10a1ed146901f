import { useMemo } from 'react';
import { CartesianGrid, ComposedChart, XAxis, YAxis } from 'recharts';
import { ChartFrame } from '../../components/ChartFrame.tsx';
import { ChartBox } from './fixedSize.tsx';
import { C } from '../../components/theme.ts';
import { AXIS_TICK, CHART_HEIGHT, CHART_MARGIN, turnAxisLabel, yLabel } from './common.tsx';
import { useStableDomain, useStableRanges, useTurnAxis } from './common.tsx';
import { niceTicks, bandRanges, readout, scoreDomain, stdevDomain } from './rows.ts';
import { Rule, SeriesBand, SeriesLine, Shade } from './Series.tsx';
import { CompactionMarkers, COMPACTION_LEGEND } from './CompactionMarkers.tsx';
import { TurnOverlay, type Readout } from './TurnOverlay.tsx';
import { B_SERIES, CompareLine, useCompareLegend } from '../compare/CompareLine.tsx';

export function SpreadChart() {
  const { view, xd, minW, anchor, xTicks } = useTurnAxis(0);
  const s = view?.spread;
  const yStdev = useStableDomain(useMemo(() => (s ? stdevDomain(s) : ([0, 1] as [number, number])), [s]));
  const stdevTicks = useMemo(() => niceTicks(yStdev[0], yStdev[1], 5), [yStdev]);
  const yScore = useStableDomain(useMemo(() => (s ? scoreDomain(s) : ([0, 1] as [number, number])), [s]));
  const scoreTicks = useMemo(() => niceTicks(yScore[0], yScore[1], 5), [yScore]);
  const collapse = useStableRanges(useMemo(() => (s ? bandRanges(s.collapse, minW) : []), [s, minW]));
  const relCollapse = useStableRanges(useMemo(() => (s ? bandRanges(s.relevanceCollapse, minW) : []), [s, minW]));
  const floor = s?.spreadFloor ?? 0.08;
  const bLegend = useCompareLegend('stdev of scores');
  const hover: Readout | undefined = s
    ? (t) =>
        readout(s.x, t, [
          { label: 'stdev', y: s.stdev, color: C.primary },
          { label: 'p90', y: s.p90, color: C.band },
          { label: 'median', y: s.median, color: C.median },
          { label: 'p10', y: s.p10, color: C.band },
        ])
    : undefined;
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
      <ChartBox height={CHART_HEIGHT}>
        <ComposedChart data={anchor} margin={CHART_MARGIN}>
          <CartesianGrid stroke={C.grid} vertical={false} yAxisId="stdev" />
          <XAxis dataKey="x" type="number" interval={0} ticks={xTicks} domain={xd} allowDataOverflow tick={AXIS_TICK} label={turnAxisLabel} />
          <YAxis
            interval={0}
            yAxisId="stdev"
            type="number"
            domain={yStdev}
            ticks={stdevTicks}
            allowDataOverflow
            tick={AXIS_TICK}
            width={56}
            label={yLabel('stdev (score units)', 'left')}
          />
          <YAxis
            interval={0}
            yAxisId="score"
            type="number"
            orientation="right"
            domain={yScore}
            ticks={scoreTicks}
            allowDataOverflow
            tick={AXIS_TICK}
            width={52}
            label={yLabel('score', 'right')}
          />
          <Shade ranges={collapse} fill={C.shadeWarn} opacity={0.35} />
          <Shade ranges={relCollapse} fill={C.shadeFault} opacity={0.35} />
          {s && <SeriesBand x={s.x} lo={s.p10} hi={s.p90} yAxisId="score" fill={C.band} />}
          {s && <SeriesLine x={s.x} y={s.median} yAxisId="score" stroke={C.median} width={1.2} dash="4 3" />}
          {s && <SeriesLine x={s.x} y={s.stdev} yAxisId="stdev" stroke={C.primary} width={2} />}
          <CompareLine pick={B_SERIES.spread} yAxisId="stdev" />
          {/* Rule, not Recharts' ReferenceLine: it re-registers itself on every render (docs/performance.md) */}
          <Rule yAxisId="stdev" y={floor} stroke={C.fault} dash="6 4" width={1.5} label={`spread_floor ${floor}`} />
          <CompactionMarkers turns={view?.compactions} />
          <TurnOverlay readout={hover} />
        </ComposedChart>
      </ChartBox>
    </ChartFrame>
  );
}
