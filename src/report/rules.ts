// The rule of each signal as docs/contract.md states it, quoted in incident reports with a
// link to its section. rules.test.ts checks every quote against the contract's text, so a
// change of the contract cannot leave a report quoting an old rule.
import type { Signal } from '../core/signals.ts';

export interface RuleQuote {
  /** the contract's section, e.g. "4.5" */
  section: string;
  /** GitHub's anchor of that section's heading in docs/contract.md */
  anchor: string;
  /** the **Rule.** paragraph (or for §7 the signal's sentence), whitespace collapsed */
  rule: string;
}

const q = (section: string, anchor: string, rule: string): RuleQuote => ({ section, anchor, rule });

export const RULES: Readonly<Record<Signal, RuleQuote>> = {
  unbound_score: q(
    '4.4',
    '44-unbound_score-fault',
    'At least one span has a finite score and no binding (`text_sha256` is `null` or `""`). A score that cannot be tied to a text cannot be checked, so it must not be trusted.',
  ),
  stale_score: q(
    '4.5',
    '45-stale_score-fault',
    "At least one span's `text_sha256` is a non-empty string that differs from the sha256 of its current text (§4.3).",
  ),
  unscored_span: q(
    '4.6',
    '46-unscored_span-info',
    "At least one span's score is `null`: it was invalidated and is waiting to be computed again. That is the correct state right after a rewrite, hence `info`; the verdict is still `recompute`, because pruning must not rank a span with no score.",
  ),
  invalidation_shortfall: q(
    '4.7',
    '47-invalidation_shortfall-fault',
    "`rewrite.spans_modified > 0` and `rewrite.scores_invalidated < rewrite.spans_modified`: by the harness's own report, some rewritten spans kept their old scores. Evaluated on every snapshot, the first included.",
  ),
  unreported_rewrite: q(
    '4.8',
    '48-unreported_rewrite-fault',
    "Needs the previous snapshot. `texts_changed` (§3) is greater than the reported `spans_modified`: more texts changed than the harness says, so its rewrite report (often the model's own account) cannot be trusted.",
  ),
  relevance_inflation: q(
    '4.9',
    '49-relevance_inflation-warning',
    "Needs the previous snapshot, and a mean now and then. Turn t is a **rewrite turn** (`spans_modified > 0` or `texts_changed > 0`), `tokens_total` is lower than the previous snapshot's, and `mean_score > previous mean_score × (1 + relevance_tolerance)`.",
  ),
  monotonic_drift: q(
    '4.10',
    '410-monotonic_drift-fault',
    '`relevance_inflation` holds on this rewrite turn **and** on each of the previous `drift_turns − 1` rewrite turns of the session. Turns that are not rewrite turns are skipped: they neither extend nor break the run.',
  ),
  orphaned_parent: q(
    '4.11',
    '411-orphaned_parent-fault',
    "A live span's `derived_from` names an id that is neither a live span of this snapshot nor the span's own id. Such a span summarises or rewrites something that is gone, so nothing can check it any more.",
  ),
  rewrite_repeat: q(
    '4.12',
    '412-rewrite_repeat-warning',
    "A span's `rewrite_count` equals `max_rewrites`: a span already rewritten was rewritten again without its score being computed in between.",
  ),
  poisoned_span: q(
    '4.13',
    '413-poisoned_span-fault',
    "A span's `rewrite_count` is greater than `max_rewrites`: a paraphrase of a paraphrase. Its text can no longer be trusted, so rescoring does not help: the span is to be dropped.",
  ),
  spread_collapse: q(
    '4.14',
    '414-spread_collapse-warning',
    'On this snapshot and on each of the previous `collapse_turns − 1` snapshots of the session (consecutive accepted snapshots, whatever the gaps in turn numbers), `n_scored ≥ min_scored` and `stdev_score < spread_floor`. A snapshot that fails either test (or has no scored span) ends the run.',
  ),
  canary_inversion: q(
    '4.15',
    '415-canary_inversion-warning',
    'Needs a median. A pinned span\'s finite score is strictly below `median_score`. Pinned spans are the operator\'s "must keep" spans; a scorer that ranks them in the bottom half is losing track of what matters.',
  ),
  relevance_collapse: q(
    '4.16',
    '416-relevance_collapse-fault',
    '`spread_collapse` and `canary_inversion` both hold on this turn: the two-signal test for a collapsed scorer. Either alone is only a warning.',
  ),
  no_canary: q(
    '4.17',
    '417-no_canary-info',
    'No pinned span has a finite score, so relevance collapse cannot be detected. Emitted on the **first** turn of each run of consecutive such snapshots, not on every turn of the run.',
  ),
  pruned_on_stale_score: q(
    '4.18',
    '418-pruned_on_stale_score-fault',
    "Needs the previous snapshot. An id in this turn's `pruned` had, in the previous snapshot, an untrustworthy score (stale, unscored or unbound, §4.3): the loop evicted a span on a score it should not have used.",
  ),
  pruned_during_freeze: q(
    '4.19',
    '419-pruned_during_freeze-fault',
    "Needs the previous snapshot. This turn's `pruned` is not empty while the previous snapshot's verdict (§5) was `freeze`.",
  ),
  reference_disagreement: q(
    '7.2',
    '72-reference-scorer',
    'With `--scorer both` only: `reference_agreement` is below `reference_agreement_floor` (default 0: the two rank the spans no better than at random) on this snapshot and on each of the previous `collapse_turns − 1` snapshots of the session.',
  ),
  compaction: q('8.5', '85-compaction-info', 'A compaction (§8.3) takes effect at this turn: once per compaction, never on the turns after it.'),
  context_pressure: q(
    '8.7',
    '87-composition-and-context_pressure-info',
    "`tokens_total` ≥ `pressure_threshold` [0.8] × the session's context window, on the first turn of each run of such turns.",
  ),
  compaction_loss: q(
    '8.6',
    '86-compaction_loss-warning',
    'At this turn the number of confirmed losses of one compaction (lost items the agent went back for, §8.4) reaches `compaction_loss_min` [1]: once per compaction, at the first turn whose snapshot reports the refetch that makes it so.',
  ),
};
