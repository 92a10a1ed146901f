// A batch of lines on its way to a parsing thread: the bytes of whole lines copied end to end,
// with each line's start, end and number, and the input errors the splitter found among
// them in their place. `check`'s threads (src/node/threadedRead.ts) and the dashboard's
// parsing Workers (src/worker/pooledLines.ts) fill the same batches; each brings its own
// allocation (Node's pooled-free Buffer, or a plain Uint8Array). Web APIs only.
import type { DecodeFailure } from './lines.ts';
import type { LineRecord, ReadSnapshot, RecordDecoder, TakenRecord } from './lineRecords.ts';

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

/** What a batch's lines are handed to, in file order (check's threadedRead.ts, the dashboard's pooledLines.ts). */
export interface BatchSink<L> {
  /** whether records are of use (false once the transcript turns out to be another agent's): else lines are not posted */
  wantsRecords(): boolean;
  /** a line's record and its message: true if the sink took the line in from it */
  record(record: LineRecord, taken: TakenRecord, line: number): boolean;
  /** a line the scanner read on this thread, without a record: true if the sink took it in */
  snapshot(read: ReadSnapshot, line: number): boolean;
  /** a line read the ordinary way, or the input error found for it */
  line(text: L | DecodeFailure, line: number): void;
  structureError(line: number, message: string): void;
}

/** A batch read on the thread that runs the engine: per line, the scanner's message or null (the ordinary way). */
export interface ReadHere {
  here: (ReadSnapshot | null)[];
}

/** How a batch came back: a parsing thread's records (with the bytes, handed back), this thread's scanner's messages, or neither. */
export type BatchAnswer = { records: (LineRecord | null)[]; bytes: Uint8Array } | ReadHere | null;

/**
 * Every line of a batch to the sink, in order: from its record (the thread's decoder takes
 * every record, used or not: the next one may repeat its spans), from the scanner's message,
 * or decoded the ordinary way by `decodeHere`. Returns the batch's bytes, free to be used again.
 */
export function takeInBatch<L>(
  b: LineBatchBuffer,
  answer: BatchAnswer,
  decoder: RecordDecoder | null,
  sink: BatchSink<L>,
  decodeHere: (bytes: Uint8Array, start: number, end: number) => L | DecodeFailure,
): Uint8Array {
  const bytes = answer !== null && 'bytes' in answer ? answer.bytes : b.bytes;
  const records = answer !== null && 'records' in answer ? answer.records : null;
  const here = answer !== null && 'here' in answer ? answer.here : null;
  for (const item of b.items) {
    if (typeof item !== 'number') {
      if (item.structure) sink.structureError(item.line, item.error);
      else sink.line({ error: item.error }, item.line);
      continue;
    }
    const line = b.lines[item]!;
    if (here !== null) {
      const read = here[item] ?? null;
      if (read !== null && sink.snapshot(read, line)) continue;
    } else {
      const record = records?.[item] ?? null;
      if (record !== null) {
        if (sink.record(record, decoder!.take(record), line)) continue;
      } else decoder?.skip();
    }
    sink.line(decodeHere(bytes, b.starts[item]!, b.ends[item]!), line);
  }
  return bytes;
}
