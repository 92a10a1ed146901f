// The engine half of a session's analysis (docs/relay.md "Analysis"): one stored message in,
// a small digest out. It runs wherever the session's Engine lives: in SessionHealth on the
// relay's main thread (--analysis-threads 0), or on an analysis thread (analysisWorker.ts),
// which answers the main thread with the digest only: what SessionHealth.note, the overview
// and the alert rules read of a turn (contract §4–§5), and the acknowledgement's verdict
// (contract §7). The same function on both sides keeps their verdicts identical.
import type { TurnResult } from '../../core/analyse.ts';
import { Engine, type Outcome } from '../../core/engine.ts';
import type { Severity, Signal } from '../../core/signals.ts';
import type { AckVerdict, ContextSummary, LastCompaction } from '../../protocol/relay.ts';
import { contextHeadline } from '../../report/contextHeadline.ts';
import { nodeDecoder, nodeSha256 } from '../../node/platform.ts';
import type { ParsedMessage } from '../sessionGate.ts';

/** pruned ids remembered per session (Engine prunedMemory) */
const PRUNED_MEMORY = 4096;

/**
 * What the relay keeps of one turn: a structural subset of TurnResult (the alert rules read
 * `turn`, `findings` and `metrics.stdev_score` of either), plus the canaries' worst rank.
 */
export interface TurnDigest {
  turn: number;
  /** contract §4.1 order, a signal's findings together */
  findings: readonly { signal: Signal; severity: Severity }[];
  metrics: { stdev_score: number | null };
  verdict: Omit<AckVerdict, 'signals'>;
  /** the pinned canaries' worst rank over the spans scored (NaN when none was scored) */
  canary: number;
  /** contract §8.3: set on a turn that added or updated a compaction record: the session's last one, as it stands */
  compaction?: LastCompaction;
  /** contract §8.9: for a session in the reference scope (§8.1), its headline and figures as of this turn */
  context?: ContextSummary;
}

/** One stored message analysed: null when it changes nothing (blank, replayed). */
export type LineOutcome =
  | null
  /** `imported`: the header names the agent whose transcript an adapter read (`source`): its stream's pace is the reader's, not the agent's */
  | { k: 'header'; title: string | null; imported: boolean; agent: string | null; project: string | null }
  | { k: 'error'; message: string }
  /** `ts`: the snapshot's own time (ms, NaN when absent), the rate's clock when a log is re-read */
  | { k: 'turn'; turn: TurnDigest; ts: number };

export function newSessionEngine(): Engine {
  // the relay recognises retries before the engine sees a message (sessionGate.ts), so
  // the engine needs no replay fingerprints at all (replayMemory 0: hashing every span of
  // every turn was ~7% of the relay's CPU under bench/relay.ts)
  // nor the ids ever pruned beyond a few thousand: they only word orphaned_parent's
  // message, which the relay never reports (verdicts and signals are unchanged)
  return new Engine({ sha256: nodeSha256, replayMemory: 0, prunedMemory: PRUNED_MEMORY });
}

/** Only what the relay keeps of a turn (TurnResult's checks and span arrays stay behind). */
export function digestOf(r: TurnResult): TurnDigest {
  const findings = r.findings.map((f) => ({ signal: f.signal, severity: f.severity }));
  const v = r.verdict;
  const m = r.metrics;
  let canary = Number.NaN;
  if (m.canaries.length > 0 && m.n_scored > 0) {
    let rank = 0;
    for (const c of m.canaries) rank = Math.max(rank, c.rank);
    canary = rank / m.n_scored;
  }
  return {
    turn: r.turn,
    findings,
    metrics: { stdev_score: m.stdev_score },
    verdict: { turn: v.turn, action: v.action, prune_safe: v.prune_safe, recompute: v.recompute, drop: v.drop },
    canary,
  };
}

/**
 * Feeds `engine` the message stored as `seq` (its log line's bytes). `parsed`: the relay's
 * own parse and validation of it, when made on this thread (neither is done again).
 */
export function analyseLine(engine: Engine, seq: number, bytes: Uint8Array, parsed?: ParsedMessage): LineOutcome {
  let outcome: Outcome;
  if (parsed?.validated !== undefined) {
    // the relay parsed and validated it: neither is done again (the stored bytes are its text)
    outcome = engine.ingestValidated(parsed.validated, seq);
  } else if (parsed !== undefined) {
    // the relay parsed it to validate it: not parsed again (the stored bytes are its text)
    outcome = engine.ingestParsedLine(parsed.value, seq, parsed.noSurrogateEscape);
  } else {
    let text: string;
    try {
      text = nodeDecoder(bytes, 0, bytes.length);
    } catch (e) {
      return { k: 'error', message: (e as Error).message };
    }
    // a stored line passed the gate's full contract §2 validation when it was received: not
    // validated again (15% of an analysis thread's time; Engine.ingestTrustedLine)
    outcome = engine.ingestTrustedLine(text, seq);
  }
  switch (outcome.kind) {
    case 'header': {
      const h = outcome.header;
      const imported = typeof h.source === 'string' && h.source !== '';
      // the agent and its working folder (adapters write `source` and `project`): the overview's row of an imported session
      return {
        k: 'header',
        title: h.title ?? null,
        imported,
        agent: imported ? (h.source as string) : null,
        project: typeof h.project === 'string' && h.project !== '' ? h.project : null,
      };
    }
    case 'ignored':
      return null;
    case 'error':
      return { k: 'error', message: outcome.error.message };
    case 'turn': {
      const turn = digestOf(outcome.result);
      if (outcome.result.compaction !== null) {
        const last = lastCompaction(engine, outcome.result.sessionId);
        if (last !== null) turn.compaction = last;
      }
      const context = contextSummary(engine, outcome.result);
      if (context !== null) turn.context = context;
      return { k: 'turn', turn, ts: Date.parse(outcome.snapshot.ts ?? '') };
    }
  }
}

/**
 * The overview's compaction column, from the session's own engine (its ledger of records):
 * the last record, whose retention a later refetch may have changed since it took effect.
 */
export function lastCompaction(engine: Engine, sessionId: string): LastCompaction | null {
  const records = engine.analysis(sessionId)?.compactions.records ?? [];
  const r = records.at(-1);
  if (r === undefined) return null;
  const retention: LastCompaction['retention'] = {};
  let confirmed = 0;
  for (const [kind, k] of Object.entries(r.retention)) {
    retention[kind] = { ...k };
    confirmed += k.confirmed;
  }
  return { turn: r.turn, kind: r.kind, tokens_before: r.tokens_before, tokens_after: r.tokens_after, retention, confirmed, compactions: records.length };
}

/**
 * contract §8.9: an out-of-scope session's headline and the figures of its overview row
 * (agent, fill, compactions, confirmed losses), as of this turn; null for a session in the
 * full scope (its row keeps the score columns).
 */
export function contextSummary(engine: Engine, r: TurnResult): ContextSummary | null {
  const analysis = engine.analysis(r.sessionId);
  if (analysis === null || analysis.scope !== 'reference') return null;
  const records = analysis.compactions.records;
  // kept as the turns come: a pass over every item at every turn was n × n (docs/security.md "Linear time")
  const tally = analysis.compactions.tally(r.turn);
  const window = r.contextWindow?.tokens ?? null;
  const h = contextHeadline({
    turn: r.turn,
    tokensTotal: r.metrics.tokens_total,
    window,
    pressureThreshold: analysis.thresholds.pressure_threshold,
    orphanEdges: r.metrics.orphan_edges,
    compactions: records,
    tally,
  });
  return {
    kind: h.kind,
    label: h.label,
    text: h.text,
    tokens: r.metrics.tokens_total,
    context_window: window,
    fill: window === null || !(window > 0) ? null : Math.round((r.metrics.tokens_total / window) * 1e4) / 1e4,
    compactions: records.length,
    confirmed_losses: tally.losses,
    orphan_edges: r.metrics.orphan_edges,
  };
}
