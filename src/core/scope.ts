// contract §8.1 scope: the seeds' own scope statements decide which detectors apply to a
// session. An imported agent's session whose only scores are the reference scorer's (a
// separate model that scores but never edits the context, and re-scores every span every
// turn) is outside both seeds' scope for their score detectors; only lineage, compaction
// and pressure signals apply to it. Every other session runs every detector, as before.
import type { Signal } from './signals.ts';
import type { SessionHeader } from './wire.ts';

export type DetectorScope = 'all' | 'reference';

/** Header `source` values the adapters write (docs/adapters.md): sessions of agents that do not score their context. */
export const IMPORTED_SOURCES: ReadonlySet<string> = new Set(['claude-code', 'swe-agent', 'mini-swe-agent', 'codex', 'otlp', 'proxy', 'gemini', 'openhands']);

/**
 * contract §8.1: the reference scope holds for a session whose header says both that an
 * adapter made it (`source`) and that the reference scorer scores it (`scores: "reference"`).
 * A native transcript scored by an explicit `--scorer reference|both` names no such source,
 * so it keeps every detector, as the contract asks.
 */
export function scopeOf(header: SessionHeader | null): DetectorScope {
  return header !== null && inReferenceScope(header) ? 'reference' : 'all';
}

/** scopeOf's rule on a header not yet validated (the scoring stage's, which writes `scores` into it). */
export function inReferenceScope(header: Readonly<Record<string, unknown>>): boolean {
  return header.scores === 'reference' && typeof header.source === 'string' && IMPORTED_SOURCES.has(header.source);
}

const SEED_000 =
  'scores come from the reference scorer, which re-scores every span on every turn: seed 000 "does not apply to pipelines where rewrite and scoring are performed by separate models with an explicit score-recompute step"';
const SEED_002 =
  'scores come from the reference scorer, a separate model that does not edit the context: seed 002 "does not apply to pipelines where eviction scores are computed by a separate, non-editing model"';
const NO_HARNESS = "the session has no harness scores to compare with the reference scorer's";

/** contract §8.1: the signals left out under the reference scope, each with its reason. */
export const NOT_APPLICABLE_REFERENCE: Readonly<Partial<Record<Signal, string>>> = {
  unbound_score: SEED_000,
  stale_score: SEED_000,
  unscored_span: SEED_000,
  invalidation_shortfall: SEED_000,
  unreported_rewrite: SEED_000,
  relevance_inflation: SEED_000,
  monotonic_drift: SEED_000,
  rewrite_repeat: SEED_000,
  poisoned_span: SEED_000,
  pruned_on_stale_score: SEED_000,
  spread_collapse: SEED_002,
  canary_inversion: SEED_002,
  relevance_collapse: SEED_002,
  no_canary: SEED_002,
  pruned_during_freeze: SEED_002,
  reference_disagreement: NO_HARNESS,
};

export function notApplicable(scope: DetectorScope): Readonly<Partial<Record<Signal, string>>> {
  return scope === 'reference' ? NOT_APPLICABLE_REFERENCE : {};
}
