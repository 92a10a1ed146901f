// SPEC §6 `check --json` shape, accumulated one outcome at a time.
import type { TurnMetrics, TurnResult } from './analyse.ts';
import type { InputError, Outcome } from './engine.ts';
import { SEVERITY_RANK, type Finding, type Severity, type Verdict } from './signals.ts';

export type ReportMetrics = Omit<TurnMetrics, 'p10_score' | 'p90_score' | 'tokens_estimated'>;

export interface SessionReport {
  session_id: string;
  title?: string;
  turns: number;
  findings: Finding[];
  verdicts: Verdict[];
  metrics: ReportMetrics[];
}

export interface CheckReport {
  sessions: SessionReport[];
  input_errors: InputError[];
}

export class ReportBuilder {
  private readonly bySession = new Map<string, SessionReport>();
  readonly inputErrors: InputError[] = [];

  add(outcome: Outcome): void {
    switch (outcome.kind) {
      case 'turn':
        this.addTurn(outcome.result);
        break;
      case 'header': {
        const s = this.session(outcome.sessionId);
        if (outcome.header.title !== undefined) s.title = outcome.header.title;
        break;
      }
      case 'error':
        this.inputErrors.push(outcome.error);
        break;
      case 'ignored':
        break;
    }
  }

  addError(error: InputError): void {
    this.inputErrors.push(error);
  }

  get snapshotCount(): number {
    let n = 0;
    for (const s of this.bySession.values()) n += s.turns;
    return n;
  }

  build(): CheckReport {
    return { sessions: [...this.bySession.values()], input_errors: [...this.inputErrors].sort((a, b) => a.line - b.line) };
  }

  private addTurn(r: TurnResult): void {
    const s = this.session(r.sessionId);
    s.turns++;
    for (const f of r.findings) s.findings.push(f);
    s.verdicts.push(r.verdict);
    const { p10_score: _p10, p90_score: _p90, tokens_estimated: _est, ...metrics } = r.metrics;
    s.metrics.push(metrics);
  }

  private session(id: string): SessionReport {
    let s = this.bySession.get(id);
    if (s === undefined) {
      s = { session_id: id, turns: 0, findings: [], verdicts: [], metrics: [] };
      this.bySession.set(id, s);
    }
    return s;
  }
}

/** SPEC §6 --fail-on: does any finding reach the level? */
export function reachesFailLevel(report: CheckReport, level: Severity | 'never'): boolean {
  if (level === 'never') return false;
  const min = SEVERITY_RANK[level];
  return report.sessions.some((s) => s.findings.some((f) => SEVERITY_RANK[f.severity] >= min));
}
