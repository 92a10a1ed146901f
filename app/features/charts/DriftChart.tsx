import { useMemo } from 'react';
import { Area, CartesianGrid, ComposedChart, Line, ReferenceArea, ResponsiveContainer, Scatter, Tooltip, XAxis, YAxis, ZAxis } from 'recharts';
import { ChartFrame } from '../../components/ChartFrame.tsx';
import { C } from '../../components/theme.ts';
import { useAnalysis } from '../../stores/analysis.ts';
import { useUi } from '../../stores/ui.ts';
import { AXIS_TICK, CHART_HEIGHT, CHART_MARGIN, fmtInt, fmtScore, turnAxisLabel } from './common.tsx';
import { bandRanges, driftRows, markerPoints, minBandWidth, xDomain } from './rows.ts';
import { TurnOverlay } from './TurnOverlay.tsx';

export function DriftChart() {
  const view = useAnalysis((s) => s.view);
  const width = useUi((s) => s.chartWidth);
  const s = view?.drift;
  const rows = useMemo(() => (s ? driftRows(s) : []), [s]);
  const infl = useMemo(() => (s ? markerPoints(s.inflationX, s.inflationMean) : []), [s]);
  const drift = useMemo(() => (s ? markerPoints(s.driftX, s.driftMean) : []), [s]);
  const minW = view ? minBandWidth(view.from, view.to, width) : 1;
  const inflBands = useMemo(() => (s ? bandRanges(s.inflation, minW) : []), [s, minW]);
  const driftBands = useMemo(() => (s ? bandRanges(s.drift, minW) : []), [s, minW]);
  const tol = s?.tolerance ?? 0.05;
  return (
    <ChartFrame
      testId="chart-drift"
      title="Relevance vs tokens"
      subtitle={
        <>
          Total tokens (left) and mean relevance (right) per turn. The green band is the previous turn&apos;s mean ±{+(tol * 100).toFixed(2)}% (
          <code>relevance_tolerance</code>): a healthy rewrite shrinks tokens and keeps the mean inside it. Marked: <code>relevance_inflation</code> and{' '}
          <code>monotonic_drift</code>.{s && !s.hasRewrites ? ' No rewrite turn yet, so inflation cannot fire.' : ''}
        </>
      }
      state={view === null ? 'loading' : rows.length > 0 ? 'ready' : 'empty'}
      points={rows.length}
      legend={[
        { label: 'tokens_total (left axis)', color: C.tokens, kind: 'line' },
        { label: 'mean relevance (right axis)', color: C.mean, kind: 'line' },
        { label: `previous mean ±${+(tol * 100).toFixed(2)}%`, color: C.tolBand, kind: 'area' },
        { label: 'relevance_inflation', color: C.warning, kind: 'dot' },
        { label: 'monotonic_drift', color: C.fault, kind: 'dot' },
      ]}
    >
      <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
        <ComposedChart data={rows} margin={CHART_MARGIN}>
          <CartesianGrid stroke={C.grid} vertical={false} />
          <XAxis dataKey="x" type="number" domain={view ? xDomain(view.from, view.to) : [0, 1]} allowDataOverflow tick={AXIS_TICK} label={turnAxisLabel} />
          <YAxis yAxisId="tokens" domain={[0, 'auto']} tick={AXIS_TICK} width={56} tickFormatter={(v: number) => (v >= 10000 ? `${Math.round(v / 1000)}k` : String(v))} label={{ value: 'tokens', angle: -90, position: 'insideLeft', offset: 8, style: { fontSize: 11, fill: C.muted, textAnchor: 'middle' } }} />
          <YAxis yAxisId="mean" orientation="right" domain={['auto', 'auto']} tick={AXIS_TICK} width={52} tickFormatter={(v: number) => v.toFixed(2)} label={{ value: 'mean relevance', angle: 90, position: 'insideRight', offset: 8, style: { fontSize: 11, fill: C.muted, textAnchor: 'middle' } }} />
          {inflBands.map((r, i) => (
            <ReferenceArea key={`i${i}`} yAxisId="mean" x1={r.x1} x2={r.x2} fill={C.shadeWarn} fillOpacity={0.3} strokeOpacity={0} ifOverflow="hidden" />
          ))}
          {driftBands.map((r, i) => (
            <ReferenceArea key={`d${i}`} yAxisId="mean" x1={r.x1} x2={r.x2} fill={C.shadeFault} fillOpacity={0.3} strokeOpacity={0} ifOverflow="hidden" />
          ))}
          <ZAxis range={[36, 36]} />
          <Area yAxisId="mean" dataKey="band" stroke="none" fill={C.tolBand} fillOpacity={0.8} isAnimationActive={false} connectNulls={false} name="previous mean ± tolerance" />
          <Line yAxisId="tokens" dataKey="tokens" stroke={C.tokens} strokeWidth={1.5} dot={false} isAnimationActive={false} connectNulls={false} name="tokens_total" />
          <Line yAxisId="mean" dataKey="mean" stroke={C.mean} strokeWidth={2} dot={false} isAnimationActive={false} connectNulls={false} name="mean relevance" />
          <Scatter yAxisId="mean" data={infl} dataKey="y" fill={C.warning} shape="triangle" isAnimationActive={false} name="relevance_inflation" />
          <Scatter yAxisId="mean" data={drift} dataKey="y" fill={C.fault} shape="diamond" isAnimationActive={false} name="monotonic_drift" />
          <Tooltip
            formatter={(v, name) => (Array.isArray(v) ? `${fmtScore(v[0])} – ${fmtScore(v[1])}` : name === 'tokens_total' ? fmtInt(v) : fmtScore(v))}
            labelFormatter={(l) => `turn ${String(l)}`}
            isAnimationActive={false}
          />
          <TurnOverlay />
        </ComposedChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
}
