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

/** The failure a message longer than the cap becomes: it names the cap, so the reader knows why. */
export function tooLongFailure(what: 'line' | 'element', bytes: number, maxBytes: number): DecodeFailure {
  return { error: `the ${what} is ${formatBytes(bytes)} long, over the ${formatBytes(maxBytes)} limit on one message; it was skipped` };
}

export function formatBytes(n: number): string {
  if (n >= 1e9) return `${+(n / 1e9).toFixed(1)} GB`;
  if (n >= 1e6) return `${+(n / 1e6).toFixed(1)} MB`;
  return `${n.toLocaleString('en-US')} bytes`;
}

export class LineSplitter<T = string> {
  private carry: Uint8Array[] = [];
  private carryBytes = 0;
  private lineNo = 0;
  /** bytes of the current line once it is over maxLineBytes (its bytes are dropped, only counted), else -1 */
  private overBytes = -1;

  /**
   * `maxLineBytes`: a longer line is not held nor decoded (a 1 GB line would exhaust the
   * memory of a browser tab); it becomes one DecodeFailure naming the cap.
   */
  constructor(
    private readonly sink: LineSink<T>,
    private readonly decode: LineDecoder<T>,
    private readonly maxLineBytes = Infinity,
  ) {}

  /** Lines emitted so far. */
  get lines(): number {
    return this.lineNo;
  }

  push(chunk: Uint8Array): void {
    let start = 0;
    for (;;) {
      // an empty line needs no search: a file of newlines must not cost a builtin call per byte
      const nl = chunk[start] === 0x0a ? start : chunk.indexOf(0x0a, start);
      if (nl === -1) break;
      if (this.overBytes >= 0 || this.carryBytes + (nl - start) > this.maxLineBytes) {
        this.emitTooLong(this.carryBytes + Math.max(0, this.overBytes) + (nl - start));
      } else if (this.carryBytes > 0) {
        this.carry.push(chunk.subarray(start, nl));
        this.emitCarry();
      } else {
        this.emit(chunk, start, nl);
      }
      start = nl + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.length - start;
      if (this.overBytes >= 0) this.overBytes += rest;
      else if (this.carryBytes + rest > this.maxLineBytes) {
        this.overBytes = this.carryBytes + rest;
        this.carry = [];
        this.carryBytes = 0;
      } else {
        // keep a copy: callers may reuse their chunk buffers
        this.carry.push(copyOf(chunk, start));
        this.carryBytes += rest;
      }
    }
  }

  /** The last line, when the input does not end with a newline. */
  end(): void {
    if (this.overBytes >= 0) this.emitTooLong(this.overBytes);
    else if (this.carryBytes > 0) this.emitCarry();
  }

  private emitTooLong(bytes: number): void {
    this.carry = [];
    this.carryBytes = 0;
    this.overBytes = -1;
    this.lineNo++;
    this.sink(tooLongFailure('line', bytes, this.maxLineBytes), this.lineNo);
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
    this.carry = [];
    this.carryBytes = 0;
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
      text = { error: 'not valid UTF-8: the line holds bytes that are not a UTF-8 encoding' };
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
