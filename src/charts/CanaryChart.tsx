import { useMemo } from 'react';
import { CartesianGrid, ComposedChart, XAxis, YAxis } from 'recharts';
import { ChartFrame, type LegendItem } from './ChartFrame.tsx';
import { ChartBox } from './fixedSize.tsx';
import { C, CANARY_COLORS } from './theme.ts';
import { CHART_HEIGHT, CHART_MARGIN, turnXAxis, VALUE_Y_AXIS, yLabel } from './common.tsx';
import { useStableDomain, useTurnAxis } from './common.tsx';
import { niceTicks, rankDomain, readout } from './rows.ts';
import { SeriesLine, SeriesMarkers } from './Series.tsx';
import { CompactionMarkers, COMPACTION_LEGEND } from './CompactionMarkers.tsx';
import { TurnOverlay, type Readout } from './TurnOverlay.tsx';
import { B_SERIES, CompareLine, useCompareLegend } from './CompareLine.tsx';
import { ChartViewContext, FromView, ViewShade } from './chartView.tsx';
import type { SeriesView } from '../results/series.ts';

const color = (k: number): string => CANARY_COLORS[k % CANARY_COLORS.length]!;

// Drawn from the view (chartView.tsx): module-level, so the chart's element stays the same
const drawSeries = (v: SeriesView) => {
  const s = v.canary;
  return (
    <>
      <SeriesLine x={s.x} y={s.medianRank} stroke={C.median} width={1.5} dash="5 4" />
      {s.canaries.map((c, k) => (
        <SeriesLine key={c.spanId} x={s.x} y={c.rank} stroke={color(k)} width={2} />
      ))}
    </>
  );
};
const drawMarkers = (v: SeriesView) => {
  const s = v.canary;
  return s.inversionX.length > 0 ? <SeriesMarkers x={s.inversionX} y={s.inversionRank} fill={C.fault} shape="circle" r={3} /> : null;
};
const pickNone = (v: SeriesView) => v.canary.noCanary;
const pickInversions = (v: SeriesView) => v.canary.inversions;
const drawCompactions = (v: SeriesView) => <CompactionMarkers turns={v.compactions} />;
const hover: Readout = (v, t) => {
  const s = v.canary;
  return readout(s.x, t, [
    ...s.canaries.map((c, k) => ({
      label: `rank of ${c.spanId.length > 14 ? c.spanId.slice(0, 13) + '…' : c.spanId}`,
      y: c.rank,
      color: color(k),
      digits: 0,
    })),
    { label: 'median rank', y: s.medianRank, color: C.median, digits: 1 },
    { label: 'scored spans', y: s.nScored, color: C.muted, digits: 0 },
  ]);
};

export function CanaryChart() {
  const { view, xd, minW, anchor, xTicks } = useTurnAxis(1);
  const s = view?.canary;
  const yRank = useStableDomain(useMemo(() => (s ? rankDomain(s) : ([1, 10] as [number, number])), [s]));
  const rankTicks = useMemo(() => [1, ...niceTicks(yRank[0], yRank[1], 5).filter((v) => v > 1)], [yRank]);
  const hasCanary = s?.hasCanary ?? false;
  const bLegend = useCompareLegend('rank of its first pinned span');
  const legend: LegendItem[] = [
    ...(s?.canaries ?? []).map((c, k) => ({ label: `pinned ${c.spanId}`, color: color(k), kind: 'line' as const })),
    { label: 'median rank', color: C.median, kind: 'dash' },
    { label: 'below the median (canary_inversion)', color: C.fault, kind: 'dot' },
    { label: 'no scored canary', color: C.shadeNone, kind: 'shade' },
    ...bLegend,
    ...(view && view.compactions.length > 0 ? [COMPACTION_LEGEND] : []),
  ];
  // the same element while the axes and shaded ranges are: a data update re-renders the series only
  const plot = useMemo(
    () => (
      <ChartBox height={CHART_HEIGHT}>
        <ComposedChart data={anchor} margin={CHART_MARGIN}>
          <CartesianGrid stroke={C.grid} vertical={false} />
          <XAxis {...turnXAxis(xTicks, xd)} />
          <YAxis {...VALUE_Y_AXIS} reversed domain={yRank} ticks={rankTicks} allowDecimals={false} width={56} label={yLabel('rank (1 = top)', 'left')} />
          <ViewShade pick={pickNone} minWidth={minW} fill={C.shadeNone} opacity={0.5} />
          <ViewShade pick={pickInversions} minWidth={minW} fill={C.shadeFault} opacity={0.18} />
          <FromView draw={drawSeries} />
          <CompareLine pick={B_SERIES.canary} />
          <FromView draw={drawMarkers} />
          <FromView draw={drawCompactions} />
          <TurnOverlay readout={hover} />
        </ComposedChart>
      </ChartBox>
    ),
    [anchor, xTicks, xd, yRank, rankTicks, minW],
  );
  return (
    <ChartFrame
      testId="chart-canary"
      title="Canary rank"
      subtitle={
        <>
          Rank of each pinned span among the scored spans (1 = highest score) against the median rank. A healthy scorer keeps canaries near the top; a canary
          below the median line is an inversion.
          {s && s.hiddenCanaries > 0 ? ` ${s.hiddenCanaries} more pinned spans not drawn (the ${s.canaries.length} most often inverted are).` : ''}
        </>
      }
      state={view === null ? 'loading' : !hasCanary ? 'empty' : 'ready'}
      points={s?.x.length ?? 0}
      legend={hasCanary ? legend : []}
    >
      {view !== null && !hasCanary ? (
        <div className="chart-empty" role="note" style={{ height: CHART_HEIGHT }}>
          <strong>No canary in this session</strong>
          <span>
            (contract §4 <code>no_canary</code>) No pinned span carries a finite score, so relevance collapse cannot be detected. Pin at least one load-bearing
            span (for example the task statement) and keep scoring it.
          </span>
        </div>
      ) : (
        <ChartViewContext.Provider value={view}>{plot}</ChartViewContext.Provider>
      )}
    </ChartFrame>
  );
}
