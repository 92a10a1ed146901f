// A chart's view, handed to what it draws from the data through context rather than props.
// Each chart keeps its Recharts element (axes, grid, the chart itself) identical while the
// axes' domains and ticks are (useMemo), so a data update that leaves the axes alone
// re-renders only the series paths, the turn overlay and the compaction markers: Recharts
// re-renders nothing and dispatches nothing to its store (its `updateOptions` on every
// render of the chart, and the selectors every dispatch runs again; docs/perf-log/notebook.md).
import { createContext, useContext, useMemo, type ReactNode } from 'react';
import type { Bands, SeriesView } from '../results/series.ts';
import { useStableRanges } from './common.tsx';
import { bandRanges, type Range } from './rows.ts';
import { Shade } from './Series.tsx';

export const ChartViewContext = createContext<SeriesView | null>(null);

/** The view of the chart this is drawn in (null while loading). */
export const useViewInChart = (): SeriesView | null => useContext(ChartViewContext);

/** Draws from the chart's view; `draw` should be a module-level function so the element stays the same. */
export function FromView({ draw }: { draw: (view: SeriesView) => ReactNode }) {
  const view = useContext(ChartViewContext);
  return view === null ? null : <>{draw(view)}</>;
}

/**
 * Shaded fault runs picked from the chart's view (`pick` module-level), at least `minWidth`
 * turns wide: a run that grows while a session streams re-renders this path only.
 */
export function ViewShade({ pick, minWidth, fill, opacity }: { pick: (view: SeriesView) => Bands; minWidth: number; fill: string; opacity: number }) {
  const view = useContext(ChartViewContext);
  const ranges = useStableRanges(useMemo(() => (view === null ? NO_RANGES : bandRanges(pick(view), minWidth)), [view, pick, minWidth]));
  return <Shade ranges={ranges} fill={fill} opacity={opacity} />;
}

const NO_RANGES: Range[] = [];
