// The main thread's side of threadedRead.ts: each batch taken in, in file order, whoever
// read it. A parsing thread's batch comes back as records, which that thread's decoder turns
// into messages; a batch this thread kept is read here by the snapshot scanner, straight into
// messages; a line with neither is decoded the ordinary way and handed on as text.
import type { DecodeFailure } from '../ingest/lines.ts';
import { notUtf8Message } from '../ingest/lines.ts';
import { SnapshotReader, type ReadSnapshot } from '../ingest/lineRecords.ts';
import type { LineBatchBuffer as Batch } from '../ingest/lineBatch.ts';
import { NodeLineParser } from './lineParser.ts';
import { nodeScanView, RecordDecoder, type SpanMakers } from './lineRecords.ts';
import type { LineBatchResult } from './lineWorker.ts';
import type { BufferPool, ThreadedSink } from './threadedRead.ts';

/** A batch read on this thread: per line, the scanner's message or null (the ordinary way). */
export interface ReadHere {
  here: (ReadSnapshot | null)[];
}

export class BatchIntake {
  private readonly parser = new NodeLineParser();
  private readonly makers: SpanMakers = new Map();
  // the batches this thread keeps: read by the scanner into messages, no records
  private readonly reader = new SnapshotReader(nodeScanView, this.makers);
  /**
   * Per parsing thread, the decoder of its batches: its records refer to its own previous
   * line, which may be in its previous batch (a batch's first line then repeats its strings
   * instead of carrying and hashing them all again). A thread's batches are taken in in its
   * order, since all are taken in file order.
   */
  private readonly decoders = new Map<number, RecordDecoder>();

  constructor(
    private readonly sink: ThreadedSink,
    private readonly buffers: BufferPool,
    private readonly isJsonArray: () => boolean,
  ) {}

  /** A batch read on this thread, now (it is taken in later, in its turn). */
  readHere(b: Batch): ReadHere {
    return {
      here: b.starts.map((start, i) => {
        try {
          return this.reader.read(b.bytes, start, b.ends[i]!);
        } catch {
          return null; // the ordinary way words whatever went wrong
        }
      }),
    };
  }

  /** The batch's lines to the sink, in order: `result` is a thread's, this thread's, or null (every line the ordinary way). */
  takeIn(b: Batch, result: LineBatchResult | ReadHere | null): void {
    if (result !== null && 'here' in result) this.takeInHere(b, result);
    else this.takeInRecords(b, result);
  }

  private takeInRecords(b: Batch, result: LineBatchResult | null): void {
    const decoder = this.decoderOf(result);
    const bytes = result?.bytes ?? b.bytes;
    const records = result?.records ?? null;
    for (const item of b.items) {
      if (typeof item !== 'number') {
        this.inputError(item);
        continue;
      }
      const line = b.lines[item]!;
      const record = records?.[item] ?? null;
      if (record !== null) {
        // the decoder takes every record, used or not: the next one may repeat its spans
        if (this.sink.record(record, decoder.take(record), line)) continue;
      } else decoder.skip();
      this.sink.line(this.decodeHere(bytes, b.starts[item]!, b.ends[item]!), line);
    }
    this.buffers.give(new Uint8Array(bytes.buffer));
  }

  private takeInHere(b: Batch, result: ReadHere): void {
    for (const item of b.items) {
      if (typeof item !== 'number') {
        this.inputError(item);
        continue;
      }
      const line = b.lines[item]!;
      const read = result.here[item] ?? null;
      if (read !== null && this.sink.snapshot(read, line)) continue;
      this.sink.line(this.decodeHere(b.bytes, b.starts[item]!, b.ends[item]!), line);
    }
    this.buffers.give(new Uint8Array(b.bytes.buffer));
  }

  private inputError(item: { line: number; error: string; structure: boolean }): void {
    if (item.structure) this.sink.structureError(item.line, item.error);
    else this.sink.line({ error: item.error }, item.line);
  }

  private decoderOf(result: LineBatchResult | null): RecordDecoder {
    if (result === null) return new RecordDecoder([], this.makers); // never given a record
    let d = this.decoders.get(result.member);
    if (d === undefined) this.decoders.set(result.member, (d = new RecordDecoder(result.shapes, this.makers)));
    else d.learn(result.shapes);
    return d;
  }

  /** The ordinary way for a line of a batch (its bytes back on this thread). */
  private decodeHere(bytes: Uint8Array, start: number, end: number): ReturnType<NodeLineParser['decode']> | DecodeFailure {
    try {
      return this.parser.decode(bytes, start, end);
    } catch {
      return { error: notUtf8Message(this.isJsonArray() ? 'element' : 'line') };
    }
  }
}
