// The main thread's side of threadedRead.ts: each batch taken in, in file order, whoever
// read it. A parsing thread's batch comes back as records, which that thread's decoder turns
// into messages; a batch this thread kept is read here by the snapshot scanner, straight into
// messages; a line with neither is decoded the ordinary way and handed on as text.
import type { DecodeFailure } from '../ingest/lines.ts';
import { notUtf8Message } from '../ingest/lines.ts';
import { SnapshotReader } from '../ingest/lineRecords.ts';
import { takeInBatch, type LineBatchBuffer as Batch, type ReadHere } from '../ingest/lineBatch.ts';
import { NodeLineParser } from './lineParser.ts';
import { nodeScanView, RecordDecoder, type SpanMakers } from './lineRecords.ts';
import type { LineBatchResult } from './lineWorker.ts';
import type { BufferPool, ThreadedSink } from './threadedRead.ts';

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
    return { here: this.reader.readAll(b.bytes, b.starts, b.ends) };
  }

  /** The batch's lines to the sink, in order: `result` is a thread's, this thread's, or null (every line the ordinary way). */
  takeIn(b: Batch, result: LineBatchResult | ReadHere | null): void {
    const decoder = result === null || 'here' in result ? null : this.decoderOf(result);
    const bytes = takeInBatch(b, result, decoder, this.sink, (bytes, start, end) => this.decodeHere(bytes, start, end));
    this.buffers.give(new Uint8Array(bytes.buffer));
  }

  private decoderOf(result: LineBatchResult): RecordDecoder {
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
