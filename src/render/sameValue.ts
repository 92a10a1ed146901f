// Whether two structured-cloneable values are the same, member by member: what `report`
// uses to tell whether the charts it drew early (while the file was still being read) are
// the charts of the input it ends with (draw.ts). Numbers compare with Object.is, so NaN (a
// gap in a series) equals NaN and 0 differs from -0: the same bits give the same picture.

import type { DrawJob } from './draw.ts';

const isTyped = (v: unknown): v is ArrayLike<number | bigint> & ArrayBufferView => ArrayBuffer.isView(v) && !(v instanceof DataView);

export function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (isTyped(a)) {
    const t = b as typeof a;
    if (a.length !== t.length) return false;
    for (let i = 0; i < a.length; i++) if (!Object.is(a[i], t[i])) return false;
    return true;
  }
  if (Array.isArray(a)) {
    const t = b as unknown[];
    if (a.length !== t.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], t[i])) return false;
    return true;
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const rb = b as Record<string, unknown>;
  const ra = a as Record<string, unknown>;
  for (const k of ka) if (!Object.prototype.hasOwnProperty.call(rb, k) || !sameValue(ra[k], rb[k])) return false;
  return true;
}

/** Whether two report inputs give the same charts (SVG and PNG bytes): all they hold but what only the report's text says (its data, the contract's link). */
export function sameCharts(a: DrawJob, b: DrawJob): boolean {
  const { data: _a, contractUrl: _au, ...chartsA } = a;
  const { data: _b, contractUrl: _bu, ...chartsB } = b;
  return sameValue(chartsA, chartsB);
}
