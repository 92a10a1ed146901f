// Largest-Triangle-Three-Buckets decimation (Steinarsson 2013) on typed arrays: picks
// `threshold` indices of [from, to) that keep a line's visual shape. NaN values (a metric
// that does not exist at a turn, e.g. no scored span) are never picked as the shape point
// of a bucket, and the edges of each NaN run are kept so the chart still shows the gap.

/** Indices (ascending, absolute) chosen from [from, to). */
export function lttb(x: ArrayLike<number>, y: ArrayLike<number>, from: number, to: number, threshold: number): Int32Array {
  const n = to - from;
  if (n <= 0) return new Int32Array(0);
  if (threshold >= n || threshold < 3) {
    if (threshold >= n) return range(from, to);
    return threshold <= 1 ? Int32Array.of(from) : Int32Array.of(from, to - 1);
  }
  const out = new Int32Array(threshold);
  let k = 0;
  out[k++] = from;
  const every = (n - 2) / (threshold - 2);
  let a = from;
  for (let b = 0; b < threshold - 2; b++) {
    const start = from + Math.floor(b * every) + 1;
    const end = Math.min(from + Math.floor((b + 1) * every) + 1, to - 1);
    // average of the next bucket (its finite points)
    const nStart = end;
    const nEnd = Math.min(from + Math.floor((b + 2) * every) + 1, to);
    let ax = 0;
    let ay = 0;
    let cnt = 0;
    for (let j = nStart; j < nEnd; j++) {
      const yj = y[j]!;
      if (yj === yj) {
        ax += x[j]!;
        ay += yj;
        cnt++;
      }
    }
    if (cnt === 0) {
      ax = x[nStart] ?? x[to - 1]!;
      ay = y[a]! === y[a]! ? y[a]! : 0;
    } else {
      ax /= cnt;
      ay /= cnt;
    }
    const px = x[a]!;
    const py = y[a]! === y[a]! ? y[a]! : ay;
    let best = -1;
    let bestArea = -1;
    for (let j = start; j < end; j++) {
      const yj = y[j]!;
      if (yj !== yj) continue;
      const area = Math.abs((px - ax) * (yj - py) - (px - x[j]!) * (ay - py));
      if (area > bestArea) {
        bestArea = area;
        best = j;
      }
    }
    if (best < 0) best = start < end ? start : a; // a bucket of NaN only: keep one NaN point so a gap shows
    if (best !== a && best > out[k - 1]!) {
      out[k++] = best;
      a = best;
    }
  }
  if (to - 1 > out[k - 1]!) out[k++] = to - 1;
  return out.subarray(0, k);
}

/** Indices i in [from, to) where y switches between NaN and a number (both sides kept). */
export function gapEdges(y: ArrayLike<number>, from: number, to: number, limit: number): Int32Array {
  const out: number[] = [];
  for (let i = from + 1; i < to; i++) {
    const wasNaN = y[i - 1]! !== y[i - 1]!;
    const isNaN = y[i]! !== y[i]!;
    if (wasNaN !== isNaN) {
      out.push(i - 1, i);
      if (out.length > limit) return new Int32Array(0); // too fragmented to draw gaps faithfully
    }
  }
  return Int32Array.from(out);
}

/** Sorted union of ascending index lists, without duplicates. */
export function unionSorted(lists: readonly Int32Array[]): Int32Array {
  let total = 0;
  for (const l of lists) total += l.length;
  const all = new Int32Array(total);
  let at = 0;
  for (const l of lists) {
    all.set(l, at);
    at += l.length;
  }
  all.sort();
  let k = 0;
  for (let i = 0; i < all.length; i++) if (k === 0 || all[i] !== all[k - 1]) all[k++] = all[i]!;
  return all.slice(0, k);
}

export function range(from: number, to: number): Int32Array {
  const out = new Int32Array(Math.max(0, to - from));
  for (let i = 0; i < out.length; i++) out[i] = from + i;
  return out;
}

export function gather(values: ArrayLike<number>, indices: Int32Array): Float64Array {
  const out = new Float64Array(indices.length);
  for (let i = 0; i < indices.length; i++) out[i] = values[indices[i]!]!;
  return out;
}
