// contract §7 reference_disagreement (warning): the harness's scores and the reference
// scorer's rank the live spans differently (Kendall τ-b below `reference_agreement_floor`)
// on `collapse_turns` consecutive snapshots of the session. A snapshot without an
// agreement (no `check --scorer both`, fewer than two spans scored by both, or every score
// tied) ends the run, as a snapshot that fails the test does in §4.14.
import type { Thresholds } from './config.ts';
import type { Outcome } from './engine.ts';

export class ReferenceDisagreement {
  private readonly runs = new Map<string, number>();

  /** Appends the finding to a turn's result when the rule holds (last in §4.1 order, as in signals.ts). */
  observe(outcome: Outcome, thresholds: Thresholds | null): void {
    if (outcome.kind !== 'turn' || thresholds === null) return;
    const { result, snapshot } = outcome;
    const tau = snapshot.reference_agreement;
    const below = typeof tau === 'number' && tau < thresholds.reference_agreement_floor;
    const run = below ? (this.runs.get(result.sessionId) ?? 0) + 1 : 0;
    this.runs.set(result.sessionId, run);
    if (run < thresholds.collapse_turns) return;
    // contract §8: after the §4 signals, before the compaction signals
    const at = result.findings.findIndex((f) => f.signal === 'compaction' || f.signal === 'compaction_loss');
    result.findings.splice(at < 0 ? result.findings.length : at, 0, {
      turn: result.turn,
      signal: 'reference_disagreement',
      severity: 'warning',
      span_ids: [],
      message: `the harness's scores rank the spans unlike the reference scorer (Kendall τ-b ${String(tau)} < ${thresholds.reference_agreement_floor}) for ${run} snapshots in a row`,
    });
  }
}
