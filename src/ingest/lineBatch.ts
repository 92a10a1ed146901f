// A batch of lines on its way to a parsing thread: the bytes of whole lines copied end to end,
// with each line's start, end and number, and the input errors the splitter found among
// them in their place. `check`'s threads (src/node/threadedRead.ts) and the dashboard's
// parsing Workers (src/worker/pooledLines.ts) fill the same batches; each brings its own
// allocation (Node's pooled-free Buffer, or a plain Uint8Array). Web APIs only.

/** An entry of a batch: a line's index among its ranges, or an input error found while splitting. */
export type BatchItem = number | { line: number; error: string; structure: boolean };

export class LineBatchBuffer {
  used = 0;
  starts: number[] = [];
  ends: number[] = [];
  lines: number[] = [];
  items: BatchItem[] = [];

  constructor(
    public bytes: Uint8Array,
    private readonly alloc: (bytes: number) => Uint8Array = (n) => new Uint8Array(n),
  ) {}

  /** Room for `n` more bytes, growing the buffer when the batch has no size bound (or holds nothing yet). */
  fits(n: number, grow: boolean): boolean {
    if (this.used + n <= this.bytes.length) return true;
    if (!grow && this.used > 0) return false;
    let capacity = Math.max(this.bytes.length, 1);
    while (capacity < this.used + n) capacity *= 2;
    const bigger = this.alloc(capacity);
    bigger.set(this.bytes.subarray(0, this.used));
    this.bytes = bigger;
    return true;
  }
}
