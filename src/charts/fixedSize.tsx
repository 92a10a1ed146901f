// Fixed-size mode: a chart drawn at a given width for one given view, without a
// ResizeObserver, without the stores' cursor or compare partner, without hover. The
// dashboard's charts render this way inside `context-health report` (src/render), so a
// report's charts are the dashboard's own components, not a copy.
import { cloneElement, createContext, useContext, type ReactElement } from 'react';
import { ResponsiveContainer } from 'recharts';
import type { SeriesView } from '../results/series.ts';

export interface FixedChart {
  view: SeriesView;
  /** the chart's SVG width in CSS pixels */
  width: number;
  selectedTurn: number | null;
}

export const FixedChartContext = createContext<FixedChart | null>(null);

export const useFixedChart = (): FixedChart | null => useContext(FixedChartContext);

/** The chart at the fixed size when there is one, else as wide as its frame. */
export function ChartBox({ height, children }: { height: number; children: ReactElement<{ width?: number; height?: number }> }) {
  const fixed = useFixedChart();
  if (fixed !== null) return cloneElement(children, { width: fixed.width, height });
  return (
    <ResponsiveContainer width="100%" height={height}>
      {children}
    </ResponsiveContainer>
  );
}
