// contract §6 `check --json` shape, accumulated one outcome at a time.
import type { TurnMetrics, TurnResult } from './analyse.ts';
import type { CompactionRecord } from './compactions.ts';
import type { ContextWindow } from './composition.ts';
import { notApplicable, scopeOf } from './scope.ts';
import type { InputError, Outcome } from './engine.ts';
import { InputErrorList, type OmittedInputErrors } from './inputErrorList.ts';
import { SEVERITY_RANK, type Finding, type Severity, type Signal, type Verdict } from './signals.ts';

/** contract §6: the per-turn metrics of the `check --json` shape, exactly these keys. */
export type CheckMetrics = Pick<
  TurnMetrics,
  'turn' | 'tokens_total' | 'mean_score' | 'median_score' | 'stdev_score' | 'n_scored' | 'orphan_edges' | 'tokens_by_kind'
>;

export interface SessionOutput {
  session_id: string;
  turns: number;
  findings: Finding[];
  verdicts: Verdict[];
  metrics: CheckMetrics[];
  /** contract §8.1: the detectors left out of this session, with the reason; absent when none */
  not_applicable?: Partial<Record<Signal, string>>;
  /** contract §8.3: the session's compactions; absent when none */
  compactions?: CompactionRecord[];
  /** contract §8.7: the session's context window and where it came from; absent when unknown */
  context_window?: ContextWindow;
}

export interface CheckOutput {
  sessions: SessionOutput[];
  /** contract §2.5: the first 1,000 input errors by line */
  input_errors: InputError[];
  /** contract §6.1: the errors past those, counted by reason; absent when every error is listed */
  input_errors_omitted?: OmittedInputErrors;
}

/** Every input error of the report, listed or only counted (contract §2.5). */
export function inputErrorCount(report: Pick<CheckOutput, 'input_errors' | 'input_errors_omitted'>): number {
  return report.input_errors.length + (report.input_errors_omitted?.count ?? 0);
}

export class CheckOutputBuilder {
  private readonly bySession = new Map<string, SessionOutput>();
  private readonly inputErrors = new InputErrorList<InputError>();
  /** header titles, for the human output (not part of contract §6 JSON shape) */
  readonly titles = new Map<string, string>();
  /** header sources (the agent an adapter read: docs/adapters.md), for the folder table's agent column */
  readonly sources = new Map<string, string>();

  add(outcome: Outcome): void {
    switch (outcome.kind) {
      case 'turn':
        this.addTurn(outcome.result);
        break;
      case 'header': {
        const s = this.session(outcome.sessionId);
        const skipped = notApplicable(scopeOf(outcome.header));
        if (Object.keys(skipped).length > 0) s.not_applicable = { ...skipped };
        if (outcome.header.title !== undefined) this.titles.set(outcome.sessionId, outcome.header.title);
        if (typeof outcome.header.source === 'string') this.sources.set(outcome.sessionId, outcome.header.source);
        break;
      }
      case 'error':
        this.inputErrors.add(outcome.error);
        break;
      case 'ignored':
        break;
    }
  }

  addError(error: InputError): void {
    this.inputErrors.add(error);
  }

  build(): CheckOutput {
    // contract §6 shape: {line, message} per input error, in line order; past the first
    // 1,000 (§2.5), one more key, so a report of fewer errors is the same bytes as before
    const input_errors = this.inputErrors.listed().map((e) => ({ line: e.line, message: e.message }));
    const omitted = this.inputErrors.omitted();
    return { sessions: [...this.bySession.values()], input_errors, ...(omitted === null ? {} : { input_errors_omitted: omitted }) };
  }

  private addTurn(r: TurnResult): void {
    const s = this.session(r.sessionId);
    s.turns++;
    for (const f of r.findings) s.findings.push(f);
    s.verdicts.push(r.verdict);
    const record = r.compaction?.record;
    if (record != null) (s.compactions ??= []).push(record);
    const m = r.metrics;
    s.metrics.push({
      turn: m.turn,
      tokens_total: m.tokens_total,
      mean_score: m.mean_score,
      median_score: m.median_score,
      stdev_score: m.stdev_score,
      n_scored: m.n_scored,
      orphan_edges: m.orphan_edges,
      ...(m.tokens_by_kind === undefined ? {} : { tokens_by_kind: m.tokens_by_kind }),
    });
    if (r.contextWindow !== null) s.context_window = r.contextWindow;
  }

  private session(id: string): SessionOutput {
    let s = this.bySession.get(id);
    if (s === undefined) {
      s = { session_id: id, turns: 0, findings: [], verdicts: [], metrics: [] };
      this.bySession.set(id, s);
    }
    return s;
  }
}

/** contract §6 --fail-on: does any finding reach the level? */
export function reachesFailLevel(report: CheckOutput, level: Severity | 'never'): boolean {
  if (level === 'never') return false;
  const min = SEVERITY_RANK[level];
  return report.sessions.some((s) => s.findings.some((f) => SEVERITY_RANK[f.severity] >= min));
}
