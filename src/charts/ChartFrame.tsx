import { useRef, type ReactNode } from 'react';
import type { LegendItem } from '../report/figure.ts';
import { useFixedChart } from './fixedSize.tsx';
import { useChartHost } from './host.tsx';

export type { LegendItem } from '../report/figure.ts';

interface Props {
  testId: string;
  title: string;
  subtitle: ReactNode;
  /** 'ready' once drawn with data, 'empty' for an explained empty state, 'loading' before data */
  state: 'ready' | 'empty' | 'loading';
  points: number;
  legend: LegendItem[];
  children: ReactNode;
  footer?: ReactNode;
}

/** A titled figure with a legend and its stamped exports (PNG, SVG, clipboard): what gets pasted into an incident report. */
export function ChartFrame({ testId, title, subtitle, state, points, legend, children, footer }: Props) {
  const ref = useRef<HTMLElement>(null);
  // drawn for a report (fixed size, under Node): the figure alone, no controls, no footer
  const fixed = useFixedChart() !== null;
  const { ExportButtons } = useChartHost();
  return (
    <figure className="chart-frame" data-testid={testId} data-state={state} data-points={points} ref={ref}>
      <figcaption className="chart-head">
        <div>
          <h3>{title}</h3>
          <p className="chart-sub">{subtitle}</p>
        </div>
        {!fixed && (
          <ExportButtons
            figure={testId.replace('chart-', '')}
            label={title}
            target={() => (ref.current === null ? [] : [ref.current])}
            svgOf={() => ref.current}
            disabled={state === 'loading'}
          />
        )}
      </figcaption>
      <div className="chart-body">{children}</div>
      <ul className="legend" aria-label={`${title} legend`}>
        {legend.map((l) => (
          <li key={l.label}>
            <span className={`swatch ${l.kind}`} style={{ '--c': l.color } as React.CSSProperties} aria-hidden="true" />
            {l.label}
          </li>
        ))}
      </ul>
      {!fixed && footer}
    </figure>
  );
}
