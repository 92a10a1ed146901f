// A transcript (file or URL) as numbered lines: bytes read in chunks, gzip unwrapped,
// split on newline bytes (or into the elements of a JSON array) and decoded, in the
// analysis Worker itself. (A separate reader Worker passing decoded lines over was
// measured slower on a 2-core machine: see docs/dashboard.md.)
import type { Sha256Hex } from '../core/analyse.ts';
import { TranscriptPipeline, type AdapterSummary, type MessageFeed } from '../ingest/adapters/pipeline.ts';
import { ScoringStage } from '../ingest/adapters/scoringStage.ts';
import { TranscriptReader } from '../ingest/transcript.ts';
import { openFile, openUrl, readBytes } from './fileSource.ts';

export type FeedSource = { kind: 'file'; file: Blob } | { kind: 'url'; url: string };

export interface LineSink {
  line(text: string, lineNo: number): void;
  /** a message an adapter made (docs/adapters.md); without this method it arrives as a line of JSON */
  value?(value: unknown, lineNo: number, noSurrogateEscape: boolean): void;
  error(lineNo: number, message: string): void;
  progress(bytesRead: number, bytesTotal: number | null): void;
}

export interface FeedResult {
  gzip: boolean;
  format: 'jsonl' | 'json-array' | 'unknown';
  aborted: boolean;
  decodeMs: number;
  /** the format told by content, and the records an adapter left out (contract §7 adapters) */
  adapter: AdapterSummary;
}

/**
 * Reads the source here. Throws when reading fails (lines before the failure were delivered).
 * With `sha256`, sessions that carry no score get the reference scorer's (contract §7), as in `check`.
 */
export async function feedHere(source: FeedSource, signal: AbortSignal, sink: LineSink, sha256?: Sha256Hex): Promise<FeedResult> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let decodeMs = 0;
  // contract §7 adapters: other agents' transcripts become §2 messages here, before the engine
  const toSink: MessageFeed = {
    text: (text, lineNo) => sink.line(text, lineNo),
    value: (value, lineNo, noSurrogateEscape) => (sink.value ? sink.value(value, lineNo, noSurrogateEscape) : sink.line(JSON.stringify(value), lineNo)),
    error: (lineNo, message) => sink.error(lineNo, message),
  };
  const pipeline = new TranscriptPipeline(sha256 === undefined ? toSink : new ScoringStage(toSink, { mode: 'auto', sha256 }));
  const reader = new TranscriptReader(
    (text, lineNo) => {
      if (typeof text === 'string') pipeline.line(text, lineNo);
      else pipeline.error(lineNo, text.error);
    },
    (lineNo, message) => sink.error(lineNo, message),
    (bytes, start, end) => {
      const t0 = performance.now();
      const text = decoder.decode(bytes.subarray(start, end));
      decodeMs += performance.now() - t0;
      return text;
    },
  );
  const src = source.kind === 'file' ? await openFile(source.file) : await openUrl(source.url, signal);
  sink.progress(0, src.bytesTotal);
  let gzip = false;
  try {
    const res = await readBytes(src, signal, { onChunk: (b) => reader.push(b), onProgress: (r, t) => sink.progress(r, t) });
    gzip = res.gzip;
    if (res.aborted) return { gzip, format: reader.format, aborted: true, decodeMs, adapter: pipeline.summary() };
  } catch (e) {
    if (signal.aborted) return { gzip, format: reader.format, aborted: true, decodeMs, adapter: pipeline.summary() };
    reader.end(); // the last complete line before the failure still counts
    pipeline.end();
    throw e;
  }
  reader.end();
  pipeline.end();
  return { gzip, format: reader.format, aborted: false, decodeMs, adapter: pipeline.summary() };
}
