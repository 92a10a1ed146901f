// A chart figure (ChartFrame's <figure>) read back from the DOM as the parts of an exported
// figure (src/report/figure.ts): title, subtitle, legend and the chart's SVG. The
// dashboard's "Save SVG" reads the page's DOM; `context-health report` reads the same
// components rendered into happy-dom (src/render/charts.tsx), so both export one thing.
import type { FigureParts, LegendItem } from '../report/figure.ts';

const KINDS: readonly LegendItem['kind'][] = ['line', 'dash', 'area', 'dot', 'shade'];

export type ChartParts = Omit<FigureParts, 'stamp'>;

/** The figure's parts, or null when it has no drawn chart. */
export function chartParts(figure: Element): ChartParts | null {
  const svg = figure.querySelector('.chart-body svg.recharts-surface');
  if (svg === null) return null;
  const copy = svg.cloneNode(true) as Element;
  for (const el of Array.from(copy.querySelectorAll('[data-no-export]'))) el.remove();
  const legend: LegendItem[] = [];
  for (const li of Array.from(figure.querySelectorAll('.legend li'))) {
    const sw = li.querySelector('.swatch') as HTMLElement | null;
    const kind = KINDS.find((k) => sw?.classList.contains(k)) ?? 'line';
    legend.push({ label: (li.textContent ?? '').trim(), color: sw?.style.getPropertyValue('--c').trim() || '#5f6b7a', kind });
  }
  return {
    chartSvg: new XMLSerializer().serializeToString(copy),
    chartWidth: Number(svg.getAttribute('width')) || 600,
    chartHeight: Number(svg.getAttribute('height')) || 210,
    title: (figure.querySelector('.chart-head h3')?.textContent ?? '').trim(),
    subtitle: (figure.querySelector('.chart-sub')?.textContent ?? '').replace(/\s+/g, ' ').trim(),
    legend,
  };
}
