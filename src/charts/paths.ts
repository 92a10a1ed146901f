// SVG paths straight from the Worker's typed arrays: one <path> per series, however many
// points, with NaN as a gap. Recharts draws the axes, grid, reference lines and areas;
// drawing the series this way skips its per-point objects, which is what kept a live
// session at 200 snapshots/s from stalling the main thread.

/** px = a + b · value (the scales here are linear). */
export interface Linear {
  a: number;
  b: number;
}

export function linear(d0: number, d1: number, p0: number, p1: number): Linear {
  const b = d1 === d0 ? 0 : (p1 - p0) / (d1 - d0);
  return { a: p0 - b * d0, b };
}

const f = (v: number): string => (Math.round(v * 10) / 10).toString();

/** A polyline; NaN values break it into separate segments. */
export function linePath(x: ArrayLike<number>, y: ArrayLike<number>, sx: Linear, sy: Linear): string {
  let out = '';
  let pen = false;
  for (let i = 0; i < x.length; i++) {
    const v = y[i]!;
    if (v !== v) {
      pen = false;
      continue;
    }
    out += `${pen ? 'L' : 'M'}${f(sx.a + sx.b * x[i]!)},${f(sy.a + sy.b * v)}`;
    pen = true;
  }
  return out;
}

/** A filled band between lo and hi; a NaN in either ends the current piece. */
export function bandPath(x: ArrayLike<number>, lo: ArrayLike<number>, hi: ArrayLike<number>, sx: Linear, sy: Linear): string {
  let out = '';
  let start = -1;
  const close = (end: number): void => {
    if (start < 0) return;
    let s = '';
    for (let i = start; i < end; i++) s += `${i === start ? 'M' : 'L'}${f(sx.a + sx.b * x[i]!)},${f(sy.a + sy.b * hi[i]!)}`;
    for (let i = end - 1; i >= start; i--) s += `L${f(sx.a + sx.b * x[i]!)},${f(sy.a + sy.b * lo[i]!)}`;
    out += s + 'Z';
    start = -1;
  };
  for (let i = 0; i < x.length; i++) {
    const ok = lo[i]! === lo[i]! && hi[i]! === hi[i]!;
    if (ok && start < 0) start = i;
    else if (!ok) close(i);
  }
  close(x.length);
  return out;
}

/** A step area down to `base` (counts: each value holds until the next point). */
export function stepAreaPath(x: ArrayLike<number>, y: ArrayLike<number>, sx: Linear, sy: Linear, base: number, xEnd: number): string {
  if (x.length === 0) return '';
  const b = f(sy.a + sy.b * base);
  let out = `M${f(sx.a + sx.b * x[0]!)},${b}`;
  for (let i = 0; i < x.length; i++) {
    const v = y[i]! === y[i]! ? y[i]! : base;
    out += `V${f(sy.a + sy.b * v)}H${f(sx.a + sx.b * (i + 1 < x.length ? x[i + 1]! : xEnd))}`;
  }
  return `${out}V${b}Z`;
}

export type MarkerShape = 'circle' | 'triangle' | 'diamond';

/** Many markers as one path. */
export function markerPath(x: ArrayLike<number>, y: ArrayLike<number>, sx: Linear, sy: Linear, shape: MarkerShape, r: number): string {
  let out = '';
  for (let i = 0; i < x.length; i++) {
    const v = y[i]!;
    if (v !== v) continue;
    const px = sx.a + sx.b * x[i]!;
    const py = sy.a + sy.b * v;
    if (shape === 'circle') out += `M${f(px - r)},${f(py)}a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0`;
    else if (shape === 'triangle') out += `M${f(px)},${f(py - r * 1.2)}L${f(px + r)},${f(py + r * 0.8)}L${f(px - r)},${f(py + r * 0.8)}Z`;
    else out += `M${f(px)},${f(py - r * 1.3)}L${f(px + r)},${f(py)}L${f(px)},${f(py + r * 1.3)}L${f(px - r)},${f(py)}Z`;
  }
  return out;
}

/** [min, max] over the finite values of some arrays, padded by `pad` of the range; null when none. */
export function extent(arrays: readonly ArrayLike<number>[], pad = 0.05): [number, number] | null {
  let lo = Infinity;
  let hi = -Infinity;
  for (const a of arrays) {
    for (let i = 0; i < a.length; i++) {
      const v = a[i]!;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  if (!(lo <= hi)) return null;
  const span = hi - lo || Math.abs(hi) || 1;
  return [lo - span * pad, hi + span * pad];
}

/** Shaded x ranges over the full plot height, as one path. */
export function shadePath(ranges: readonly { x1: number; x2: number }[], sx: Linear, top: number, bottom: number): string {
  let out = '';
  const t = f(top);
  const b = f(bottom);
  for (const r of ranges) {
    const a = sx.a + sx.b * r.x1;
    const c = sx.a + sx.b * r.x2;
    out += `M${f(Math.min(a, c))},${t}H${f(Math.max(a, c))}V${b}H${f(Math.min(a, c))}Z`;
  }
  return out;
}

/**
 * Where a horizontal rule at `value` sits (px), or null where it falls outside the plot
 * (top..bottom, half a pixel of slack): like Recharts' ReferenceLine with its default
 * ifOverflow 'discard', a threshold outside the shown range is not drawn.
 */
export function rulePixel(value: number, sy: Linear, top: number, bottom: number): number | null {
  const py = sy.a + sy.b * value;
  if (!Number.isFinite(py) || py < Math.min(top, bottom) - 0.5 || py > Math.max(top, bottom) + 0.5) return null;
  return py;
}
