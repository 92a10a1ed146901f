// One reader for every transcript kind of SPEC §2: JSON Lines, or one JSON array of
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

  push(chunk: Uint8Array): void {
    if (this.inner !== null) return this.inner.push(chunk);
    // Until the first byte that is not white space, nothing is held: the white space only
    // counts for line numbers (JSON ignores it before a line's or the array's first byte),
    // so input of nothing but white space is read in one pass and constant memory.
    for (let i = 0; i < chunk.length; i++, this.leadingBytes++) {
      const b = chunk[i]!;
      if (this.leadingBytes < 3 && (b === 0xef || b === 0xbb || b === 0xbf)) continue; // BOM
      if (b === 0x0a) this.leadingNewlines++;
      else if (b !== 0x20 && b !== 0x0d && b !== 0x09) {
        this.inner =
          b === 0x5b
            ? new JsonArraySplitter(this.sink, this.decode, this.onStructureError, this.options, this.leadingNewlines)
            : new LineSplitter(this.sink, this.decode, this.options, this.leadingNewlines);
        return this.inner.push(chunk.subarray(i));
      }
    }
  }

  end(): void {
    // only white space (or nothing): as JSON Lines, that is zero messages
    this.inner?.end();
  }
}

/** A transcript's messages as UTF-8 text, decoded by the Web decoder unless told otherwise. */
export class TranscriptReader extends TranscriptSplitter<string> {
  constructor(sink: LineSink, onStructureError: StructureErrorSink, decode: LineDecoder = webDecoder, options: SplitOptions = {}) {
    super(sink, onStructureError, decode, options);
  }
}
