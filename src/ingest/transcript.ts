// One reader for every transcript kind of SPEC §2: JSON Lines, or one JSON array of
// messages, told apart by the first byte that is not white space ('[' = array). Gzip is
// unwrapped before this (see isGzip) by the platform's decompressor.
import { JsonArraySplitter } from './jsonArray.ts';
import { copyOf, LineSplitter, webDecoder, type LineDecoder, type LineSink } from './lines.ts';

export type StructureErrorSink = (line: number, message: string) => void;

export function isGzip(head: Uint8Array): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/** Splits a transcript's bytes into messages (JSONL lines or array elements), each handed to `decode`. */
export class TranscriptSplitter<T> {
  private inner: LineSplitter<T> | JsonArraySplitter<T> | null = null;
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;

  constructor(
    private readonly sink: LineSink<T>,
    private readonly onStructureError: StructureErrorSink,
    private readonly decode: LineDecoder<T>,
    /** longest message (line or array element) held and decoded; a longer one is one input error */
    private readonly maxLineBytes = Infinity,
  ) {}

  get format(): 'jsonl' | 'json-array' | 'unknown' {
    if (this.inner === null) return 'unknown';
    return this.inner instanceof JsonArraySplitter ? 'json-array' : 'jsonl';
  }

  push(chunk: Uint8Array): void {
    if (this.inner !== null) return this.inner.push(chunk);
    // held until the format is known: a copy, since callers may reuse their chunk buffers.
    // Only the new chunk is scanned, and past MAX_LEADING_SPACE of white space the file is
    // read as JSON Lines, so a file of nothing but newlines is neither held nor rescanned.
    const first = firstSignificantByte(chunk, this.pendingBytes);
    this.pending.push(copyOf(chunk, 0));
    this.pendingBytes += chunk.length;
    if (first === undefined && this.pendingBytes < MAX_LEADING_SPACE) return;
    this.inner =
      first === 0x5b
        ? new JsonArraySplitter(this.sink, this.decode, this.onStructureError, this.maxLineBytes)
        : new LineSplitter(this.sink, this.decode, this.maxLineBytes);
    const held = this.pending;
    this.pending = [];
    for (const c of held) this.inner.push(c);
  }

  end(): void {
    if (this.inner === null) {
      // only white space (or nothing): as JSON Lines, that is zero messages
      this.inner = new LineSplitter(this.sink, this.decode, this.maxLineBytes);
      for (const c of this.pending) this.inner.push(c);
    }
    this.inner.end();
  }
}

/** An array with more white space than this before its `[` is not a transcript anyone wrote. */
const MAX_LEADING_SPACE = 1 << 20;

/** The first byte of `chunk` that is not white space (nor the BOM); `offset`: bytes of the file before the chunk. */
function firstSignificantByte(chunk: Uint8Array, offset: number): number | undefined {
  for (let i = 0; i < chunk.length; i++) {
    const b = chunk[i]!;
    if (offset + i < 3 && (b === 0xef || b === 0xbb || b === 0xbf)) continue; // BOM
    if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) continue;
    return b;
  }
  return undefined;
}

/** A transcript's messages as UTF-8 text, decoded by the Web decoder unless told otherwise. */
export class TranscriptReader extends TranscriptSplitter<string> {
  constructor(sink: LineSink, onStructureError: StructureErrorSink, decode: LineDecoder = webDecoder, maxLineBytes = Infinity) {
    super(sink, onStructureError, decode, maxLineBytes);
  }
}
