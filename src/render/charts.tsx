// The dashboard's chart components drawn at a fixed size for one SeriesView, under Node
// (issue "Incident reports", item 4): the same components as on screen, in their fixed-size
// mode (src/charts/fixedSize.tsx), rendered into happy-dom and read back as the
// parts of a figure.
import { installDom } from './dom.ts';
import type { SeriesView } from '../results/series.ts';
import type { ChartParts } from '../charts/exportFigure.ts';
import { REPORT_CHART_WIDTH } from './width.ts';

export interface RenderedChart {
  /** spread, canary, drift, orphans, agreement */
  id: string;
  parts: ChartParts;
}

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * Recharts fills its store in effects and lays the chart out again (React's production
 * build has no act() to flush that): wait until the markup stops changing.
 */
async function settled(host: HTMLElement): Promise<void> {
  let last = host.innerHTML;
  for (let i = 0; i < 200; i++) {
    await tick();
    const now = host.innerHTML;
    if (now === last && now.includes('recharts-surface')) return;
    last = now;
  }
  throw new Error('a chart did not finish drawing');
}

let modules: ReturnType<typeof load> | null = null;

function load() {
  installDom();
  // imported after the DOM exists: React DOM and the stores look for window when they load
  return Promise.all([
    import('react'),
    import('react-dom'),
    import('react-dom/client'),
    import('../charts/fixedSize.tsx'),
    import('./chartList.ts'),
    import('../charts/exportFigure.ts'),
  ]);
}

/** Loads React, Recharts and the chart modules (once): `report` starts this while it reads the file. */
export function prepareCharts(): Promise<unknown> {
  modules ??= load();
  return modules;
}

/**
 * Draws the charts one after the other; `onChart` hears of each as soon as it is drawn, so
 * its rasterising (on libuv's threads) overlaps the drawing of the next.
 */
export async function renderCharts(
  view: SeriesView,
  selectedTurn: number | null,
  onChart: (chart: RenderedChart) => void = () => {},
  width = REPORT_CHART_WIDTH,
): Promise<RenderedChart[]> {
  modules ??= load();
  const [{ createElement }, { flushSync }, { createRoot }, { FixedChartContext }, charts, { chartParts }] = await modules;
  const out: RenderedChart[] = [];
  for (const { id, Component, when } of charts.REPORT_CHARTS) {
    if (when !== undefined && !when(view)) continue;
    const host = document.createElement('div');
    document.body.appendChild(host);
    const root = createRoot(host);
    flushSync(() => root.render(createElement(FixedChartContext.Provider, { value: { view, width, selectedTurn } }, createElement(Component))));
    await settled(host);
    const figure = host.querySelector('figure');
    const parts = figure === null ? null : chartParts(figure);
    root.unmount();
    host.remove();
    if (parts !== null) {
      out.push({ id, parts });
      onChart({ id, parts });
    }
  }
  return out;
}
