// contract §4: the sixteen signals (and the later rounds' extensions, contract §7–§8), their severities, and the order findings of one turn are
// listed in (the table's order).

export const SIGNALS = [
  'unbound_score',
  'stale_score',
  'unscored_span',
  'invalidation_shortfall',
  'unreported_rewrite',
  'relevance_inflation',
  'monotonic_drift',
  'orphaned_parent',
  'rewrite_repeat',
  'poisoned_span',
  'spread_collapse',
  'canary_inversion',
  'relevance_collapse',
  'no_canary',
  'pruned_on_stale_score',
  'pruned_during_freeze',
  // contract §7: only with `check --scorer both`; last, so the §4.1 order of the others holds
  'reference_disagreement',
  // contract §8 compactions: after the version-1 signals, so their order within a turn holds
  'compaction',
  'compaction_loss',
  'context_pressure',
] as const;

export type Signal = (typeof SIGNALS)[number];
export type Severity = 'fault' | 'warning' | 'info';

export const SEVERITY: Readonly<Record<Signal, Severity>> = {
  unbound_score: 'fault',
  stale_score: 'fault',
  unscored_span: 'info',
  invalidation_shortfall: 'fault',
  unreported_rewrite: 'fault',
  relevance_inflation: 'warning',
  monotonic_drift: 'fault',
  orphaned_parent: 'fault',
  rewrite_repeat: 'warning',
  poisoned_span: 'fault',
  spread_collapse: 'warning',
  canary_inversion: 'warning',
  relevance_collapse: 'fault',
  no_canary: 'info',
  pruned_on_stale_score: 'fault',
  pruned_during_freeze: 'fault',
  reference_disagreement: 'warning',
  compaction: 'info',
  compaction_loss: 'warning',
  context_pressure: 'info',
};

export const SEVERITY_RANK: Readonly<Record<Severity, number>> = { info: 0, warning: 1, fault: 2 };

export interface Finding {
  turn: number;
  signal: Signal;
  severity: Severity;
  span_ids: string[];
  message: string;
}

export type Action = 'prune_ok' | 'recompute' | 'freeze';

export interface Verdict {
  turn: number;
  action: Action;
  prune_safe: boolean;
  recompute: string[];
  drop: string[];
}
