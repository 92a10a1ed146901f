// `context-health check`: a transcript through the engine, to contract §6 report.
import { Engine } from '../core/engine.ts';
import type { Thresholds } from '../core/config.ts';
import { ReportBuilder, type CheckReport } from '../core/report.ts';
import { NodeLineParser } from '../node/lineParser.ts';
import { nodeSha256 } from '../node/platform.ts';
import { readTranscript, type ReadProgress } from '../node/readFile.ts';

export interface CheckOptions {
  userThresholds: Partial<Thresholds>;
  /** a longer line or .json element is an input error, not read (src/ingest/lines.ts) */
  maxLineBytes?: number;
  onProgress?: (p: ReadProgress) => void;
}

export interface CheckResult {
  report: CheckReport;
  /** session header titles, for the human report */
  titles: ReadonlyMap<string, string>;
}

export async function checkTranscript(path: string, options: CheckOptions): Promise<CheckResult> {
  const engine = new Engine({ sha256: nodeSha256, userThresholds: options.userThresholds });
  const report = new ReportBuilder();
  await readTranscript(
    path,
    (text, line) => {
      if (typeof text === 'string') report.add(engine.ingestLine(text, line));
      else if ('parsed' in text) report.add(engine.ingestParsedLine(text.parsed, line, true));
      else report.addError({ line, message: text.error });
    },
    (line, message) => report.addError({ line, message }),
    new NodeLineParser().decode,
    options.onProgress,
    options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes },
  );
  return { report: report.build(), titles: report.titles };
}
