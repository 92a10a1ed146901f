import { useMemo } from 'react';
import { CartesianGrid, ComposedChart, Line, ReferenceArea, ResponsiveContainer, Scatter, Tooltip, XAxis, YAxis, ZAxis } from 'recharts';
import { ChartFrame, type LegendItem } from '../../components/ChartFrame.tsx';
import { C, CANARY_COLORS } from '../../components/theme.ts';
import { useAnalysis } from '../../stores/analysis.ts';
import { useUi } from '../../stores/ui.ts';
import { AXIS_TICK, CHART_HEIGHT, CHART_MARGIN, turnAxisLabel } from './common.tsx';
import { bandRanges, canaryPoints, canaryRows, maxRank, minBandWidth, xDomain } from './rows.ts';
import { TurnOverlay } from './TurnOverlay.tsx';

export function CanaryChart() {
  const view = useAnalysis((s) => s.view);
  const width = useUi((s) => s.chartWidth);
  const s = view?.canary;
  const rows = useMemo(() => (s ? canaryRows(s) : []), [s]);
  const points = useMemo(() => (s ? canaryPoints(s) : []), [s]);
  const minW = view ? minBandWidth(view.from, view.to, width) : 1;
  const inv = useMemo(() => (s ? bandRanges(s.inversions, minW) : []), [s, minW]);
  const none = useMemo(() => (s ? bandRanges(s.noCanary, minW) : []), [s, minW]);
  const hasCanary = s?.hasCanary ?? false;
  const legend: LegendItem[] = [
    ...(s?.canaries ?? []).map((c, k) => ({ label: `pinned ${c.spanId}`, color: CANARY_COLORS[k % CANARY_COLORS.length]!, kind: 'line' as const })),
    { label: 'median rank', color: C.median, kind: 'dash' },
    { label: 'below the median (canary_inversion)', color: C.fault, kind: 'dot' },
    { label: 'no scored canary', color: C.shadeNone, kind: 'shade' },
  ];
  const state = view === null ? 'loading' : !hasCanary ? 'empty' : 'ready';
  return (
    <ChartFrame
      testId="chart-canary"
      title="Canary rank"
      subtitle={
        <>
          Rank of each pinned span among the scored spans (1 = highest score) against the median rank. A healthy scorer keeps canaries near the top; a
          canary below the median line is an inversion.
          {s && s.hiddenCanaries > 0 ? ` ${s.hiddenCanaries} more pinned spans not drawn (the ${s.canaries.length} most often inverted are).` : ''}
        </>
      }
      state={state}
      points={rows.length}
      legend={hasCanary ? legend : []}
    >
      {view !== null && !hasCanary ? (
        <div className="chart-empty" role="note" style={{ height: CHART_HEIGHT }}>
          <strong>No canary in this session</strong> (SPEC <code>no_canary</code>): no pinned span carries a finite score, so relevance collapse cannot be
          detected. Pin at least one load-bearing span (for example the task statement) and keep scoring it.
        </div>
      ) : (
        <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
          <ComposedChart data={rows} margin={CHART_MARGIN}>
            <CartesianGrid stroke={C.grid} vertical={false} />
            <XAxis dataKey="x" type="number" domain={view ? xDomain(view.from, view.to) : [0, 1]} allowDataOverflow tick={AXIS_TICK} label={turnAxisLabel} />
            <YAxis reversed domain={[1, s ? maxRank(s) : 10]} allowDecimals={false} tick={AXIS_TICK} width={56} label={{ value: 'rank (1 = top)', angle: -90, position: 'insideLeft', offset: 8, style: { fontSize: 11, fill: C.muted, textAnchor: 'middle' } }} />
            {none.map((r, i) => (
              <ReferenceArea key={`n${i}`} x1={r.x1} x2={r.x2} fill={C.shadeNone} fillOpacity={0.5} strokeOpacity={0} ifOverflow="hidden" />
            ))}
            {inv.map((r, i) => (
              <ReferenceArea key={`i${i}`} x1={r.x1} x2={r.x2} fill={C.shadeFault} fillOpacity={0.18} strokeOpacity={0} ifOverflow="hidden" />
            ))}
            <ZAxis range={[22, 22]} />
            <Line dataKey="median" stroke={C.median} strokeDasharray="5 4" strokeWidth={1.5} dot={false} isAnimationActive={false} connectNulls={false} name="median rank" />
            {(s?.canaries ?? []).map((c, k) => (
              <Line key={c.spanId} dataKey={`c${k}`} stroke={CANARY_COLORS[k % CANARY_COLORS.length]} strokeWidth={2} dot={false} isAnimationActive={false} connectNulls={false} name={`pinned ${c.spanId}`} />
            ))}
            <Scatter data={points} dataKey="rank" fill={C.fault} shape="circle" isAnimationActive={false} name="inverted canary" legendType="none" />
            <Tooltip labelFormatter={(l) => `turn ${String(l)}`} isAnimationActive={false} />
            <TurnOverlay />
          </ComposedChart>
        </ResponsiveContainer>
      )}
    </ChartFrame>
  );
}
