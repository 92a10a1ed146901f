// Bytes to lines. Lines are split on the byte 0x0A (never inside a UTF-8 sequence, whose
// bytes are all ≥ 0x80), so a chunk boundary can fall anywhere, including mid-character,
// and the output is the same. Each line is decoded once, whole, by the injected decoder.

/**
 * Decodes bytes[start, end) as UTF-8; throws when they are not valid UTF-8. A decoder may
 * give more than the text (T): Node's CLI decoder parses the line too (src/node/lineParser.ts).
 */
export type LineDecoder<T = string> = (bytes: Uint8Array, start: number, end: number) => T;

export type LineSink<T = string> = (text: T | DecodeFailure, lineNo: number) => void;

export interface DecodeFailure {
  error: string;
}

// ignoreBOM: true keeps a BOM as U+FEFF, as Node's decoder does; the splitters skip the ones they expect
const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export const webDecoder: LineDecoder = (bytes, start, end) => strictDecoder.decode(bytes.subarray(start, end));

/** How long a line (or a JSON array element) may be unless the reader is told otherwise. */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * The longest line a reader can be told to accept: V8's longest string is 2^29 − 24 chars,
 * and a line decodes to at most one char per byte.
 */
export const MAX_MAX_LINE_BYTES = 500 * 1024 * 1024;

export interface SplitOptions {
  /**
   * A longer line is not held, joined or decoded: it becomes one input error naming the
   * limit, and reading goes on after its newline. Memory stays bounded by about this much
   * whatever the input (an endless stream with no newline included).
   */
  maxLineBytes?: number;
}

/** "64 MiB", or the bytes when not a whole number of GiB, MiB or KiB. */
export function formatBytes(n: number): string {
  if (n >= 1 << 30 && n % (1 << 30) === 0) return `${n / (1 << 30)} GiB`;
  if (n >= 1 << 20 && n % (1 << 20) === 0) return `${n / (1 << 20)} MiB`;
  if (n >= 1 << 10 && n % (1 << 10) === 0) return `${n / (1 << 10)} KiB`;
  return `${n} bytes`;
}

/** The input error of a line or element over the limit; `what` is "line" or "element". */
export function tooLongMessage(what: string, bytes: number, maxLineBytes: number): string {
  return `the ${what} is ${bytes} bytes long, over the limit of ${formatBytes(maxLineBytes)} per ${what} (--max-line-bytes): it was skipped, not read`;
}

/** The input error of a line that is not UTF-8 (`what`: "line", or "element" of a .json array). */
export function notUtf8Message(what: 'line' | 'element'): string {
  return `not valid UTF-8: the ${what} holds bytes that are not a UTF-8 encoding`;
}

export class LineSplitter<T = string> {
  private carry: Uint8Array[] = [];
  private carryBytes = 0;
  private lineNo: number;
  private readonly maxLineBytes: number;
  /** bytes of the current line once it is known to be over the limit (nothing of it is held), else −1 */
  private skipped = -1;

  /** `linesBefore`: lines of the input already consumed by the caller (they count for line numbers) */
  constructor(
    private readonly sink: LineSink<T>,
    private readonly decode: LineDecoder<T>,
    options: SplitOptions = {},
    linesBefore = 0,
  ) {
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.lineNo = linesBefore;
  }

  /** Lines emitted so far. */
  get lines(): number {
    return this.lineNo;
  }

  push(chunk: Uint8Array): void {
    let start = 0;
    for (;;) {
      if (this.carryBytes === 0 && this.skipped === -1) {
        // A run of empty lines (a file padded with newlines) costs a byte compare each,
        // not a search, a decoding and a message: they count for line numbers only.
        const from = start;
        while (start < chunk.length && chunk[start] === 0x0a) start++;
        this.lineNo += start - from;
      }
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) break;
      if (this.skipped !== -1) {
        this.skipped += nl - start;
        this.emitTooLong();
      } else if (this.carryBytes > 0) {
        if (this.carryBytes + (nl - start) > this.maxLineBytes) {
          this.skipped = this.carryBytes + (nl - start);
          this.dropCarry();
          this.emitTooLong();
        } else {
          this.carry.push(chunk.subarray(start, nl));
          this.emitCarry();
        }
      } else if (nl - start > this.maxLineBytes) {
        this.skipped = nl - start;
        this.emitTooLong();
      } else {
        this.emit(chunk, start, nl);
      }
      start = nl + 1;
    }
    if (start >= chunk.length) return;
    const rest = chunk.length - start;
    if (this.skipped !== -1) this.skipped += rest;
    else if (this.carryBytes + rest > this.maxLineBytes) {
      // over the limit before its end is seen: let go of what is held, count the rest
      this.skipped = this.carryBytes + rest;
      this.dropCarry();
    } else {
      // keep a copy: callers may reuse their chunk buffers
      this.carry.push(copyOf(chunk, start));
      this.carryBytes += rest;
    }
  }

  /** The last line, when the input does not end with a newline. */
  end(): void {
    if (this.skipped !== -1) this.emitTooLong();
    else if (this.carryBytes > 0) this.emitCarry();
  }

  private dropCarry(): void {
    this.carry = [];
    this.carryBytes = 0;
  }

  private emitTooLong(): void {
    this.lineNo++;
    const bytes = this.skipped;
    this.skipped = -1;
    this.sink({ error: tooLongMessage('line', bytes, this.maxLineBytes) }, this.lineNo);
  }

  private emitCarry(): void {
    let total = 0;
    for (const part of this.carry) total += part.length;
    const joined = new Uint8Array(total);
    let at = 0;
    for (const part of this.carry) {
      joined.set(part, at);
      at += part.length;
    }
    this.dropCarry();
    this.emit(joined, 0, total);
  }

  private emit(bytes: Uint8Array, start: number, end: number): void {
    this.lineNo++;
    if (end > start && bytes[end - 1] === 0x0d) end--; // CRLF
    // A UTF-8 byte order mark is not part of a message: at the start of the file, or of a
    // line where a second file was appended (`cat a.jsonl b.jsonl`). Skipped here, not by
    // the decoder, so that every decoder reads the same line alike.
    if (end - start >= 3 && bytes[start] === 0xef && bytes[start + 1] === 0xbb && bytes[start + 2] === 0xbf) start += 3;
    let text: T | DecodeFailure;
    try {
      text = this.decode(bytes, start, end);
    } catch {
      text = { error: notUtf8Message('line') };
    }
    this.sink(text, this.lineNo);
  }
}

/**
 * A copy of chunk[start..]. Not `chunk.slice()`: on a Node Buffer that is a view, and a
 * caller reusing its read buffer would overwrite the carried bytes.
 */
export function copyOf(chunk: Uint8Array, start: number): Uint8Array {
  const out = new Uint8Array(chunk.length - start);
  out.set(chunk.subarray(start));
  return out;
}
