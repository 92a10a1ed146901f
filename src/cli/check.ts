// `context-health check`: a transcript through the engine, to contract §6 report.
import { Engine, type InputError, type Outcome } from '../core/engine.ts';
import type { Thresholds } from '../core/config.ts';
import { CheckOutputBuilder, type CheckOutput } from '../core/checkOutput.ts';
import type { TranscriptFormat } from '../ingest/adapters/detect.ts';
import { TranscriptPipeline, type AdapterSummary } from '../ingest/adapters/pipeline.ts';
import { ScoringStage, type ScorerMode } from '../ingest/adapters/scoringStage.ts';
import { ReferenceDisagreement } from '../core/referenceDisagreement.ts';
import { EmbeddingScorer, TextCollector } from '../core/embeddingScorer.ts';
import type { SpanScorer } from '../core/referenceScorer.ts';
import { EmbeddingsClient, type EmbeddingsOptions } from '../node/embeddings.ts';
import fs from 'node:fs';
import os from 'node:os';
import type { LineSink } from '../ingest/lines.ts';
import { NodeLineParser, type NodeLine } from '../node/lineParser.ts';
import { LinePool } from '../node/linePool.ts';
import { KnownDigests } from '../node/lineRecords.ts';
import { nodeSha256 } from '../node/platform.ts';
import { readTranscript, type ReadProgress } from '../node/readFile.ts';
import { readTranscriptThreaded } from '../node/threadedRead.ts';
import { openHandsFolder, readOpenHandsFolder } from '../node/openhandsFolder.ts';
import { mayHoldLoneSurrogate } from '../core/validate.ts';

export interface CheckOptions {
  userThresholds: Partial<Thresholds>;
  /** a longer line or .json element is an input error, not read (src/ingest/lines.ts) */
  maxLineBytes?: number;
  onProgress?: (p: ReadProgress) => void;
  /**
   * a folder's files must each be a regular file inside this real path, opened without following
   * a final link (the relay's local sessions, docs/security.md "Local sessions")
   */
  inside?: string;
  /**
   * the file's own name when `path` names its open descriptor (`/proc/self/fd/N`, openRegular.ts
   * descriptorPath): a transcript that names no session is named after it, as when read by name
   */
  name?: string;
  /**
   * the path was listed as an OpenHands conversation's folder (`check <folder>`'s walk): anything
   * else found there now is an error, not read (a FIFO would be read as a stream, waiting for ever)
   */
  conversation?: true;
  /** `--from`: force a transcript format instead of telling it by content (docs/adapters.md) */
  from?: TranscriptFormat;
  /** `--scorer` (contract §7 reference scorer); default auto: the reference only where a session has no score */
  scorer?: ScorerMode;
  /**
   * false: the caller reads no score of a session in the reference scope, nor the metrics'
   * score figures (the human output, the folder table, the local sessions' rows, diff), so the
   * reference scorer leaves such a session alone (ScoringOptions.readsReferenceScores)
   */
  readsReferenceScores?: boolean;
  /**
   * false: the caller reads a session's summary alone (findings, verdicts, compactions, each
   * turn's tokens_total and orphan_edges, the window, input errors), never a per-span figure
   * (tokens_by_kind): the human output, the folder table, the local sessions' rows, diff. With
   * readsReferenceScores false too, an agent's adapter may then abridge its snapshots
   * (docs/engine.md "Snapshots abridged").
   */
  readsSpanFigures?: boolean;
  /** `--embeddings-url` (contract §7): the reference scores by embeddings instead of BM25 */
  embeddings?: EmbeddingsOptions;
  /** `--context-window N` (contract §8.7): the window when the model table and the header give none */
  contextWindow?: number;
  /** `--no-audit`: compactions without their audit items (contract §8.4; the bench's baseline) */
  audit?: boolean;
  /** sees every engine outcome as check counts it (`report` keeps the session's columns from them) */
  onOutcome?: (outcome: Outcome) => void;
  /**
   * `--threads`: threads in all, the main thread (reading, and the engine, in order) and N − 1
   * that parse, validate and hash lines (docs/perf-log/notebook.md, "Both cores"); default the
   * machine's cores. 1: the main thread alone. Only the product's own format (contract §2) is
   * spread, and not under `--scorer reference|both` (their stage rewrites each message in
   * order), nor a file under 8 MiB. Either way a snapshot line is read by the snapshot scanner
   * (src/ingest/snapshotScan.ts) where it can be, else parsed.
   */
  threads?: number;
  /** tests: false reads every line the ordinary way (JSON.parse, then validation), the scanner's reference */
  scan?: boolean;
  /** tests: bytes per batch of lines posted to a thread (src/node/threadedRead.ts) */
  threadBatchBytes?: number;
  /** tests: the threads get every batch they have room for, late or not (threadedRead.ts, ThreadShare) */
  threadFixedShare?: boolean;
  /** a file smaller than this is read on the main thread alone (default 8 MiB; tests: 0) */
  threadMinBytes?: number;
  /**
   * a plain file's chunks are read on this thread, not on libuv's pool (readFile.ts
   * ReadHooks.inPlace): `check`'s file pool, whose threads each read a file of their own
   */
  readsInPlace?: true;
}

export interface CheckResult {
  report: CheckOutput;
  /** session header titles, for the human output */
  titles: ReadonlyMap<string, string>;
  /** session header sources (the agent an adapter read), for the folder table */
  sources: ReadonlyMap<string, string>;
  /** the format read and, for other agents' transcripts, the records left out (docs/adapters.md) */
  adapter: AdapterSummary;
  /** each session's pressure_threshold as its engine resolved it, for the human output's contract §8.9 headline */
  pressureThresholds: ReadonlyMap<string, number>;
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
  // docs/adapters.md "OpenHands": a folder is an OpenHands conversation (its own, or its events/)
  const folder = path === '-' || !(await fs.promises.stat(path).catch(() => null))?.isDirectory() ? null : openHandsFolder(path);
  if (folder === null && path !== '-' && (await fs.promises.stat(path).catch(() => null))?.isDirectory()) {
    throw new Error('a folder is read only as an OpenHands conversation (one holding events/ and base_state.json, or its events/ folder)');
  }
  if (folder === null && options.conversation === true)
    throw new Error('not a folder any more (it was an OpenHands conversation when its folder was listed): not read');
  if (folder !== null && options.from !== undefined && options.from !== 'openhands')
    throw new Error(`a folder is read as an OpenHands conversation, not --from ${options.from}`);
  const threads = folder === null ? await threadsFor(path, options) : 0;
  // the parsing threads hash the texts they decode: the engine takes those digests
  const digests = threads > 0 ? new KnownDigests(nodeSha256) : null;
  const engine = new Engine({
    sha256: digests?.sha256 ?? nodeSha256,
    userThresholds: options.userThresholds,
    ...(options.contextWindow === undefined ? {} : { contextWindow: options.contextWindow }),
    ...(options.readsSpanFigures === false ? { readsSpanFigures: false } : {}),
  });
  const builder = new CheckOutputBuilder();
  const seen = options.onOutcome;
  const report = {
    add(o: Outcome): void {
      seen?.(o);
      builder.add(o);
    },
    addError: (e: InputError): void => builder.addError(e),
  };
  const addError = (line: number, message: string): void => report.addError({ line, message });
  // contract §7 adapters: other agents' transcripts become §2 messages before the engine
  const disagreement = new ReferenceDisagreement();
  const scoring = new ScoringStage(
    {
      text: (text, line) => report.add(engine.ingestLine(text, line)),
      value: (value, line, noSurrogateEscape) => {
        // another agent's transcript: its adapter numbers the turns, so none can come again (Engine.forgoReplays)
        if (pipeline.format !== null && pipeline.format !== 'wire' && engine.sessionCount === 0) engine.forgoReplays();
        const outcome = engine.ingestParsedLine(value, line, noSurrogateEscape);
        if (outcome.kind === 'turn') disagreement.observe(outcome, engine.thresholds(outcome.result.sessionId));
        report.add(outcome);
      },
      error: addError,
    },
    {
      mode: options.scorer ?? 'auto',
      sha256: nodeSha256,
      ...(makeScorer === undefined ? {} : { makeScorer }),
      ...(options.readsReferenceScores === false ? { readsReferenceScores: false } : {}),
    },
  );
  const pipeline = new TranscriptPipeline(scoring, {
    ...(folder !== null ? { from: 'openhands' as const } : options.from === undefined ? {} : { from: options.from }),
    fallbackSessionId: folder?.id ?? sessionIdFromPath(options.name ?? path),
    ...(options.audit === false ? { audit: false } : {}),
    ...(options.maxLineBytes === undefined ? {} : { maxRecordChars: options.maxLineBytes }),
    ...(abridges(options, makeScorer) ? { spans: 'abridged' as const } : {}),
  });
  const sink: LineSink<NodeLine> = (text, line) => {
    if (typeof text === 'string') pipeline.line(text, line);
    else if ('parsed' in text) pipeline.parsed(text.parsed, line);
    else pipeline.error(line, text.error);
  };
  const split = options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes };
  if (folder !== null) {
    await readOpenHandsFolder(
      folder,
      // its text may hold a lone surrogate's escape, which the pipeline reads as U+FFFD (wellFormed.ts), as the relay's body of it is
      { record: (value, line, text) => pipeline.parsed(value, line, mayHoldLoneSurrogate(text)), error: addError },
      {
        ...(options.maxLineBytes === undefined ? {} : { maxBytes: options.maxLineBytes }),
        ...(options.inside === undefined ? {} : { inside: options.inside }),
      },
    );
  } else if (digests === null) {
    await readTranscript(path, sink, addError, new NodeLineParser().decode, options.onProgress, split, { inPlace: options.readsInPlace === true });
  } else {
    // the main thread is one of them; with none, it reads every line itself, with the scanner
    const pool = threads > 1 ? new LinePool(threads - 1) : null;
    try {
      await readTranscriptThreaded(
        path,
        {
          // in the product's format, a line goes straight to the engine (TranscriptPipeline and
          // ScoringStage pass it on untouched); until the first line tells the format, and in
          // any other, lines go the ordinary way
          wantsRecords: () => pipeline.format === null || pipeline.format === 'wire',
          record: (record, taken, line) => {
            if (pipeline.format !== 'wire') return false;
            digests.use(record, taken);
            const outcome = engine.ingestValidated(taken.checked, line);
            // as the `value` feed above does for a parsed line, and the `text` feed does not
            if (record.parsed && outcome.kind === 'turn') disagreement.observe(outcome, engine.thresholds(outcome.result.sessionId));
            report.add(outcome);
            return true;
          },
          snapshot: (read, line) => {
            if (pipeline.format !== 'wire') return false;
            digests.clear(); // the engine hashes this line's texts itself
            const outcome = engine.ingestValidated(read.checked, line);
            if (read.parsed && outcome.kind === 'turn') disagreement.observe(outcome, engine.thresholds(outcome.result.sessionId));
            report.add(outcome);
            return true;
          },
          line: (text, line) => sink(text, line),
          structureError: addError,
        },
        pool,
        {
          ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
          split,
          ...(options.threadBatchBytes === undefined ? {} : { batchBytes: options.threadBatchBytes }),
          ...(options.threadFixedShare === true ? { fixedShare: true } : {}),
          inPlace: options.readsInPlace === true,
        },
      );
    } finally {
      await pool?.close();
    }
  }
  pipeline.end();
  const built = builder.build();
  const pressureThresholds = new Map<string, number>();
  for (const s of built.sessions) {
    const th = engine.thresholds(s.session_id);
    if (th !== null) pressureThresholds.set(s.session_id, th.pressure_threshold);
  }
  return { report: built, titles: builder.titles, sources: builder.sources, adapter: pipeline.summary(), pressureThresholds };
}

/**
 * docs/engine.md "Snapshots abridged": only where every imported session is in the reference
 * scope (contract §8.1; `--scorer harness` leaves it out of it) and nothing reads its spans'
 * scores, nor any per-span figure; never with a scorer of the caller's (it scores every span).
 */
function abridges(options: CheckOptions, makeScorer: (() => SpanScorer) | undefined): boolean {
  return options.readsSpanFigures === false && options.readsReferenceScores === false && makeScorer === undefined && options.scorer !== 'harness';
}

/**
 * A thread takes ~0.05 s to start (its code loaded, in a clone its bundle checked): the
 * small file `check` reads in ~0.1 s gains nothing from one (bench/startup.ts).
 */
const THREAD_MIN_BYTES = 8 << 20;

/**
 * Threads for this run, the main thread included; 0 where lines must take the ordinary
 * way, every one through the adapters' pipeline (a reference scorer scores them there;
 * another agent's transcript is mapped there), or when told (`scan: false`, the tests'
 * reference). With 1, the main thread reads the lines itself with the snapshot scanner.
 */
async function threadsFor(path: string, options: CheckOptions): Promise<number> {
  const threads = Math.max(1, Math.floor(options.threads ?? os.availableParallelism()));
  const scorer = options.scorer ?? 'auto';
  if (options.scan === false || (scorer !== 'auto' && scorer !== 'harness')) return 0;
  if (options.from !== undefined && options.from !== 'wire') return 0;
  if (threads === 1) return 1;
  // a stream (stdin, a FIFO) may be long: threads; a file that cannot be read is left to say so as before
  const st = path === '-' ? null : await fs.promises.stat(path).catch(() => null);
  return st !== null && st.isFile() && st.size < (options.threadMinBytes ?? THREAD_MIN_BYTES) ? 1 : threads;
}

/** A transcript that names no session is named after its file (Claude Code: the file name is the session id). */
function sessionIdFromPath(path: string): string {
  const base = path.split(/[\\/]/).pop() ?? '';
  // mini-swe-agent's `<instance>.traj.json` is named after its instance
  const stem = base.replace(/\.(jsonl|json|traj|traj\.json)(\.gz)?$/, '');
  return stem === '' || path === '-' ? 'transcript' : stem;
}
