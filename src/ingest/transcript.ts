// One reader for every transcript kind of contract §2: JSON Lines, or one JSON array of
// messages, told apart by the first byte that is not white space ('[' = array). Gzip is
// unwrapped before this (see isGzip) by the platform's decompressor.
import { JsonArraySplitter } from './jsonArray.ts';
import { LineSplitter, webDecoder, type LineDecoder, type LineSink, type SplitOptions } from './lines.ts';

export type StructureErrorSink = (line: number, message: string) => void;

export function isGzip(head: Uint8Array): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/**
 * Splits a transcript's bytes into messages (JSONL lines or array elements), each handed to
 * `decode`. `options.maxLineBytes` bounds a line, or an array element (lines.ts).
 */
export class TranscriptSplitter<T> {
  private inner: LineSplitter<T> | JsonArraySplitter<T> | null = null;
  /** while the format is not known: bytes seen (all white space or a leading BOM) and their newlines */
  private leadingBytes = 0;
  private leadingNewlines = 0;

  constructor(
    private readonly sink: LineSink<T>,
    private readonly onStructureError: StructureErrorSink,
    private readonly decode: LineDecoder<T>,
    private readonly options: SplitOptions = {},
  ) {}

  get format(): 'jsonl' | 'json-array' | 'unknown' {
    if (this.inner === null) return 'unknown';
    return this.inner instanceof JsonArraySplitter ? 'json-array' : 'jsonl';
  }

  /** Lines of the input read so far, blank ones included (they are counted, not handed on). */
  get lines(): number {
    return this.inner === null ? this.leadingNewlines : this.inner.lines;
  }

  push(chunk: Uint8Array): void {
    if (this.inner !== null) return this.inner.push(chunk);
    // Until the first byte that is not white space, nothing is held: the white space only
    // counts for line numbers (JSON ignores it before a line's or the array's first byte),
    // so input of nothing but white space is read in one pass and constant memory.
    let i = 0;
    // a BOM: only among the input's first three bytes
    for (; i < chunk.length && this.leadingBytes + i < 3; i++) {
      const b = chunk[i]!;
      if (b !== 0xef && b !== 0xbb && b !== 0xbf && !isSpace(b)) break;
      if (b === 0x0a) this.leadingNewlines++;
    }
    // locals, not fields, in the loop that may see hundreds of MB
    let newlines = this.leadingNewlines;
    for (; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (b === 0x0a) newlines++;
      else if (b !== 0x20 && b !== 0x0d && b !== 0x09) break;
    }
    this.leadingNewlines = newlines;
    this.leadingBytes += i;
    if (i === chunk.length) return;
    this.inner =
      chunk[i] === 0x5b
        ? new JsonArraySplitter(this.sink, this.decode, this.onStructureError, this.options, newlines)
        : new LineSplitter(this.sink, this.decode, this.options, newlines);
    this.inner.push(chunk.subarray(i));
  }

  end(): void {
    // only white space (or nothing): as JSON Lines, that is zero messages
    this.inner?.end();
  }
}

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/** A transcript's messages as UTF-8 text, decoded by the Web decoder unless told otherwise. */
export class TranscriptReader extends TranscriptSplitter<string> {
  constructor(sink: LineSink, onStructureError: StructureErrorSink, decode: LineDecoder = webDecoder, options: SplitOptions = {}) {
    super(sink, onStructureError, decode, options);
  }
}
