// Plain words for each contract §4 signal: what it means and what the harness should do.
// Shown next to findings, in the summary and in chart legends, and in incident reports
// (the dashboard's and `context-health report`'s, src/report/markdown.ts).
import type { Signal } from '../core/signals.ts';

export interface SignalInfo {
  title: string;
  means: string;
  todo: string;
}

export const SIGNAL_INFO: Readonly<Record<Signal, SignalInfo>> = {
  unbound_score: {
    title: 'Unbound score',
    means: 'A span carries a score but no text_sha256, so nothing ties the score to the text it was computed on.',
    todo: 'Recompute these scores and store the hash of the text they were computed on.',
  },
  stale_score: {
    title: 'Stale score',
    means: "The text changed after it was scored: text_sha256 no longer matches the text's sha256.",
    todo: 'Recompute the listed spans (and their neighbours) before pruning; never adjust a stale score.',
  },
  unscored_span: {
    title: 'Unscored span',
    means: 'A span was invalidated (score null) and has not been rescored yet.',
    todo: 'Recompute before the next prune; do not prune it on a missing score.',
  },
  invalidation_shortfall: {
    title: 'Invalidation shortfall',
    means: 'The rewrite reported more spans modified than scores invalidated.',
    todo: 'Invalidate every modified span, then recompute; pruning now acts on stale scores.',
  },
  unreported_rewrite: {
    title: 'Unreported rewrite',
    means: "More span texts changed than the rewrite reported: the model's own report cannot be trusted.",
    todo: 'Detect changes by hashing texts in the harness, not by trusting the report; recompute the changed spans.',
  },
  relevance_inflation: {
    title: 'Relevance inflation',
    means: 'A rewrite made the context shorter while mean relevance rose beyond the tolerance: a compression artifact.',
    todo: 'Treat the rise as suspect; recompute scores on the rewritten texts.',
  },
  monotonic_drift: {
    title: 'Monotonic drift',
    means: 'Relevance inflated on several rewrite turns in a row: scores are drifting, not improving.',
    todo: 'Stop trusting the scorer on rewritten spans; recompute from the original texts.',
  },
  orphaned_parent: {
    title: 'Orphaned parent',
    means: 'A live span derives from a span that is no longer in the context.',
    todo: 'Never prune a parent a live summary derives from; restore the parent or drop the summary.',
  },
  rewrite_repeat: {
    title: 'Rewrite of a rewrite',
    means: 'An already rewritten span was rewritten again without a recompute.',
    todo: 'Recompute before rewriting it once more; one more rewrite poisons it.',
  },
  poisoned_span: {
    title: 'Poisoned span',
    means: 'Paraphrase of a paraphrase: rewritten more than max_rewrites times without a recompute.',
    todo: 'Drop the span; do not rescore it.',
  },
  spread_collapse: {
    title: 'Spread collapse',
    means: 'The score distribution narrowed below the spread floor for several snapshots.',
    todo: 'Watch the canaries; if a pinned span sinks too, freeze pruning.',
  },
  canary_inversion: {
    title: 'Canary inversion',
    means: 'A pinned, load-bearing span scored below the median.',
    todo: 'Check the scorer; with a spread collapse this is a relevance collapse.',
  },
  relevance_collapse: {
    title: 'Relevance collapse',
    means: 'Spread collapsed and pinned canaries sank below the median: the scorer has collapsed.',
    todo: 'Freeze pruning and carry the full context forward until scores recover.',
  },
  no_canary: {
    title: 'No canary',
    means: 'No pinned span carries a score, so relevance collapse cannot be detected.',
    todo: 'Pin at least one load-bearing span (e.g. the task statement) and keep scoring it.',
  },
  pruned_on_stale_score: {
    title: 'Pruned on a stale score',
    means: 'A span was pruned while its score was null, unbound or stale at the previous turn.',
    todo: 'Make the pruner refuse spans whose score is not bound to their text.',
  },
  pruned_during_freeze: {
    title: 'Pruned during a freeze',
    means: "Spans were pruned although the previous turn's verdict was freeze.",
    todo: 'Make the pruner honour the freeze verdict.',
  },
  reference_disagreement: {
    title: 'Disagrees with the reference scorer',
    means: "The harness's scores rank the spans unlike the independent reference scorer (BM25 against the task), turn after turn.",
    todo: "Check the harness's scorer: it may be scoring something other than relevance to the task.",
  },
  compaction: {
    title: 'Compaction',
    means: 'The context was rewritten: spans were replaced by a summary (or cleared in place). The audit lists what the surviving text still holds.',
    todo: 'Read the audit: a lost instruction or file is not in the context any more; restate what still matters.',
  },
  context_pressure: {
    title: 'Context nearly full',
    means: "The context holds most of the model's window: the agent will compact (or fail) soon.",
    todo: 'Save what must survive (pinned instructions, the task, open files) before the compaction, or compact on your own terms now.',
  },
  compaction_loss: {
    title: 'Compaction lost something needed',
    means: 'An item the compaction lost was gone back for later: a file read again, a prompt the user had to restate.',
    todo: 'Make the compaction keep items of this kind (the summary prompt, or pinned instructions), or restore them after it.',
  },
};
