import { useRef, useState, type ReactNode } from 'react';
import { useAnalysis } from '../stores/analysis.ts';
import { pngName, saveElementAsPng } from './savePng.ts';
import { useFixedChart } from '../features/charts/fixedSize.tsx';

export interface LegendItem {
  label: string;
  color: string;
  kind: 'line' | 'dash' | 'area' | 'dot' | 'shade';
}

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

/** A titled figure with a legend and a Save PNG button: what gets pasted into an incident report. */
export function ChartFrame({ testId, title, subtitle, state, points, legend, children, footer }: Props) {
  const ref = useRef<HTMLElement>(null);
  const [saving, setSaving] = useState(false);
  const source = useAnalysis((s) => s.source);
  const sessionId = useAnalysis((s) => s.sessionId);
  const view = useAnalysis((s) => s.view);
  // drawn for a report (fixed size, under Node): the figure alone, no controls, no footer
  const fixed = useFixedChart() !== null;
  const save = async (): Promise<void> => {
    if (ref.current === null) return;
    setSaving(true);
    try {
      const name = source?.kind === 'live' ? source.sessionId : (source?.name ?? 'session');
      await saveElementAsPng(ref.current, pngName([testId.replace('chart-', ''), name, sessionId, view ? `turns_${view.from}-${view.to}` : null]));
    } finally {
      setSaving(false);
    }
  };
  return (
    <figure className="chart-frame" data-testid={testId} data-state={state} data-points={points} ref={ref}>
      <figcaption className="chart-head">
        <div>
          <h3>{title}</h3>
          <p className="chart-sub">{subtitle}</p>
        </div>
        {!fixed && (
          <button
            type="button"
            className="btn small ghost"
            onClick={() => void save()}
            disabled={saving || state === 'loading'}
            data-no-export
            aria-label={`Save “${title}” as PNG`}
          >
            {saving ? 'Saving…' : 'Save PNG'}
          </button>
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
