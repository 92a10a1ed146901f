import { useMemo } from 'react';
import { CartesianGrid, ComposedChart, XAxis, YAxis } from 'recharts';
import { ChartFrame } from '../../components/ChartFrame.tsx';
import { ChartBox } from './fixedSize.tsx';
import { C } from '../../components/theme.ts';
import { AXIS_TICK, CHART_HEIGHT, CHART_MARGIN, thousands, turnAxisLabel, twoDecimals, yLabel } from './common.tsx';
import { useStableDomain, useStableRanges, useTurnAxis } from './common.tsx';
import { niceTicks, bandRanges, meanDomain, readout, tokensDomain } from './rows.ts';
import { SeriesBand, SeriesLine, SeriesMarkers, Shade } from './Series.tsx';
import { CompactionMarkers, COMPACTION_LEGEND } from './CompactionMarkers.tsx';
import { TurnOverlay, type Readout } from './TurnOverlay.tsx';
import { B_SERIES, CompareLine, useCompareLegend } from '../compare/CompareLine.tsx';

export function DriftChart() {
  const { view, xd, minW, anchor, xTicks } = useTurnAxis(2);
  const s = view?.drift;
  const yTokens = useStableDomain(useMemo(() => (s ? tokensDomain(s) : ([0, 1] as [number, number])), [s]));
  const tokensTicks = useMemo(() => niceTicks(yTokens[0], yTokens[1], 5), [yTokens]);
  const yMean = useStableDomain(useMemo(() => (s ? meanDomain(s) : ([0, 1] as [number, number])), [s]));
  const meanTicks = useMemo(() => niceTicks(yMean[0], yMean[1], 5), [yMean]);
  const inflBands = useStableRanges(useMemo(() => (s ? bandRanges(s.inflation, minW) : []), [s, minW]));
  const driftBands = useStableRanges(useMemo(() => (s ? bandRanges(s.drift, minW) : []), [s, minW]));
  const tol = s?.tolerance ?? 0.05;
  const bLegend = useCompareLegend('mean relevance');
  const tolPct = `±${+(tol * 100).toFixed(2)}%`;
  const hover: Readout | undefined = s
    ? (t) =>
        readout(s.x, t, [
          { label: 'tokens_total', y: s.tokens, color: C.tokens, digits: 0 },
          { label: 'mean relevance', y: s.mean, color: C.mean },
          { label: `prev. mean −${+(tol * 100).toFixed(2)}%`, y: s.bandLow, color: C.tolBand },
          { label: `prev. mean +${+(tol * 100).toFixed(2)}%`, y: s.bandHigh, color: C.tolBand },
        ])
    : undefined;
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
      <ChartBox height={CHART_HEIGHT}>
        <ComposedChart data={anchor} margin={CHART_MARGIN}>
          <CartesianGrid stroke={C.grid} vertical={false} yAxisId="tokens" />
          <XAxis dataKey="x" type="number" interval={0} ticks={xTicks} domain={xd} allowDataOverflow tick={AXIS_TICK} label={turnAxisLabel} />
          <YAxis
            interval={0}
            yAxisId="tokens"
            type="number"
            domain={yTokens}
            ticks={tokensTicks}
            allowDataOverflow
            tick={AXIS_TICK}
            width={56}
            tickFormatter={thousands}
            label={yLabel('tokens', 'left')}
          />
          <YAxis
            interval={0}
            yAxisId="mean"
            type="number"
            orientation="right"
            domain={yMean}
            ticks={meanTicks}
            allowDataOverflow
            tick={AXIS_TICK}
            width={52}
            tickFormatter={twoDecimals}
            label={yLabel('mean relevance', 'right')}
          />
          <Shade ranges={inflBands} fill={C.shadeWarn} opacity={0.3} />
          <Shade ranges={driftBands} fill={C.shadeFault} opacity={0.3} />
          {s && <SeriesBand x={s.x} lo={s.bandLow} hi={s.bandHigh} yAxisId="mean" fill={C.tolBand} opacity={0.85} />}
          {s && <SeriesLine x={s.x} y={s.tokens} yAxisId="tokens" stroke={C.tokens} width={1.5} />}
          {s && <SeriesLine x={s.x} y={s.mean} yAxisId="mean" stroke={C.mean} width={2} />}
          <CompareLine pick={B_SERIES.drift} yAxisId="mean" />
          {s && s.inflationX.length > 0 && <SeriesMarkers x={s.inflationX} y={s.inflationMean} yAxisId="mean" fill={C.warning} shape="triangle" r={4} />}
          {s && s.driftX.length > 0 && <SeriesMarkers x={s.driftX} y={s.driftMean} yAxisId="mean" fill={C.fault} shape="diamond" r={4} />}
          <CompactionMarkers turns={view?.compactions} />
          <TurnOverlay readout={hover} />
        </ComposedChart>
      </ChartBox>
    </ChartFrame>
  );
}
