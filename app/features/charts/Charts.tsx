import { useEffect, useRef } from 'react';
import { setUi } from '../../stores/ui.ts';
import { CanaryChart } from './CanaryChart.tsx';
import { DriftChart } from './DriftChart.tsx';
import { OrphansChart } from './OrphansChart.tsx';
import { Overview } from './Overview.tsx';
import { SpreadChart } from './SpreadChart.tsx';

/** Axes and margins take about this many pixels of a chart's width. */
const AXES_PX = 124;

export function Charts() {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (el === null) return;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const ro = new ResizeObserver((entries) => {
      const w = entries[0]?.contentRect.width ?? 800;
      if (timer !== null) clearTimeout(timer);
      timer = setTimeout(() => setUi({ chartWidth: Math.max(200, Math.round(w - AXES_PX)) }), 150);
    });
    ro.observe(el);
    return () => {
      ro.disconnect();
      if (timer !== null) clearTimeout(timer);
    };
  }, []);
  return (
    <div className="charts" ref={ref}>
      <Overview />
      <SpreadChart />
      <CanaryChart />
      <DriftChart />
      <OrphansChart />
    </div>
  );
}
