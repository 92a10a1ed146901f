import { useMemo } from 'react';
import { Area, CartesianGrid, ComposedChart, Line, ReferenceArea, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { ChartFrame } from '../../components/ChartFrame.tsx';
import { C } from '../../components/theme.ts';
import { useAnalysis } from '../../stores/analysis.ts';
import { useUi } from '../../stores/ui.ts';
import { bandRanges, minBandWidth, spreadRows, stdevDomainMax, xDomain } from './rows.ts';
import { AXIS_TICK, CHART_HEIGHT, CHART_MARGIN, fmtScore, turnAxisLabel } from './common.tsx';
import { TurnOverlay } from './TurnOverlay.tsx';

export function SpreadChart() {
  const view = useAnalysis((s) => s.view);
  const width = useUi((s) => s.chartWidth);
  const s = view?.spread;
  const rows = useMemo(() => (s ? spreadRows(s) : []), [s]);
  const minW = view ? minBandWidth(view.from, view.to, width) : 1;
  const collapse = useMemo(() => (s ? bandRanges(s.collapse, minW) : []), [s, minW]);
  const relCollapse = useMemo(() => (s ? bandRanges(s.relevanceCollapse, minW) : []), [s, minW]);
  const floor = s?.spreadFloor ?? 0.08;
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
      state={view === null ? 'loading' : rows.length > 0 ? 'ready' : 'empty'}
      points={rows.length}
      legend={[
        { label: 'stdev of scores (left axis)', color: C.primary, kind: 'line' },
        { label: `spread_floor ${floor}`, color: C.fault, kind: 'dash' },
        { label: 'scores p10–p90 (right axis)', color: C.band, kind: 'area' },
        { label: 'median score (right axis)', color: C.median, kind: 'dash' },
        { label: 'spread_collapse', color: C.shadeWarn, kind: 'shade' },
        { label: 'relevance_collapse', color: C.shadeFault, kind: 'shade' },
      ]}
    >
      <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
        <ComposedChart data={rows} margin={CHART_MARGIN}>
          <CartesianGrid stroke={C.grid} vertical={false} />
          <XAxis dataKey="x" type="number" domain={view ? xDomain(view.from, view.to) : [0, 1]} allowDataOverflow tick={AXIS_TICK} label={turnAxisLabel} />
          <YAxis yAxisId="stdev" domain={[0, s ? stdevDomainMax(s) : 1]} allowDataOverflow tick={AXIS_TICK} width={56} label={{ value: 'stdev (score units)', angle: -90, position: 'insideLeft', offset: 8, style: { fontSize: 11, fill: C.muted, textAnchor: 'middle' } }} />
          <YAxis yAxisId="score" orientation="right" domain={['auto', 'auto']} tick={AXIS_TICK} width={52} label={{ value: 'score', angle: 90, position: 'insideRight', offset: 8, style: { fontSize: 11, fill: C.muted, textAnchor: 'middle' } }} />
          {collapse.map((r, i) => (
            <ReferenceArea key={`c${i}`} yAxisId="stdev" x1={r.x1} x2={r.x2} fill={C.shadeWarn} fillOpacity={0.35} strokeOpacity={0} ifOverflow="hidden" />
          ))}
          {relCollapse.map((r, i) => (
            <ReferenceArea key={`r${i}`} yAxisId="stdev" x1={r.x1} x2={r.x2} fill={C.shadeFault} fillOpacity={0.35} strokeOpacity={0} ifOverflow="hidden" />
          ))}
          <Area yAxisId="score" dataKey="band" stroke="none" fill={C.band} fillOpacity={0.6} isAnimationActive={false} connectNulls={false} name="scores p10–p90" />
          <Line yAxisId="score" dataKey="median" stroke={C.median} strokeDasharray="4 3" strokeWidth={1.2} dot={false} isAnimationActive={false} connectNulls={false} name="median score" />
          <Line yAxisId="stdev" dataKey="stdev" stroke={C.primary} strokeWidth={2} dot={false} isAnimationActive={false} connectNulls={false} name="stdev" />
          <ReferenceLine yAxisId="stdev" y={floor} stroke={C.fault} strokeDasharray="6 4" strokeWidth={1.5} ifOverflow="extendDomain" label={{ value: `spread_floor ${floor}`, position: 'insideTopLeft', fontSize: 11, fill: C.fault }} />
          <Tooltip formatter={(v) => (Array.isArray(v) ? `${fmtScore(v[0])} – ${fmtScore(v[1])}` : fmtScore(v))} labelFormatter={(l) => `turn ${String(l)}`} isAnimationActive={false} />
          <TurnOverlay />
        </ComposedChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
}
