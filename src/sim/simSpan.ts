// A span of the simulated buffer, and the engine's view of the buffer (contract §3/§4) that the
// simulator steers by. Pure: nothing here draws randomness or hashes.
import { scoreStats } from '../core/stats.ts';
import type { FaultKind } from './options.ts';

export type Role = 'system' | 'user' | 'assistant' | 'tool';
/** contract §4 score binding, as the engine will judge it. */
export type Binding = 'bound' | 'unscored' | 'unbound' | 'stale';
/** why a span leaves the buffer: the budget, a fault's eviction, or the harness's repair after one */
export type PruneReason = 'budget' | 'fault' | 'recovery';

export interface SimSpan {
  readonly id: string;
  readonly role: Role;
  readonly pinned: boolean;
  text: string;
  /** sha256 of `text`, computed once per text: the only hashing the generator does. */
  digest: string;
  tokens: number;
  /** relevance the scorer gives this span's content when fresh; decays with age */
  base: number;
  /** snapshot index the span was created at */
  readonly born: number;
  /** decay time constant, in snapshots */
  readonly decay: number;
  /** the scorer's latest opinion, before any fault transform (for a frozen stale span, the kept old score) */
  raw: number;
  /** score on the wire: null when invalidated (contract §2) */
  score: number | null;
  nulled: boolean;
  /** stale_rewrite: the old score is kept, not rescored */
  frozen: boolean;
  /** text_sha256 on the wire */
  sha: string | null;
  rewriteCount: number;
  derivedFrom: readonly string[];
  /** the fault holding this span in a bad state; the harness repairs it when the fault ends */
  hold: FaultKind | null;
  /** null_scores: snapshot index at which the deferred recompute happens */
  recomputeAt: number;
  /** text and binding as last emitted; undefined before the span's first snapshot */
  emittedText: string | undefined;
  emittedBinding: Binding | undefined;
  doomed: PruneReason | null;
}

/** contract §4 binding, decided exactly as the engine decides it. */
export function bindingOf(s: SimSpan): Binding {
  if (s.sha !== null && s.sha !== '' && s.sha !== s.digest) return 'stale';
  if (s.nulled) return 'unscored';
  return s.sha === null || s.sha === '' ? 'unbound' : 'bound';
}

/** The budget pruner's order, lowest first. The broken pruner of prune_on_stale ranks a null score as 0, the classic bug. */
export function rankKey(s: SimSpan): number {
  return s.nulled ? -1 : s.raw;
}

/** The few contract §3/§4 quantities of a snapshot the generator's behaviour depends on. */
export interface Tally {
  tokens: number;
  nScored: number;
  mean: number | null;
  median: number | null;
  stdev: number | null;
  /** some pinned span scores strictly below the median (contract §4 canary_inversion) */
  inverted: boolean;
}

/** contract §3 over the spans that will be emitted, with their wire scores. */
export function tallyOf(spans: readonly SimSpan[]): Tally {
  let tokens = 0;
  const scores: number[] = [];
  const pinned: number[] = [];
  for (const s of spans) {
    if (s.doomed !== null) continue;
    tokens += s.tokens;
    if (s.score !== null) {
      scores.push(s.score);
      if (s.pinned) pinned.push(s.score);
    }
  }
  const stats = scoreStats(Float64Array.from(scores));
  const median = stats?.median ?? null;
  return {
    tokens,
    nScored: scores.length,
    mean: stats?.mean ?? null,
    median,
    stdev: stats?.stdev ?? null,
    inverted: median !== null && pinned.some((p) => p < median),
  };
}
