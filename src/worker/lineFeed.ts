// A transcript (file or URL) as numbered lines: bytes read in chunks, gzip unwrapped,
// split on newline bytes (or into the elements of a JSON array) and decoded, in the
// analysis Worker itself. (A separate reader Worker passing decoded lines over was
// measured slower on a 2-core machine: see docs/dashboard.md.) Given parsing Workers, each
// line of the product's format is parsed, validated and hashed there and arrives as a
// compact record (pooledLines.ts), in file order.
import { DEFAULT_MAX_LINE_BYTES } from '../ingest/lines.ts';
import type { Sha256Hex } from '../core/analyse.ts';
import { TranscriptPipeline, type AdapterSummary, type MessageFeed } from '../ingest/adapters/pipeline.ts';
import { ScoringStage, type ScorerMode } from '../ingest/adapters/scoringStage.ts';
import type { LineRecord, ReadSnapshot, TakenRecord } from '../ingest/lineRecords.ts';
import { TranscriptReader, TranscriptSplitter } from '../ingest/transcript.ts';
import { openFile, openUrl, readBytes } from './fileSource.ts';
import type { ParsePool } from './parsePool.ts';
import { PooledLines, type PooledOptions } from './pooledLines.ts';

export type FeedSource = { kind: 'file'; file: Blob } | { kind: 'url'; url: string };

/** What a read may cost, whatever the file holds (issue 8: degenerate files). */
export interface ReadLimits {
  /** longest line (or JSON array element) decoded: a longer one is one input error naming the cap */
  maxLineBytes: number;
  /** most bytes a .gz is unpacked to: past it the read stops with a plain message */
  maxDecompressedBytes: number;
}

// The line cap is the readers' shared default (64 MiB, src/ingest/lines.ts): four times the
// relay's largest message (16 MiB), so no transcript the relay could have carried is refused. 1 GiB unpacked is 2.5 times the largest file measured (403 MB, read
// in about 20 s), and a gzip bomb of blank lines (the slowest kind, a line per byte) reaches it
// in well under a minute.
export const DEFAULT_READ_LIMITS: ReadLimits = { maxLineBytes: DEFAULT_MAX_LINE_BYTES, maxDecompressedBytes: 2 ** 30 };

export interface FeedSink {
  line(text: string, lineNo: number): void;
  /**
   * a parsed message (docs/adapters.md); without this method it arrives as a line of JSON.
   * `adapted`: the file is another agent's transcript, so an adapter made the message and
   * numbered its turn (Engine.forgoReplays)
   */
  value?(value: unknown, lineNo: number, noSurrogateEscape: boolean, adapted: boolean): void;
  error(lineNo: number, message: string): void;
  progress(bytesRead: number, bytesTotal: number | null): void;
  /**
   * a line of the product's format a parsing Worker read (ScoringStage in auto and harness
   * mode passes such a line on untouched): the sink takes it in as it would take `line`
   */
  record?(record: LineRecord, taken: TakenRecord, lineNo: number): void;
  /** a line of the product's format the snapshot scanner read here (as `record`, without one) */
  snapshot?(read: ReadSnapshot, lineNo: number): void;
}

/**
 * The parsing Workers a read may use, or none (null: the analysis Worker reads every line,
 * with the snapshot scanner); only the scorer modes that pass native lines on untouched may.
 */
export interface PoolChoice extends PooledOptions {
  pool: ParsePool | null;
}

export interface FeedResult {
  /** lines of the input read, blank ones included (the reader counts them without handing them on) */
  lines: number;
  gzip: boolean;
  format: 'jsonl' | 'json-array' | 'unknown';
  aborted: boolean;
  decodeMs: number;
  /** the format told by content, and the records an adapter left out (contract §7 adapters) */
  adapter: AdapterSummary;
}

export interface ScoringChoice {
  /** as `check --scorer` (contract §7); default auto */
  mode?: ScorerMode;
  /** told, as each snapshot goes to the sink, whether its session's scores are the reference's */
  onReferenceScored?: (sessionId: string) => void;
}

/**
 * Reads the source here. Throws when reading fails (lines before the failure were delivered).
 * With `sha256`, sessions that carry no score get the reference scorer's (contract §7), as in `check`.
 */
export async function feedHere(
  source: FeedSource,
  signal: AbortSignal,
  sink: FeedSink,
  limits: ReadLimits = DEFAULT_READ_LIMITS,
  sha256?: Sha256Hex,
  scoring: ScoringChoice = {},
  parsing?: PoolChoice,
): Promise<FeedResult> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let decodeMs = 0;
  // contract §7 adapters: other agents' transcripts become §2 messages here, before the engine
  let stage: ScoringStage | null = null;
  const toSink: MessageFeed = {
    text: (text, lineNo) => sink.line(text, lineNo),
    value: (value, lineNo, noSurrogateEscape) => {
      if (sink.value) sink.value(value, lineNo, noSurrogateEscape, pipeline.format !== null && pipeline.format !== 'wire');
      else sink.line(JSON.stringify(value), lineNo);
      // after the sink, so the header has made the session's store with its config
      const sid = sessionIdOf(value);
      if (stage !== null && sid !== null && stage.referenceScored(sid)) scoring.onReferenceScored?.(sid);
    },
    error: (lineNo, message) => sink.error(lineNo, message),
  };
  // the same stage as `check --scorer` (src/cli/check.ts), so the Worker reads as check does
  if (sha256 !== undefined) stage = new ScoringStage(toSink, { mode: scoring.mode ?? 'auto', sha256 });
  const pipeline = new TranscriptPipeline(stage ?? toSink);
  const toPipeline = (text: string | { error: string }, lineNo: number): void => {
    if (typeof text === 'string') pipeline.line(text, lineNo);
    else pipeline.error(lineNo, text.error);
  };
  const mode = scoring.mode ?? 'auto';
  const record = sink.record?.bind(sink);
  const snapshot = sink.snapshot?.bind(sink);
  const pooled =
    parsing !== undefined && record !== undefined && snapshot !== undefined && (mode === 'auto' || mode === 'harness')
      ? new PooledLines(
          parsing.pool,
          {
            // in the product's format a line goes straight to the engine; until the first line
            // tells the format, and in any other, lines go the ordinary way (as check's threads)
            wantsRecords: () => pipeline.format === null || pipeline.format === 'wire',
            record: (r, taken, lineNo) => {
              if (pipeline.format !== 'wire') return false;
              record(r, taken, lineNo);
              return true;
            },
            snapshot: (read, lineNo) => {
              if (pipeline.format !== 'wire') return false;
              snapshot(read, lineNo);
              return true;
            },
            line: toPipeline,
            structureError: (lineNo, message) => sink.error(lineNo, message),
          },
          { ...parsing, signal },
        )
      : null;
  const reader: Pick<TranscriptSplitter<unknown>, 'push' | 'end' | 'format' | 'lines'> = pooled === null
    ? new TranscriptReader(
        toPipeline,
        (lineNo, message) => sink.error(lineNo, message),
        (bytes, start, end) => {
          if (start === end) return ''; // a file of blank lines costs a count each, not a decode
          const t0 = performance.now();
          const text = decoder.decode(bytes.subarray(start, end));
          decodeMs += performance.now() - t0;
          return text;
        },
        { maxLineBytes: limits.maxLineBytes },
      )
    : new TranscriptSplitter<number>(pooled.line, pooled.structureError, pooled.decode, { maxLineBytes: limits.maxLineBytes });
  if (pooled !== null) pooled.isJsonArray = () => reader.format === 'json-array';
  /** every line split so far taken in (with parsing Workers, they lag the read by a few batches) */
  const drain = async (): Promise<void> => {
    if (pooled === null) return;
    try {
      await pooled.finish();
    } finally {
      decodeMs += pooled.decodeMs;
    }
  };
  const src = source.kind === 'file' ? await openFile(source.file) : await openUrl(source.url, signal);
  sink.progress(0, src.bytesTotal);
  let gzip = false;
  try {
    const res = await readBytes(src, signal, {
      onChunk: (b) => reader.push(b),
      onProgress: (r, t) => sink.progress(r, t),
      maxDecompressedBytes: limits.maxDecompressedBytes,
      ...(pooled === null ? {} : { pace: pooled.pace }),
    });
    gzip = res.gzip;
    if (res.aborted) return { gzip, format: reader.format, aborted: true, decodeMs, lines: reader.lines, adapter: pipeline.summary() };
  } catch (e) {
    if (signal.aborted) return { gzip, format: reader.format, aborted: true, decodeMs, lines: reader.lines, adapter: pipeline.summary() };
    // a failure taking lines in (a parsing Worker's, or the engine's) is the load's: nothing after it is read
    if (pooled !== null && pooled.failed !== null) throw pooled.failed;
    reader.end(); // the last complete line before the failure still counts
    await drain();
    pipeline.end();
    throw e;
  }
  reader.end();
  await drain();
  if (signal.aborted) return { gzip, format: reader.format, aborted: true, decodeMs, lines: reader.lines, adapter: pipeline.summary() };
  pipeline.end();
  return { gzip, format: reader.format, aborted: false, decodeMs, lines: reader.lines, adapter: pipeline.summary() };
}

function sessionIdOf(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return null;
  const sid = (value as { session_id?: unknown }).session_id;
  return typeof sid === 'string' ? sid : null;
}
