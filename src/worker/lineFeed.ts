// A transcript (file or URL) as numbered lines: bytes read in chunks, gzip unwrapped,
// split on newline bytes (or into the elements of a JSON array) and decoded, in the
// analysis Worker itself. (A separate reader Worker passing decoded lines over was
// measured slower on a 2-core machine: see docs/dashboard.md.)
import { TranscriptReader } from '../ingest/transcript.ts';
import { openFile, openUrl, readBytes } from './fileSource.ts';

export type FeedSource = { kind: 'file'; file: Blob } | { kind: 'url'; url: string };

export interface FeedSink {
  line(text: string, lineNo: number): void;
  error(lineNo: number, message: string): void;
  progress(bytesRead: number, bytesTotal: number | null): void;
}

export interface FeedResult {
  gzip: boolean;
  format: 'jsonl' | 'json-array' | 'unknown';
  aborted: boolean;
  decodeMs: number;
}

/** Reads the source here. Throws when reading fails (lines before the failure were delivered). */
export async function feedHere(source: FeedSource, signal: AbortSignal, sink: FeedSink): Promise<FeedResult> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let decodeMs = 0;
  const reader = new TranscriptReader(
    (text, lineNo) => {
      if (typeof text === 'string') sink.line(text, lineNo);
      else sink.error(lineNo, text.error);
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
    if (res.aborted) return { gzip, format: reader.format, aborted: true, decodeMs };
  } catch (e) {
    if (signal.aborted) return { gzip, format: reader.format, aborted: true, decodeMs };
    reader.end(); // the last complete line before the failure still counts
    throw e;
  }
  reader.end();
  return { gzip, format: reader.format, aborted: false, decodeMs };
}
