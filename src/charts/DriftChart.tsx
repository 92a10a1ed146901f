import { useMemo } from 'react';
import { CartesianGrid, ComposedChart, XAxis, YAxis } from 'recharts';
import { ChartFrame } from './ChartFrame.tsx';
import { ChartBox } from './fixedSize.tsx';
import { C } from './theme.ts';
import { CHART_HEIGHT, CHART_MARGIN, thousands, turnXAxis, twoDecimals, VALUE_Y_AXIS, yLabel } from './common.tsx';
import { useStableDomain, useTurnAxis } from './common.tsx';
import { niceTicks, meanDomain, readout, tokensDomain } from './rows.ts';
import { SeriesBand, SeriesLine, SeriesMarkers } from './Series.tsx';
import { CompactionMarkers, COMPACTION_LEGEND } from './CompactionMarkers.tsx';
import { TurnOverlay, type Readout } from './TurnOverlay.tsx';
import { ChartViewContext, FromView, ViewShade } from './chartView.tsx';
import type { SeriesView } from '../results/series.ts';
import { B_SERIES, CompareLine, useCompareLegend } from './CompareLine.tsx';

// Drawn from the view (chartView.tsx): module-level, so the chart's element stays the same
const drawBand = (v: SeriesView) => <SeriesBand x={v.drift.x} lo={v.drift.bandLow} hi={v.drift.bandHigh} yAxisId="mean" fill={C.tolBand} opacity={0.85} />;
const drawLines = (v: SeriesView) => (
  <>
    <SeriesLine x={v.drift.x} y={v.drift.tokens} yAxisId="tokens" stroke={C.tokens} width={1.5} />
    <SeriesLine x={v.drift.x} y={v.drift.mean} yAxisId="mean" stroke={C.mean} width={2} />
  </>
);
const drawMarkers = (v: SeriesView) => {
  const s = v.drift;
  return (
    <>
      {s.inflationX.length > 0 && <SeriesMarkers x={s.inflationX} y={s.inflationMean} yAxisId="mean" fill={C.warning} shape="triangle" r={4} />}
      {s.driftX.length > 0 && <SeriesMarkers x={s.driftX} y={s.driftMean} yAxisId="mean" fill={C.fault} shape="diamond" r={4} />}
    </>
  );
};
const pickInflation = (v: SeriesView) => v.drift.inflation;
const pickDrift = (v: SeriesView) => v.drift.drift;
const drawCompactions = (v: SeriesView) => <CompactionMarkers turns={v.compactions} />;
const hover: Readout = (v, t) => {
  const s = v.drift;
  const tol = s.tolerance ?? 0.05;
  return readout(s.x, t, [
    { label: 'tokens_total', y: s.tokens, color: C.tokens, digits: 0 },
    { label: 'mean relevance', y: s.mean, color: C.mean },
    { label: `prev. mean −${+(tol * 100).toFixed(2)}%`, y: s.bandLow, color: C.tolBand },
    { label: `prev. mean +${+(tol * 100).toFixed(2)}%`, y: s.bandHigh, color: C.tolBand },
  ]);
};

export function DriftChart() {
  const { view, xd, minW, anchor, xTicks } = useTurnAxis(2);
  const s = view?.drift;
  const yTokens = useStableDomain(useMemo(() => (s ? tokensDomain(s) : ([0, 1] as [number, number])), [s]));
  const tokensTicks = useMemo(() => niceTicks(yTokens[0], yTokens[1], 5), [yTokens]);
  const yMean = useStableDomain(useMemo(() => (s ? meanDomain(s) : ([0, 1] as [number, number])), [s]));
  const meanTicks = useMemo(() => niceTicks(yMean[0], yMean[1], 5), [yMean]);
  const tol = s?.tolerance ?? 0.05;
  const bLegend = useCompareLegend('mean relevance');
  const tolPct = `±${+(tol * 100).toFixed(2)}%`;
  // the same element while the axes and shaded ranges are: a data update re-renders the series only
  const plot = useMemo(
    () => (
      <ChartBox height={CHART_HEIGHT}>
        <ComposedChart data={anchor} margin={CHART_MARGIN}>
          <CartesianGrid stroke={C.grid} vertical={false} yAxisId="tokens" />
          <XAxis {...turnXAxis(xTicks, xd)} />
          <YAxis
            {...VALUE_Y_AXIS}
            yAxisId="tokens"
            domain={yTokens}
            ticks={tokensTicks}
            width={56}
            tickFormatter={thousands}
            label={yLabel('tokens', 'left')}
          />
          <YAxis
            {...VALUE_Y_AXIS}
            yAxisId="mean"
            orientation="right"
            domain={yMean}
            ticks={meanTicks}
            width={52}
            tickFormatter={twoDecimals}
            label={yLabel('mean relevance', 'right')}
          />
          <ViewShade pick={pickInflation} minWidth={minW} fill={C.shadeWarn} opacity={0.3} />
          <ViewShade pick={pickDrift} minWidth={minW} fill={C.shadeFault} opacity={0.3} />
          <FromView draw={drawBand} />
          <FromView draw={drawLines} />
          <CompareLine pick={B_SERIES.drift} yAxisId="mean" />
          <FromView draw={drawMarkers} />
          <FromView draw={drawCompactions} />
          <TurnOverlay readout={hover} />
        </ComposedChart>
      </ChartBox>
    ),
    [anchor, xTicks, xd, yTokens, tokensTicks, yMean, meanTicks, minW],
  );
  return (
    <ChartFrame
      testId="chart-drift"
      title="Relevance vs tokens"
      subtitle={
        <>
          Total tokens (left) and mean relevance (right) per turn. The green band is the previous turn&apos;s mean {tolPct} (<code>relevance_tolerance</code>):
          a healthy rewrite shrinks tokens and keeps the mean inside it. Marked: <code>relevance_inflation</code> and <code>monotonic_drift</code>.
          {s && !s.hasRewrites ? ' No rewrite turn yet, so inflation cannot fire.' : ''}
        </>
      }
      state={view === null ? 'loading' : s && s.x.length > 0 ? 'ready' : 'empty'}
      points={s?.x.length ?? 0}
      legend={[
        { label: 'tokens_total (left axis)', color: C.tokens, kind: 'line' },
        { label: 'mean relevance (right axis)', color: C.mean, kind: 'line' },
        { label: `previous mean ${tolPct}`, color: C.tolBand, kind: 'area' },
        { label: 'relevance_inflation', color: C.warning, kind: 'dot' },
        { label: 'monotonic_drift', color: C.fault, kind: 'dot' },
        ...bLegend,
        ...(view && view.compactions.length > 0 ? [COMPACTION_LEGEND] : []),
      ]}
    >
      <ChartViewContext.Provider value={view}>{plot}</ChartViewContext.Provider>
    </ChartFrame>
  );
}
