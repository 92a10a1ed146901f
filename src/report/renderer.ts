// What `context-health report` (src/cli/report.ts, Node) asks of the report renderer
// (src/render, which runs the dashboard's chart components under Node): the contract
// between the two, in types only. The CLI loads the renderer at run time, so the Node
// project's type check does not pull in the app (tsconfig.render.json checks the renderer).
import type { Thresholds } from '../core/config.ts';
import type { Outcome } from '../core/engine.ts';
import type { ReportData } from './markdown.ts';
import type { StampSource } from './stamp.ts';

export interface ReportJob {
  scope: ReportData['scope'];
  format: 'md' | 'html';
  /** the stamp's and report's export time (UTC ISO), or null: reproducible bytes */
  exportedAt: string | null;
  source: StampSource;
  /** the session to report on; default the first with a snapshot */
  sessionId: string | null;
  userThresholds: Partial<Thresholds>;
  /** where the report's links to the contract point (the CLI: docs/contract.md relative to the output folder) */
  contractUrl: string;
  /** the folder holding DejaVuSans.ttf and DejaVuSans-Bold.ttf (assets/fonts) */
  fontDir: string;
}

export interface ReportFile {
  /** path relative to the output folder */
  name: string;
  bytes: Uint8Array;
}

/** Takes the engine's outcomes as `check` reads the file. */
export interface OutcomeSink {
  take(outcome: Outcome): void;
}

export interface ReportRenderer {
  /** loads what drawing needs (React, Recharts, the DOM, the chart modules); started while the file is read */
  prepare(): Promise<void>;
  sink(userThresholds: Partial<Thresholds>): OutcomeSink;
  /** the report's files; throws with a sentence when the session or scope does not exist */
  render(sink: OutcomeSink, job: ReportJob): Promise<{ files: ReportFile[]; data: ReportData }>;
}
