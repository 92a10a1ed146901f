// Comparing two sessions' analyses: "did my scorer change make collapse worse?", "why did
// run B freeze when run A did not?". Pure: it reads what the engine already reported for
// each session (the contract §6.1 findings and verdicts, or the Worker's columns of the
// same), never a snapshot. One function behind `context-health diff` and the dashboard.
import { lowerBound } from './bisect.ts';
import { incidentsOf, type Incident } from './incidents.ts';
import type { SessionOutput } from './checkOutput.ts';
import { SEVERITY, SEVERITY_RANK, SIGNALS, type Action, type Severity, type Signal } from './signals.ts';

/**
 * How turns of A and B are put side by side:
 * - `turn`: by turn number (a turn only one session has is compared with nothing);
 * - `relative`: by position in each session, 0–100%, for runs of different length.
 */
export type Alignment = 'turn' | 'relative';

/** What the comparison needs of one session, in session (turn) order. */
export interface SessionOutline {
  /** turn numbers, strictly increasing (contract §2.2) */
  turns: ArrayLike<number>;
  /** the contract §5 action per turn */
  actions: ArrayLike<Action>;
  /** per turn: whether the verdict drops spans (contract §5 drop) */
  drops: ArrayLike<boolean>;
  /** per turn: bit i set when SIGNALS[i] fired */
  fired: ArrayLike<number>;
  incidents: readonly Incident[];
}

export interface SignalCounts {
  signal: Signal;
  severity: Severity;
  /** turns on which the signal fired in A and in B */
  a: number;
  b: number;
  /** b − a: positive when B fired it on more turns */
  difference: number;
}

export interface TurnVerdict {
  /** index among the session's snapshots */
  index: number;
  turn: number;
  action: Action;
  drops: boolean;
}

export interface Divergence {
  a: TurnVerdict;
  b: TurnVerdict;
  /** every signal that fired on exactly one side at this point, in contract §4 order */
  signals: Signal[];
  /** the one behind the difference in verdict (freeze before recompute before drop), or null */
  cause: Signal | null;
}

export interface IncidentPair {
  a: Incident;
  b: Incident;
}

export interface Comparison {
  align: Alignment;
  /** every signal that fired in A or in B, in contract §4 order */
  signals: SignalCounts[];
  firstDivergence: Divergence | null;
  onlyA: Incident[];
  onlyB: Incident[];
  /** each pair of incidents of one signal whose turns overlap, by A's first turn */
  both: IncidentPair[];
}

const BIT: Readonly<Record<Signal, number>> = Object.fromEntries(SIGNALS.map((s, i) => [s, 1 << i])) as Record<Signal, number>;

/**
 * The signals that decide a contract §5 verdict, strongest action first: freeze
 * (relevance_collapse), then recompute (§4.3 untrustworthy scores, §4.7, §4.8), then drop.
 */
const VERDICT_SIGNALS: readonly Signal[] = [
  'relevance_collapse',
  'unbound_score',
  'stale_score',
  'unscored_span',
  'invalidation_shortfall',
  'unreported_rewrite',
  'poisoned_span',
];

/** The outline of one session of a contract §6.1 `check --json` report. */
export function outlineOfReport(s: SessionOutput): SessionOutline {
  const turns = s.verdicts.map((v) => v.turn);
  const index = new Map<number, number>();
  turns.forEach((t, i) => index.set(t, i));
  const fired = new Array<number>(turns.length).fill(0);
  for (const f of s.findings) {
    const i = index.get(f.turn);
    if (i !== undefined) fired[i]! |= BIT[f.signal];
  }
  return {
    turns,
    actions: s.verdicts.map((v) => v.action),
    drops: s.verdicts.map((v) => v.drop.length > 0),
    fired,
    incidents: incidentsOf(s.findings, turns),
  };
}

/**
 * The points at which A and B are compared, in order: each names a snapshot index of A
 * and of B, or -1 where that session has no counterpart.
 *
 * By turn: the union of both sessions' turn numbers. By position: each session's snapshots
 * cut [0, 1) into equal bins; the longer session's bins are the points, and the shorter
 * session's snapshot at a point is the one whose bin holds the point's middle. So runs of
 * 100 and 200 turns pair A's turn i with B's turns 2i and 2i + 1.
 */
export function alignedPoints(a: ArrayLike<number>, b: ArrayLike<number>, align: Alignment): { a: number; b: number }[] {
  const out: { a: number; b: number }[] = [];
  if (align === 'turn') {
    let i = 0;
    let j = 0;
    while (i < a.length || j < b.length) {
      const ta = i < a.length ? a[i]! : Infinity;
      const tb = j < b.length ? b[j]! : Infinity;
      if (ta === tb) out.push({ a: i++, b: j++ });
      else if (ta < tb) out.push({ a: i++, b: -1 });
      else out.push({ a: -1, b: j++ });
    }
    return out;
  }
  const na = a.length;
  const nb = b.length;
  if (na === 0 || nb === 0) {
    for (let i = 0; i < na; i++) out.push({ a: i, b: -1 });
    for (let j = 0; j < nb; j++) out.push({ a: -1, b: j });
    return out;
  }
  const n = Math.max(na, nb);
  for (let k = 0; k < n; k++) out.push({ a: binAt(k, n, na), b: binAt(k, n, nb) });
  return out;
}

/** The bin (of `m`) holding the middle of bin k of `n` (n ≥ m ≥ 1). */
function binAt(k: number, n: number, m: number): number {
  return Math.min(m - 1, Math.floor(((k + 0.5) * m) / n));
}

/** Where snapshot i of a session of n falls on the relative axis, 0–1 (first 0, last 1). */
export function relativePosition(i: number, n: number): number {
  return n <= 1 ? 0 : i / (n - 1);
}

export function compareSessions(a: SessionOutline, b: SessionOutline, align: Alignment = 'turn'): Comparison {
  return {
    align,
    signals: signalCounts(a, b),
    firstDivergence: firstDivergence(a, b, align),
    ...matchIncidents(a, b, align),
  };
}

function signalCounts(a: SessionOutline, b: SessionOutline): SignalCounts[] {
  const countA = countTurns(a.fired);
  const countB = countTurns(b.fired);
  const out: SignalCounts[] = [];
  SIGNALS.forEach((signal, i) => {
    if (countA[i] === 0 && countB[i] === 0) return;
    out.push({ signal, severity: SEVERITY[signal], a: countA[i]!, b: countB[i]!, difference: countB[i]! - countA[i]! });
  });
  return out;
}

function countTurns(fired: ArrayLike<number>): number[] {
  const counts = new Array<number>(SIGNALS.length).fill(0);
  for (let t = 0; t < fired.length; t++) {
    const mask = fired[t]!;
    if (mask === 0) continue;
    for (let i = 0; i < SIGNALS.length; i++) if (mask & (1 << i)) counts[i]!++;
  }
  return counts;
}

/**
 * The first compared point at which the verdicts differ: a different contract §5 action,
 * or spans dropped on one side only. The recompute lists are not compared: two runs name
 * different spans, and the action already says whether scores must be computed again.
 */
function firstDivergence(a: SessionOutline, b: SessionOutline, align: Alignment): Divergence | null {
  for (const p of alignedPoints(a.turns, b.turns, align)) {
    if (p.a < 0 || p.b < 0) continue;
    const va = turnVerdict(a, p.a);
    const vb = turnVerdict(b, p.b);
    if (va.action === vb.action && va.drops === vb.drops) continue;
    const differing = a.fired[p.a]! ^ b.fired[p.b]!;
    return {
      a: va,
      b: vb,
      signals: SIGNALS.filter((s) => (differing & BIT[s]) !== 0),
      cause: VERDICT_SIGNALS.find((s) => (differing & BIT[s]) !== 0) ?? null,
    };
  }
  return null;
}

function turnVerdict(s: SessionOutline, i: number): TurnVerdict {
  return { index: i, turn: s.turns[i]!, action: s.actions[i]!, drops: s.drops[i]! };
}

/**
 * Incidents of A and B of the same signal are the same incident when their turns overlap:
 * by turn, the turn ranges first–last intersect; by position, the parts of [0, 1) their
 * snapshots cover (the bins of alignedPoints) intersect. One incident may pair with several.
 */
function matchIncidents(a: SessionOutline, b: SessionOutline, align: Alignment): Pick<Comparison, 'onlyA' | 'onlyB' | 'both'> {
  const span = (s: SessionOutline, x: Incident): [number, number] =>
    align === 'turn' ? [x.firstTurn, x.lastTurn] : [x.first / s.turns.length, (x.last + 1) / s.turns.length];
  // by turn the ranges are closed (turn 5 meets turn 5); by position half-open (bins that touch do not overlap)
  const overlaps = (x: [number, number], y: [number, number]): boolean => (align === 'turn' ? x[0] <= y[1] && y[0] <= x[1] : x[0] < y[1] && y[0] < x[1]);
  const bySignal = new Map<Signal, Incident[]>();
  for (const x of b.incidents) {
    let list = bySignal.get(x.signal);
    if (list === undefined) bySignal.set(x.signal, (list = []));
    list.push(x);
  }
  const matchedB = new Set<Incident>();
  const onlyA: Incident[] = [];
  const both: IncidentPair[] = [];
  for (const x of a.incidents) {
    const sx = span(a, x);
    let matched = false;
    for (const y of bySignal.get(x.signal) ?? []) {
      if (!overlaps(sx, span(b, y))) continue;
      both.push({ a: x, b: y });
      matchedB.add(y);
      matched = true;
    }
    if (!matched) onlyA.push(x);
  }
  return { onlyA, onlyB: b.incidents.filter((y) => !matchedB.has(y)), both };
}

/**
 * The regression gate of `diff --fail-on-new`: the incidents only in B whose signal is at
 * least `level` severe. An incident of B that overlaps one of A at the same signal is not
 * new, even when it is longer.
 */
export function newIncidents(c: Comparison, level: Severity): Incident[] {
  const min = SEVERITY_RANK[level];
  return c.onlyB.filter((x) => SEVERITY_RANK[SEVERITY[x.signal]] >= min);
}

/**
 * The snapshot of B shown beside snapshot `i` of A (the dashboard's one cursor): the same
 * turn number, or by position the snapshot of B whose part of the run holds the middle of
 * A's (as alignedPoints pairs them when A is the longer). -1 when B has none.
 */
export function counterpartIndex(aTurns: ArrayLike<number>, bTurns: ArrayLike<number>, i: number, align: Alignment): number {
  if (i < 0 || i >= aTurns.length || bTurns.length === 0) return -1;
  if (align === 'relative') return Math.min(bTurns.length - 1, Math.floor(((i + 0.5) * bTurns.length) / aTurns.length));
  const turn = aTurns[i]!;
  const lo = lowerBound(bTurns, turn);
  return lo < bTurns.length && bTurns[lo] === turn ? lo : -1;
}
