// contract §8.7 "What fills the context": the tokens of each turn stacked by kind (system
// prompt and tools at the bottom, what the agent's work adds above), on the shared turn
// axis, with the compaction markers, the context window and the pressure threshold
// (context_pressure fires where the stack crosses it).
import { useMemo } from 'react';
import { CartesianGrid, ComposedChart, XAxis, YAxis } from 'recharts';
import { ChartFrame, type LegendItem } from './ChartFrame.tsx';
import { ChartBox } from './fixedSize.tsx';
import { C } from './theme.ts';
import { CHART_HEIGHT, CHART_MARGIN, thousands, turnXAxis, VALUE_Y_AXIS, yLabel } from './common.tsx';
import { useStableDomain, useTurnAxis } from './common.tsx';
import { niceTicks, readout } from './rows.ts';
import { SeriesBand, SeriesLine } from './Series.tsx';
import { CompactionMarkers, COMPACTION_LEGEND } from './CompactionMarkers.tsx';
import { TurnOverlay, type Readout } from './TurnOverlay.tsx';
import { ChartViewContext, FromView, ViewShade } from './chartView.tsx';
import type { SeriesView } from '../results/series.ts';
import { autoCompactLine, compositionDomain, pct, stackBands, thresholdLine, windowOnScale } from './composition.ts';
import { groupedDigits } from '../core/digits.ts';

const WINDOW_COLOR = C.ink;
const PRESSURE_COLOR = C.fault;
const AUTO_COMPACT_COLOR = C.compaction;

// Drawn from the view (chartView.tsx): module-level, so the chart's element stays the same
const drawBands = (v: SeriesView) => (
  <>
    {stackBands(v.composition).map((b) => (
      <SeriesBand key={b.key} x={v.composition.x} lo={b.lo} hi={b.hi} fill={b.color} opacity={0.85} />
    ))}
  </>
);
const drawWindow = (v: SeriesView) => {
  const s = v.composition;
  if (!windowOnScale(s)) return null;
  const auto = autoCompactLine(s);
  return (
    <>
      <g data-testid="pressure-line">
        <SeriesLine x={s.x} y={s.window} stroke={WINDOW_COLOR} width={1.5} />
        <SeriesLine x={s.x} y={thresholdLine(s)} stroke={PRESSURE_COLOR} width={1.5} dash="6 4" />
      </g>
      {auto !== null && (
        <g data-testid="auto-compact-line">
          <SeriesLine x={s.x} y={auto} stroke={AUTO_COMPACT_COLOR} width={1.5} dash="2 3" />
        </g>
      )}
    </>
  );
};
const pickPressure = (v: SeriesView) => v.composition.pressure;
const drawCompactions = (v: SeriesView) => <CompactionMarkers turns={v.compactions} />;
const hover: Readout = (v, t) => {
  const s = v.composition;
  const fill = s.window.map((w, i) => (w > 0 ? (s.total[i]! / w) * 100 : Number.NaN));
  return readout(s.x, t, [
    { label: 'tokens_total', y: s.total, color: C.ink, digits: 0 },
    ...(s.peakFill === null ? [] : [{ label: 'fill (% of window)', y: fill, color: PRESSURE_COLOR, digits: 1 }]),
    ...[...s.bands].reverse().map((b) => ({ label: b.label, y: b.tokens, color: C.muted, digits: 0 })),
  ]);
};

export function CompositionChart() {
  const { view, xd, minW, anchor, xTicks } = useTurnAxis(4);
  const s = view?.composition;
  const yd = useStableDomain(useMemo(() => (s ? compositionDomain(s) : ([0, 1] as [number, number])), [s]));
  const yTicks = useMemo(() => niceTicks(yd[0], yd[1]), [yd]);
  // the legend's order and colours follow the bands' keys only: a new turn with the same kinds changes nothing
  const bandKey = s?.bands.map((b) => b.key).join('\u0000') ?? '';
  const onScale = s !== undefined && windowOnScale(s);
  const legend = useMemo<LegendItem[]>(() => {
    if (s === undefined) return [];
    const items: LegendItem[] = stackBands(s)
      .reverse()
      .map((b) => ({ label: b.label, color: b.color, kind: 'area' as const }));
    if (onScale) {
      items.push({ label: 'context window', color: WINDOW_COLOR, kind: 'line' });
      items.push({ label: `pressure threshold (${pct(s.threshold)} of the window)`, color: PRESSURE_COLOR, kind: 'dash' });
      if (s.autoCompact !== null) items.push({ label: s.autoCompact.label, color: AUTO_COMPACT_COLOR, kind: 'dash' });
    }
    items.push({ label: 'context_pressure fired', color: C.shadeFault, kind: 'shade' });
    return items;
    // eslint-disable-next-line react-hooks/exhaustive-deps -- keyed by the bands, not by each new view
  }, [bandKey, onScale, s?.threshold, s?.autoCompact]);
  const plot = useMemo(
    () => (
      <ChartBox height={CHART_HEIGHT}>
        <ComposedChart data={anchor} margin={CHART_MARGIN}>
          <CartesianGrid stroke={C.grid} vertical={false} />
          <XAxis {...turnXAxis(xTicks, xd)} />
          <YAxis {...VALUE_Y_AXIS} domain={yd} ticks={yTicks} tickFormatter={thousands} width={56} label={yLabel('context (tokens)', 'left')} />
          <ViewShade pick={pickPressure} minWidth={minW} fill={C.shadeFault} opacity={0.2} />
          <FromView draw={drawBands} />
          <FromView draw={drawWindow} />
          <FromView draw={drawCompactions} />
          <TurnOverlay readout={hover} />
        </ComposedChart>
      </ChartBox>
    ),
    [anchor, xTicks, xd, yd, yTicks, minW],
  );
  const windowText =
    s === undefined || s.peakFill === null
      ? ' No context window is known for this session (the model is not in the table; set one with the header or --context-window).'
      : onScale
        ? ` Peak fill ${pct(s.peakFill)} of the window; context_pressure fires at ${pct(s.threshold)}.`
        : ` Peak fill ${pct(s.peakFill)} of the window: the window and the ${pct(s.threshold)} threshold are above this scale.`;
  // the agent's own point, said in words even where the window is above the chart's scale
  const lastWindow = s === undefined || s.window.length === 0 ? Number.NaN : s.window[s.window.length - 1]!;
  const autoText =
    s?.autoCompact == null || !(lastWindow > 0)
      ? ''
      : ` ${s.autoCompact.label.replace(/ here .*$/, '')} at ${groupedDigits(Math.max(0, lastWindow - s.autoCompact.reserve))} tokens (${pct(Math.max(0, lastWindow - s.autoCompact.reserve) / lastWindow)} of the window).`;
  const byWhat = s?.source === 'kind' ? 'by kind of span' : s?.source === 'role' ? 'by span role' : 'as one band (the spans carry no kind or role)';
  return (
    <ChartFrame
      testId="chart-composition"
      title="What fills the context"
      subtitle={
        <>
          Tokens of each turn&apos;s context, {byWhat}.{windowText}
          {autoText}
        </>
      }
      state={view === null ? 'loading' : s && s.x.length > 0 ? 'ready' : 'empty'}
      points={s?.x.length ?? 0}
      legend={[...legend, ...(view && view.compactions.length > 0 ? [COMPACTION_LEGEND] : [])]}
    >
      <ChartViewContext.Provider value={view}>
        <div
          className="composition-plot"
          data-bands={bandKey.split('\u0000').filter(Boolean).length}
          data-window-on-scale={onScale}
          data-peak-fill={s?.peakFill ?? ''}
        >
          {plot}
        </div>
      </ChartViewContext.Provider>
    </ChartFrame>
  );
}
