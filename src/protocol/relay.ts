// The relay's protocol as every side sees it: the relay (src/server) produces these shapes,
// the harness client (src/client/harness.ts) reads acks' verdicts, and the page
// (app/queries, app/features) reads sessions, overview rows, alert rules and firings.
// Types only, importing nothing, so any of the three may import it (eslint.config.js).

/** One entry of `GET /api/sessions` and the answer of `GET /api/sessions/<id>`. */
export interface RelaySession {
  session_id: string;
  /** the session header's title; null before a header with one arrived */
  title: string | null;
  messages: number;
  last_seq: number;
  /** the last stored snapshot's turn; null while the session holds only its header */
  last_turn: number | null;
  created_at: string;
  updated_at: string;
}

/** `GET /api/sessions` */
export interface RelaySessionList {
  sessions: RelaySession[];
}

// ---- Analysis by the relay (contract §7 verdict in the acknowledgement; docs/relay-protocol.md) ----

/** The §5 verdict of one turn, as an ack carries it (`verdict` key of an ack). */
export interface AckVerdict {
  turn: number;
  action: 'prune_ok' | 'recompute' | 'freeze';
  prune_safe: boolean;
  recompute: string[];
  drop: string[];
  /** the signals that fired on this turn, each once, in contract §4.1 order */
  signals: string[];
}

export type SessionStatus = 'live' | 'idle' | 'ended';
export type SeverityName = 'fault' | 'warning' | 'info';

/** One session as the overview shows it: `GET /api/overview` and the overview channel. */
export interface SessionSummary {
  session_id: string;
  title: string | null;
  status: SessionStatus;
  /** snapshots analysed */
  turns: number;
  last_turn: number | null;
  /** the last turn's verdict; null before the first snapshot (or while the relay rebuilds it) */
  verdict: AckVerdict | null;
  /** the worst severity among the last `window` turns' findings; null when none fired */
  worst_recent: SeverityName | null;
  /** the latest turn with that severity among them (so a row whose verdict is now prune_ok says when the fault was) */
  worst_recent_turn: number | null;
  /** how many turns `worst_recent` looks at */
  window: number;
  /** the last fault-severity finding: its signal and turn */
  last_fault: { signal: string; turn: number } | null;
  /** findings per signal since the session began */
  counts: Record<string, number>;
  /**
   * snapshots per minute over the last turns received, while the session is live; null when
   * idle or ended, for an imported agent's transcript (streamed at the reader's pace, not the
   * agent's), and with fewer than two
   */
  rate_per_min: number | null;
  /** the header names the agent whose transcript an adapter read (docs/adapters.md) */
  imported: boolean;
  /** per turn, oldest first, at most `series` points: score stdev (the spread) and the worst pinned span's rank as a fraction of the scored spans (1 = bottom); null where not defined */
  spread: (number | null)[];
  canary_rank: (number | null)[];
  updated_at: string;
  /** false while the relay is still reading this session's log after a restart */
  analysed: boolean;
  /** contract §8.3: the session's last compaction, as its engine's audit stands now; null before any */
  last_compaction: LastCompaction | null;
  /** the agent an adapter read the transcript of (the header's `source`: `claude-code`, `codex`, …), null for a native session */
  agent: string | null;
  /** the agent's working folder (the header's `project`), null when the transcript does not say */
  project: string | null;
  /** contract §8.9: a session in the reference scope (§8.1): its headline and figures at the last turn; null otherwise */
  context: ContextSummary | null;
}

/** contract §8.9: what the overview shows of a session where no score detector ran, as of its last turn. */
export interface ContextSummary {
  /** lineage_broken | loss_confirmed | near_limit | context_ok (src/report/contextHeadline.ts) */
  kind: string;
  /** the headline's word, e.g. LOSS CONFIRMED */
  label: string;
  /** the headline in one line */
  text: string;
  tokens: number;
  /** tokens, null when no window is known (contract §8.7) */
  context_window: number | null;
  /** tokens / context_window (0–1, four decimals), null without a window */
  fill: number | null;
  compactions: number;
  /** confirmed losses of every compaction so far (contract §8.4) */
  confirmed_losses: number;
  orphan_edges: number;
}

/** Retention of one item kind of a compaction (contract §8.3 `retention`). */
export interface KindRetentionJson {
  items: number;
  kept: number;
  paraphrased: number;
  lost: number;
  /** lost items the agent went back for */
  confirmed: number;
  /** items that could not be judged (an encrypted summary, contract §8.4); only when there are some */
  unknown?: number;
}

/** The overview's compaction column: the last compaction of a session (contract §8.3) in brief. */
export interface LastCompaction {
  turn: number;
  kind: string;
  tokens_before: number | null;
  tokens_after: number;
  /** per item kind (`file`, `user_prompt`, `todo`, `command`, `error`) */
  retention: Record<string, KindRetentionJson>;
  /** confirmed losses of this compaction, every kind */
  confirmed: number;
  /** compactions of the session so far */
  compactions: number;
}

/** `GET /api/overview` */
export interface Overview {
  sessions: SessionSummary[];
  /** the most recent alert firings, newest first */
  alerts: AlertFiring[];
  /** false when the relay was started with --no-analysis (then `sessions` is empty) */
  analysis: boolean;
}

/** Frames of `WS /api/overview/subscribe`. */
export type OverviewFrame =
  | { type: 'hello'; sessions: SessionSummary[]; alerts: AlertFiring[]; analysis: boolean }
  /** sessions that changed since the last frame (batched, at most a few frames a second) and sessions removed */
  | { type: 'summaries'; sessions: SessionSummary[]; removed: string[] }
  | { type: 'alert'; alert: AlertFiring }
  | { type: 'bye'; reason: string };

// ---- Alerts (docs/relay.md "Alerts") ----

/** What a rule watches, on each analysed snapshot. Exactly one of signal / action / baseline. */
export interface AlertCondition {
  /** a contract §4 signal, or `any`: some finding of at least `min_severity` */
  signal?: string;
  /** the turn's verdict action */
  action?: 'prune_ok' | 'recompute' | 'freeze';
  /** score spread (stdev) below `percent`% of the median spread of the session's own first `turns` snapshots */
  spread_below_baseline?: { percent: number; turns: number };
  min_severity?: SeverityName;
}

export interface AlertRule extends AlertCondition {
  id: string;
  /** the condition must hold on this many snapshots in a row (default 1); it fires once per run */
  for_turns: number;
  /** one session id; absent = every session */
  session_id?: string;
  /** where to POST each firing (Slack-compatible `text`); absent = history and dashboard only */
  webhook?: string;
  created_at: string;
}

/** The body of `POST /api/alerts/rules` (and of `context-health alerts add`). */
export type AlertRuleInput = Omit<AlertRule, 'id' | 'created_at' | 'for_turns'> & { for_turns?: number };

/** One firing, kept in the alert history (`GET /api/alerts/history`) and POSTed to the rule's webhook. */
export interface AlertFiring {
  id: string;
  rule_id: string;
  session_id: string;
  title: string | null;
  turn: number;
  seq: number;
  /** what held, e.g. "relevance_collapse (fault) for 2 turns" */
  what: string;
  severity: SeverityName;
  fired_at: string;
  /** opens the dashboard on that session at that turn */
  link: string;
  /** Slack-compatible summary line */
  text: string;
  /** the rule's webhook when the firing was made (it is delivered there, retried across restarts) */
  webhook?: string;
}

/** One delivery attempt of a firing to a webhook (`GET /api/alerts/deliveries`). */
export interface AlertDelivery {
  alert_id: string;
  url: string;
  attempt: number;
  at: string;
  /** `delivered`, `retrying` (with the next attempt's time) or `failed` (gave up) */
  outcome: 'delivered' | 'retrying' | 'failed';
  status: number | null;
  error: string | null;
}
