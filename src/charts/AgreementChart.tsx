// contract §7 reference_agreement: per turn, Kendall τ-b between the harness's ranking of
// the spans and the reference scorer's (BM25 against the task), with the
// reference_agreement_floor that reference_disagreement judges against. Drawn only when the
// session's snapshots carry an agreement (`both`).
import { useMemo } from 'react';
import { CartesianGrid, ComposedChart, XAxis, YAxis } from 'recharts';
import { ChartFrame } from './ChartFrame.tsx';
import { ChartBox } from './fixedSize.tsx';
import { C } from './theme.ts';
import { CHART_MARGIN, turnXAxis, useTurnAxis, VALUE_Y_AXIS, yLabel } from './common.tsx';
import { readout } from './rows.ts';
import { Rule, SeriesLine } from './Series.tsx';
import { CompactionMarkers, COMPACTION_LEGEND } from './CompactionMarkers.tsx';
import { TurnOverlay, type Readout } from './TurnOverlay.tsx';
import { ChartViewContext, FromView } from './chartView.tsx';
import type { SeriesView } from '../results/series.ts';

const TAU_DOMAIN: [number, number] = [-1, 1];
const TAU_TICKS = [-1, -0.5, 0, 0.5, 1];

// Drawn from the view (chartView.tsx): module-level, so the chart's element stays the same
const drawLine = (v: SeriesView) => (v.spread.agreement === null ? null : <SeriesLine x={v.spread.x} y={v.spread.agreement} stroke={C.primary} width={2} />);
const drawCompactions = (v: SeriesView) => <CompactionMarkers turns={v.compactions} />;
const hover: Readout = (v, t) =>
  v.spread.agreement === null ? null : readout(v.spread.x, t, [{ label: 'τ-b', y: v.spread.agreement, color: C.primary, digits: 3 }]);

export function AgreementChart() {
  const { view, xd, anchor, xTicks } = useTurnAxis(0);
  const s = view?.spread;
  const agreement = s?.agreement ?? null;
  const floor = s?.agreementFloor ?? 0;
  // the same element while the axes are: a data update re-renders the line only
  const plot = useMemo(
    () => (
      <ChartBox height={150}>
        <ComposedChart data={anchor} margin={CHART_MARGIN}>
          <CartesianGrid stroke={C.grid} vertical={false} />
          <XAxis {...turnXAxis(xTicks, xd)} />
          <YAxis {...VALUE_Y_AXIS} domain={TAU_DOMAIN} ticks={TAU_TICKS} width={56} label={yLabel('Kendall τ-b (−1 to 1)', 'left')} />
          <FromView draw={drawLine} />
          {/* Rule, not Recharts' ReferenceLine: it re-registers itself on every render (docs/perf-log/notebook.md) */}
          <Rule y={floor} stroke={C.warning} dash="6 4" width={1.5} label={`reference_agreement_floor ${floor}`} />
          <FromView draw={drawCompactions} />
          <TurnOverlay readout={hover} />
        </ComposedChart>
      </ChartBox>
    ),
    [anchor, xTicks, xd, floor],
  );
  if (view !== null && agreement === null) return null;
  return (
    <ChartFrame
      testId="chart-agreement"
      title="Agreement with the reference scorer"
      subtitle={
        <>
          Kendall τ-b between the harness&apos;s ranking of the spans and the reference scorer&apos;s (BM25 against the task), per turn; 1 = the same order, −1
          = reversed. <code>reference_disagreement</code> fires when it stays below <code>reference_agreement_floor</code> ({floor}).
        </>
      }
      state={view === null ? 'loading' : agreement && agreement.length > 0 ? 'ready' : 'empty'}
      points={agreement?.length ?? 0}
      legend={[
        { label: 'reference_agreement (τ-b)', color: C.primary, kind: 'line' },
        { label: `reference_agreement_floor ${floor}`, color: C.warning, kind: 'dash' },
        ...(view && view.compactions.length > 0 ? [COMPACTION_LEGEND] : []),
      ]}
    >
      <ChartViewContext.Provider value={view}>{plot}</ChartViewContext.Provider>
    </ChartFrame>
  );
}
