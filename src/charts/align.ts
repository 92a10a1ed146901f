// Drawing B on A's turn axis. By turn number B's turns are A's axis already; by relative
// position B's i-th of nB snapshots is drawn where A is at the same share of its run
// (interpolated between A's turns, which may have gaps). Shaping of a few hundred
// decimated points, pure and tested; the Worker has already decimated them.
import { lowerBound } from '../core/bisect.ts';
import type { Alignment } from '../core/compare.ts';

/** B's x values (B's turn numbers) placed on A's turn axis. */
export function partnerX(x: Float64Array, bTurns: ArrayLike<number>, aTurns: ArrayLike<number>, align: Alignment): Float64Array {
  if (align === 'turn') return x;
  const nb = bTurns.length;
  const na = aTurns.length;
  const out = new Float64Array(x.length);
  for (let k = 0; k < x.length; k++) {
    if (na === 0 || nb === 0) {
      out[k] = Number.NaN;
      continue;
    }
    const share = nb <= 1 ? 0 : lowerBound(bTurns, x[k]!) / (nb - 1);
    const at = share * (na - 1);
    const i = Math.floor(at);
    const j = Math.min(na - 1, i + 1);
    out[k] = aTurns[i]! + (aTurns[j]! - aTurns[i]!) * (at - i);
  }
  return out;
}
