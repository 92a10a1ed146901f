import { useMemo } from 'react';
import { Area, CartesianGrid, ComposedChart, ReferenceArea, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { ChartFrame } from '../../components/ChartFrame.tsx';
import { C } from '../../components/theme.ts';
import { useAnalysis } from '../../stores/analysis.ts';
import { useUi } from '../../stores/ui.ts';
import { AXIS_TICK, CHART_MARGIN, fmtInt, turnAxisLabel } from './common.tsx';
import { LineageGraph } from './LineageGraph.tsx';
import { bandRanges, minBandWidth, orphanRows, xDomain } from './rows.ts';
import { TurnOverlay } from './TurnOverlay.tsx';

export function OrphansChart() {
  const view = useAnalysis((s) => s.view);
  const width = useUi((s) => s.chartWidth);
  const s = view?.orphans;
  const rows = useMemo(() => (s ? orphanRows(s) : []), [s]);
  const minW = view ? minBandWidth(view.from, view.to, width) : 1;
  const bands = useMemo(() => (s ? bandRanges(s.orphaned, minW) : []), [s, minW]);
  return (
    <ChartFrame
      testId="chart-orphans"
      title="Orphaned lineage"
      subtitle={
        <>
          Orphan edges per turn: distinct (live span, missing parent) pairs of <code>derived_from</code>. Below, the derivation graph of the selected turn;
          missing parents are dashed ghost nodes.
        </>
      }
      state={view === null ? 'loading' : rows.length > 0 ? 'ready' : 'empty'}
      points={rows.length}
      legend={[
        { label: 'orphan edges', color: C.fault, kind: 'area' },
        { label: 'orphaned_parent fired', color: C.shadeFault, kind: 'shade' },
      ]}
      footer={<LineageGraph />}
    >
      <ResponsiveContainer width="100%" height={150}>
        <ComposedChart data={rows} margin={CHART_MARGIN}>
          <CartesianGrid stroke={C.grid} vertical={false} />
          <XAxis dataKey="x" type="number" domain={view ? xDomain(view.from, view.to) : [0, 1]} allowDataOverflow tick={AXIS_TICK} label={turnAxisLabel} />
          <YAxis allowDecimals={false} domain={[0, (max: number) => Math.max(2, max)]} tick={AXIS_TICK} width={56} label={{ value: 'edges (count)', angle: -90, position: 'insideLeft', offset: 8, style: { fontSize: 11, fill: C.muted, textAnchor: 'middle' } }} />
          {bands.map((r, i) => (
            <ReferenceArea key={i} x1={r.x1} x2={r.x2} fill={C.shadeFault} fillOpacity={0.25} strokeOpacity={0} ifOverflow="hidden" />
          ))}
          <Area dataKey="edges" type="stepAfter" stroke={C.fault} fill={C.fault} fillOpacity={0.25} strokeWidth={1.5} isAnimationActive={false} name="orphan edges" />
          <Tooltip formatter={(v) => fmtInt(v)} labelFormatter={(l) => `turn ${String(l)}`} isAnimationActive={false} />
          <TurnOverlay />
        </ComposedChart>
      </ResponsiveContainer>
    </ChartFrame>
  );
}
