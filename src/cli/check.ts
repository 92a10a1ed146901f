// `context-health check`: a transcript through the engine, to contract §6 report.
import { Engine, type InputError, type Outcome } from '../core/engine.ts';
import type { Thresholds } from '../core/config.ts';
import { ReportBuilder, type CheckReport } from '../core/report.ts';
import type { TranscriptFormat } from '../ingest/adapters/detect.ts';
import { TranscriptPipeline, type AdapterSummary } from '../ingest/adapters/pipeline.ts';
import { ScoringStage, type ScorerMode } from '../ingest/adapters/scoringStage.ts';
import { ReferenceDisagreement } from '../core/referenceDisagreement.ts';
import { EmbeddingScorer, TextCollector } from '../core/embeddingScorer.ts';
import type { SpanScorer } from '../core/referenceScorer.ts';
import { EmbeddingsClient, type EmbeddingsOptions } from '../node/embeddings.ts';
import { NodeLineParser } from '../node/lineParser.ts';
import { nodeSha256 } from '../node/platform.ts';
import { readTranscript, type ReadProgress } from '../node/readFile.ts';

export interface CheckOptions {
  userThresholds: Partial<Thresholds>;
  /** a longer line or .json element is an input error, not read (src/ingest/lines.ts) */
  maxLineBytes?: number;
  onProgress?: (p: ReadProgress) => void;
  /** `--from`: force a transcript format instead of telling it by content (docs/adapters.md) */
  from?: TranscriptFormat;
  /** `--scorer` (contract §7 reference scorer); default auto: the reference only where a session has no score */
  scorer?: ScorerMode;
  /** `--embeddings-url` (contract §7): the reference scores by embeddings instead of BM25 */
  embeddings?: EmbeddingsOptions;
  /** `--context-window N` (contract §8.7): the window when the model table and the header give none */
  contextWindow?: number;
  /** `--no-audit`: compactions without their audit items (contract §8.4; the bench's baseline) */
  audit?: boolean;
  /** sees every engine outcome as check counts it (`report` keeps the session's columns from them) */
  onOutcome?: (outcome: Outcome) => void;
}

export interface CheckResult {
  report: CheckReport;
  /** session header titles, for the human report */
  titles: ReadonlyMap<string, string>;
  /** the format read and, for other agents' transcripts, the records left out (docs/adapters.md) */
  adapter: AdapterSummary;
}

export async function checkTranscript(path: string, options: CheckOptions): Promise<CheckResult> {
  if (options.embeddings === undefined) return run(path, options);
  // contract §7 embeddings: the scorer is synchronous (the stage is the same in every door), so
  // a first pass collects every text the reference will score, the endpoint is asked for them
  // (batched, each distinct text once), and the second pass scores from the cache
  if (path === '-') throw new Error('--embeddings-url reads the file twice, so it needs a file, not stdin');
  const texts = new Set<string>();
  await run(path, options, () => new TextCollector(texts));
  const client = new EmbeddingsClient(options.embeddings);
  await client.embedAll(texts);
  return run(path, options, () => new EmbeddingScorer((t) => client.get(t)));
}

async function run(path: string, options: CheckOptions, makeScorer?: () => SpanScorer): Promise<CheckResult> {
  const engine = new Engine({
    sha256: nodeSha256,
    userThresholds: options.userThresholds,
    ...(options.contextWindow === undefined ? {} : { contextWindow: options.contextWindow }),
  });
  const builder = new ReportBuilder();
  const seen = options.onOutcome;
  const report = {
    add(o: Outcome): void {
      seen?.(o);
      builder.add(o);
    },
    addError: (e: InputError): void => builder.addError(e),
  };
  // contract §7 adapters: other agents' transcripts become §2 messages before the engine
  const disagreement = new ReferenceDisagreement();
  const scoring = new ScoringStage(
    {
      text: (text, line) => report.add(engine.ingestLine(text, line)),
      value: (value, line, noSurrogateEscape) => {
        const outcome = engine.ingestParsedLine(value, line, noSurrogateEscape);
        if (outcome.kind === 'turn') disagreement.observe(outcome, engine.thresholds(outcome.result.sessionId));
        report.add(outcome);
      },
      error: (line, message) => report.addError({ line, message }),
    },
    { mode: options.scorer ?? 'auto', sha256: nodeSha256, ...(makeScorer === undefined ? {} : { makeScorer }) },
  );
  const pipeline = new TranscriptPipeline(scoring, {
    ...(options.from === undefined ? {} : { from: options.from }),
    fallbackSessionId: sessionIdFromPath(path),
    ...(options.audit === false ? { audit: false } : {}),
  });
  await readTranscript(
    path,
    (text, line) => {
      if (typeof text === 'string') pipeline.line(text, line);
      else if ('parsed' in text) pipeline.parsed(text.parsed, line);
      else pipeline.error(line, text.error);
    },
    (line, message) => report.addError({ line, message }),
    new NodeLineParser().decode,
    options.onProgress,
    options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes },
  );
  pipeline.end();
  return { report: builder.build(), titles: builder.titles, adapter: pipeline.summary() };
}

/** A transcript that names no session is named after its file (Claude Code: the file name is the session id). */
function sessionIdFromPath(path: string): string {
  const base = path.split(/[\\/]/).pop() ?? '';
  const stem = base.replace(/\.(jsonl|json|traj)(\.gz)?$/, '');
  return stem === '' || path === '-' ? 'transcript' : stem;
}
