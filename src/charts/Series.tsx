// Series drawn inside a Recharts chart from typed arrays (see paths.ts), using the chart's
// own axis scales, clipped to the plot area.
import { useId, useMemo, type ReactNode } from 'react';
import { usePlotArea, useXAxisDomain, useXAxisScale, useYAxisDomain, useYAxisScale } from 'recharts';
import { bandPath, linear, linePath, markerPath, rulePixel, shadePath, stepAreaPath, type Linear, type MarkerShape } from './paths.ts';

function useLinear(axis: 'x' | 'y', id: string | number | undefined): Linear | null {
  const xs = useXAxisScale();
  const xd = useXAxisDomain();
  const ys = useYAxisScale(id);
  const yd = useYAxisDomain(id);
  const scale = axis === 'x' ? xs : ys;
  const domain = axis === 'x' ? xd : yd;
  return useMemo(() => {
    if (scale === undefined || domain === undefined) return null;
    const d0 = Number(domain[0]);
    const d1 = Number(domain[domain.length - 1]);
    const p0 = scale(d0);
    const p1 = scale(d1);
    if (!Number.isFinite(d0) || !Number.isFinite(d1) || p0 === undefined || p1 === undefined) return null;
    return linear(d0, d1, p0, p1);
  }, [scale, domain]);
}

function Clipped({ children }: { children: ReactNode }) {
  const plot = usePlotArea();
  const id = useId().replace(/:/g, '');
  if (plot === undefined) return null;
  return (
    <g className="series">
      <clipPath id={`clip${id}`}>
        <rect x={plot.x} y={plot.y} width={plot.width} height={plot.height} />
      </clipPath>
      <g clipPath={`url(#clip${id})`}>{children}</g>
    </g>
  );
}

interface Common {
  x: Float64Array;
  yAxisId?: string;
}

export function SeriesLine({ x, y, yAxisId, stroke, width = 1.5, dash }: Common & { y: Float64Array; stroke: string; width?: number; dash?: string }) {
  const sx = useLinear('x', undefined);
  const sy = useLinear('y', yAxisId);
  const d = useMemo(() => (sx && sy ? linePath(x, y, sx, sy) : ''), [x, y, sx, sy]);
  return (
    <Clipped>
      <path className="series-line" d={d} fill="none" stroke={stroke} strokeWidth={width} strokeDasharray={dash} strokeLinejoin="round" strokeLinecap="round" />
    </Clipped>
  );
}

export function SeriesBand({ x, lo, hi, yAxisId, fill, opacity = 0.6 }: Common & { lo: Float64Array; hi: Float64Array; fill: string; opacity?: number }) {
  const sx = useLinear('x', undefined);
  const sy = useLinear('y', yAxisId);
  const d = useMemo(() => (sx && sy ? bandPath(x, lo, hi, sx, sy) : ''), [x, lo, hi, sx, sy]);
  return (
    <Clipped>
      <path className="series-band" d={d} fill={fill} fillOpacity={opacity} stroke="none" />
    </Clipped>
  );
}

export function SeriesStepArea({ x, y, yAxisId, color, xEnd }: Common & { y: Float64Array; color: string; xEnd: number }) {
  const sx = useLinear('x', undefined);
  const sy = useLinear('y', yAxisId);
  const d = useMemo(() => (sx && sy ? stepAreaPath(x, y, sx, sy, 0, xEnd) : ''), [x, y, sx, sy, xEnd]);
  return (
    <Clipped>
      <path className="series-area" d={d} fill={color} fillOpacity={0.25} stroke={color} strokeWidth={1.5} strokeLinejoin="round" />
    </Clipped>
  );
}

export function SeriesMarkers({ x, y, yAxisId, fill, shape, r = 3.5 }: Common & { y: Float64Array; fill: string; shape: MarkerShape; r?: number }) {
  const sx = useLinear('x', undefined);
  const sy = useLinear('y', yAxisId);
  const d = useMemo(() => (sx && sy ? markerPath(x, y, sx, sy, shape, r) : ''), [x, y, sx, sy, shape, r]);
  return (
    <Clipped>
      <path className="series-markers" d={d} fill={fill} stroke="#fff" strokeWidth={0.8} />
    </Clipped>
  );
}

/**
 * Shaded turn ranges (fault runs), as one path. Recharts' ReferenceArea registers each area
 * in the chart's store, which costs seconds with thousands of incidents; this costs a string.
 */
export function Shade({ ranges, fill, opacity }: { ranges: readonly { x1: number; x2: number }[]; fill: string; opacity: number }) {
  const sx = useLinear('x', undefined);
  const plot = usePlotArea();
  const d = useMemo(() => (sx && plot ? shadePath(ranges, sx, plot.y, plot.y + plot.height) : ''), [ranges, sx, plot]);
  if (ranges.length === 0) return null;
  return (
    <Clipped>
      <path className="series-shade" d={d} fill={fill} fillOpacity={opacity} stroke="none" />
    </Clipped>
  );
}

/**
 * A horizontal threshold line with its label (a floor), drawn from the chart's own y scale.
 * Recharts' ReferenceLine removes and re-adds itself in the chart's store after every render
 * (an effect without dependencies), so each data update of a chart that draws one made
 * Recharts recompute its axes and re-render its subscribers in the next animation frame:
 * the largest script in the long frames of a followed live session (docs/perf-log/notebook.md).
 * This draws the same line and registers nothing.
 */
export function Rule({
  y,
  yAxisId,
  stroke,
  dash,
  width = 1.5,
  label,
}: {
  y: number;
  yAxisId?: string;
  stroke: string;
  dash?: string;
  width?: number;
  label?: string;
}) {
  const sy = useLinear('y', yAxisId);
  const plot = usePlotArea();
  if (sy === null || plot === undefined) return null;
  const py = rulePixel(y, sy, plot.y, plot.y + plot.height);
  if (py === null) return null;
  return (
    <g className="series-rule" pointerEvents="none">
      <line x1={plot.x} x2={plot.x + plot.width} y1={py} y2={py} stroke={stroke} strokeWidth={width} strokeDasharray={dash} />
      {label !== undefined && (
        // above the line, or under it when the line is at the plot's top (issue 24: "reference_agreement_floo" was cut)
        <text x={plot.x + 5} y={py - 5 < plot.y + 11 ? py + 13 : py - 5} fontSize={11} fill={stroke}>
          {label}
        </text>
      )}
    </g>
  );
}
