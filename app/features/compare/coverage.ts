// Comparing two runs of different lengths fairly (issue 24): raw counts say more about length
// than about the scorer (B − A was −84, in green, for a B of 115 turns against an A of 258).
// Each count is also given as a share of its own session's turns, and the comparison says
// which turns it covers: by turn number only the turns both have are compared, so "the
// verdicts are the same" holds over that range and no further. Pure, tested.
import type { Alignment, Comparison, Incident, Signal } from '../../../src/worker/client.ts';

export interface Extent {
  turns: number;
  firstTurn: number;
  lastTurn: number;
}

const range = (a: number, b: number): string => (a === b ? `${a}` : `${a}–${b}`);

/** The turns the comparison covers, and what lies outside it, in one sentence. */
export function coverageSentence(align: Alignment, a: Extent, b: Extent): { compared: string; sentence: string } {
  if (align === 'relative') {
    const per = a.turns / Math.max(1, b.turns);
    const compared = `A's turns ${range(a.firstTurn, a.lastTurn)} against B's ${range(b.firstTurn, b.lastTurn)}, by position`;
    const beside =
      a.turns === b.turns
        ? 'one B turn beside each A turn'
        : per > 1
          ? `each B turn beside about ${per.toFixed(1)} of A's`
          : `each A turn beside about ${(1 / per).toFixed(1)} of B's`;
    return {
      compared,
      sentence: `Compared: all ${a.turns} of A's turns (${range(a.firstTurn, a.lastTurn)}) with all ${b.turns} of B's (${range(b.firstTurn, b.lastTurn)}) by position, ${beside}.`,
    };
  }
  const lo = Math.max(a.firstTurn, b.firstTurn);
  const hi = Math.min(a.lastTurn, b.lastTurn);
  if (lo > hi) {
    return {
      compared: 'no turn',
      sentence: `No turn number is in both: A has turns ${range(a.firstTurn, a.lastTurn)}, B ${range(b.firstTurn, b.lastTurn)}. Compare them by position instead.`,
    };
  }
  const outside: string[] = [];
  if (a.firstTurn < lo) outside.push(`A's ${range(a.firstTurn, lo - 1)} have no B`);
  if (a.lastTurn > hi) outside.push(`A's ${range(hi + 1, a.lastTurn)} have no B`);
  if (b.firstTurn < lo) outside.push(`B's ${range(b.firstTurn, lo - 1)} have no A`);
  if (b.lastTurn > hi) outside.push(`B's ${range(hi + 1, b.lastTurn)} have no A`);
  const compared = `turns ${range(lo, hi)}`;
  return { compared, sentence: `Compared: ${compared}${outside.length > 0 ? `; ${outside.join('; ')}` : ''}.` };
}

/** A count as a share of a session's turns, in percent (per 100 turns). */
export function per100(count: number, turns: number): number {
  return turns <= 0 ? 0 : (100 * count) / turns;
}

export const fmtRate = (r: number): string => (r === 0 ? '0' : r < 0.1 ? '<0.1' : r.toFixed(1));

/** "+3.1", "−2.0", "0": the difference of two rates, in points. */
export function fmtPoints(d: number): string {
  const r = Math.round(d * 10) / 10;
  return r > 0 ? `+${r.toFixed(1)}` : r < 0 ? `−${(-r).toFixed(1)}` : '0';
}

/** Incidents (runs) of each signal in A and in B, from the comparison's lists (an A incident paired with two of B's is counted once). */
export function runsBySignal(c: Comparison): { a: Map<Signal, number>; b: Map<Signal, number> } {
  const count = (list: readonly Incident[]): Map<Signal, number> => {
    const seen = new Set<string>();
    const out = new Map<Signal, number>();
    for (const x of list) {
      const key = `${x.signal}:${x.first}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.set(x.signal, (out.get(x.signal) ?? 0) + 1);
    }
    return out;
  };
  return { a: count([...c.onlyA, ...c.both.map((p) => p.a)]), b: count([...c.onlyB, ...c.both.map((p) => p.b)]) };
}
