// A transcript's lines through the parsing Workers (parsePool.ts), as src/node/threadedRead.ts
// does for `check`: the analysis Worker splits the bytes as before (the same splitter, so line
// numbers, BOMs, CRLF, over-long lines and .json arrays are read alike), copies each line into
// a batch and posts the batch to a parsing Worker; the answers are taken in file order,
// whichever Worker finishes first, so the order-dependent engine sees the lines as the single
// path would. At most `maxInFlight` batches are read ahead of the one being taken in. A batch
// no Worker is free for (or every batch, with no pool) the analysis Worker reads itself with
// the snapshot scanner, straight into messages, as `check`'s main thread does: on a busy
// machine a Worker may wait long for a core, and the analysis Worker, which takes the
// batches in in order, would otherwise wait with it; how many go to the Workers is judged
// as the read goes (src/ingest/threadShare.ts).
import type { DecodeFailure } from '../ingest/lines.ts';
import { notUtf8Message } from '../ingest/lines.ts';
import { RecordDecoder, SnapshotReader, type SpanMakers } from '../ingest/lineRecords.ts';
import { browserScanView } from '../ingest/scanView.ts';
import { ThreadShare } from '../ingest/threadShare.ts';
import type { ParsedBatch } from './parseBatch.ts';
import type { ParsePool } from './parsePool.ts';
import { LineBatchBuffer as Batch, takeInBatch, type BatchSink, type ReadHere } from '../ingest/lineBatch.ts';

/** The sink of the lines: a line read the ordinary way comes as the splitter would have handed it on. */
export type PooledSink = BatchSink<string>;

/** ~10 lines of the bench transcript, as `check`'s (threadedRead.ts): every batch in flight is held twice (bytes and records). */
export const DEFAULT_BATCH_BYTES = 1 << 20;

export interface PooledOptions {
  /** a batch is posted once it holds this many bytes (tests choose 1, 7, 4096, Infinity) */
  batchBytes?: number;
  /** batches read and not yet taken in, at most (default two a Worker, and two read here) */
  maxInFlight?: number;
  /** tests: every batch a Worker has room for (two in hand each) goes to it, however late it comes back (no ThreadShare) */
  fixedShare?: boolean;
  /** stops taking lines in (the load was cancelled or replaced) */
  signal?: AbortSignal;
}

/**
 * The splitter's three callbacks (decode, line, structureError), then pace() after each chunk
 * read and finish() at the end: finish resolves once every line is taken in, and throws the
 * first failure (a parsing Worker's, or the sink's).
 */
export class PooledLines {
  private readonly batchBytes: number;
  private readonly grow: boolean;
  private readonly maxInFlight: number;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private readonly makers: SpanMakers = new Map();
  /**
   * batch buffers back from the Workers (transferred), used again: a fresh 1 MiB buffer costs
   * its page faults on first write (threadedRead.ts measured it a tenth of `check`'s main thread)
   */
  private readonly free: Uint8Array[] = [];
  /** the analysis Worker's own reader, for batches no Worker is free for */
  private readonly reader = new SnapshotReader(browserScanView, this.makers);
  private readonly share = new ThreadShare();
  /** per parsing Worker: its records refer to its previous line, across batches (ParseBatch.fresh) */
  private readonly decoders = new Map<number, RecordDecoder>();
  private batch: Batch;
  /** per batch posted, resolved once it is taken in: the read pace waits on these */
  private readonly taken: Promise<void>[] = [];
  private tail: Promise<void> = Promise.resolve();
  private failure: unknown = null;
  /** told by the caller once the splitter knows its format: an element that is not UTF-8 is worded as such */
  isJsonArray: () => boolean = () => false;
  /** ms spent decoding lines here (the lines without a record) */
  decodeMs = 0;

  constructor(
    private readonly pool: ParsePool | null,
    private readonly sink: PooledSink,
    private readonly options: PooledOptions = {},
  ) {
    this.batchBytes = options.batchBytes ?? DEFAULT_BATCH_BYTES;
    this.grow = !Number.isFinite(this.batchBytes);
    this.maxInFlight = options.maxInFlight ?? 2 * (pool?.size ?? 0) + 2;
    this.batch = this.newBatch();
    // a fixed share (tests, ?share=all) starts the Workers now; the judged one when they are wanted (ThreadShare.noteHere)
    if (options.fixedShare === true) pool?.start();
  }

  readonly decode = (bytes: Uint8Array, start: number, end: number): number => {
    const n = end - start;
    if (!this.batch.fits(n, this.grow)) {
      this.post();
      this.batch.fits(n, true);
    }
    const b = this.batch;
    b.bytes.set(bytes.subarray(start, end), b.used);
    b.starts.push(b.used);
    b.used += n;
    b.ends.push(b.used);
    return b.starts.length - 1;
  };

  readonly line = (index: number | DecodeFailure, line: number): void => {
    const b = this.batch;
    if (typeof index === 'number') {
      b.lines[index] = line;
      b.items.push(index);
    } else b.items.push({ line, error: index.error, structure: false });
    if (b.used >= this.batchBytes) this.post();
  };

  readonly structureError = (line: number, message: string): void => {
    this.batch.items.push({ line, error: message, structure: true });
  };

  /** After each chunk: a promise while too many batches wait to be taken in; throws a failure met so far. */
  readonly pace = (): Promise<void> | undefined => {
    if (this.failure !== null) throw this.failure;
    const wait = this.taken.length - this.maxInFlight;
    return wait >= 0 ? this.taken[wait]!.then(() => undefined) : undefined;
  };

  /** The first failure met taking lines in, if any. */
  get failed(): unknown {
    return this.failure;
  }

  async finish(): Promise<void> {
    this.post();
    await this.tail;
    if (this.failure !== null) throw this.failure;
  }

  private newBatch(): Batch {
    // not a fixed size: a line longer than a batch gets a batch of its own, grown to fit
    return new Batch(this.free.pop() ?? new Uint8Array(this.bufferBytes()));
  }

  private bufferBytes(): number {
    return Number.isFinite(this.batchBytes) ? Math.max(1, this.batchBytes) : 1 << 16;
  }

  private post(): void {
    const b = this.batch;
    if (b.items.length === 0) return;
    this.batch = this.newBatch();
    let answer: Promise<ParsedBatch | ReadHere | null>;
    const pool = this.pool;
    if (b.starts.length === 0 || !this.sink.wantsRecords())
      answer = Promise.resolve(null); // read here, in its turn
    else if (pool === null || !(this.options.fixedShare === true ? pool.hasQueueRoom : pool.hasRoom && this.share.allow()))
      answer = Promise.resolve(this.readHere(b));
    else {
      answer = pool.run({ bytes: b.bytes.subarray(0, b.used), starts: Int32Array.from(b.starts), ends: Int32Array.from(b.ends) }, this);
      this.tail = this.tail.then(this.share.judge(answer));
    }
    this.tail = this.tail.then(async () => this.takeIn(b, await answer));
    // a failure is kept and reported once reading stops (at the next pace, or the end)
    this.tail.catch((e: unknown) => (this.failure ??= e));
    answer.catch(() => {});
    this.taken.push(this.tail);
  }

  /** A batch read here, now (it is taken in later, in its turn). */
  private readHere(b: Batch): ReadHere {
    const here = this.reader.readAll(b.bytes, b.starts, b.ends);
    this.share.noteHere(here);
    if (this.pool !== null && this.share.threadsWanted) this.pool.start();
    return { here };
  }

  private takeIn(b: Batch, result: ParsedBatch | ReadHere | null): void {
    if (this.options.signal?.aborted === true) return;
    const decoder = result === null || 'here' in result ? null : this.decoderOf(result);
    this.reuse(takeInBatch(b, result, decoder, this.sink, (bytes, start, end) => this.decodeHere(bytes, start, end)));
  }

  private reuse(bytes: Uint8Array): void {
    // not zeroed when used again: only the bytes written are ever read
    if (bytes.buffer.byteLength === this.bufferBytes() && this.free.length < 8) this.free.push(new Uint8Array(bytes.buffer as ArrayBuffer));
  }

  private decoderOf(result: ParsedBatch): RecordDecoder {
    const member = result.member ?? 0;
    let d = this.decoders.get(member);
    if (d === undefined) this.decoders.set(member, (d = new RecordDecoder(result.shapes, this.makers)));
    else d.learn(result.shapes);
    return d;
  }

  /** The ordinary way for a line (lineFeed.ts's decoder): a blank one is '' without a decode. */
  private decodeHere(bytes: Uint8Array, start: number, end: number): string | DecodeFailure {
    if (start === end) return '';
    const t0 = performance.now();
    try {
      return this.decoder.decode(bytes.subarray(start, end));
    } catch {
      return { error: notUtf8Message(this.isJsonArray() ? 'element' : 'line') };
    } finally {
      this.decodeMs += performance.now() - t0;
    }
  }
}
