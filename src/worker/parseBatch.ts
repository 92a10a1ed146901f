// What a parsing Worker does with a batch of lines (parseWorker.ts is its glue; tests call
// this directly): each line read by the snapshot scanner, or else decoded as the analysis
// Worker's ordinary path decodes it (strict UTF-8), parsed and validated; its new span
// texts hashed; into a compact record
// (src/ingest/lineRecords.ts). A line with no record (null) is read the ordinary way by the
// analysis Worker, which words its error, if any, exactly as before.
import { RecordEncoder, type LineRecord, type Sha256 } from '../ingest/lineRecords.ts';
import { browserScanView } from '../ingest/scanView.ts';

export interface ParseBatch {
  seq: number;
  bytes: Uint8Array;
  /** per line of the batch: where its bytes start and end in `bytes` */
  starts: Int32Array;
  ends: Int32Array;
  /**
   * the first batch of a load this Worker gets: its first line repeats nothing. Later ones
   * go on from the Worker's previous line, which the analysis Worker took in just before
   * (its batches are taken in in the order they were posted): a batch's first line then
   * carries only the strings that changed, not all of them (~20 MB less to copy across on
   * the bench transcript, and as many texts less to hash)
   */
  fresh: boolean;
}

export interface ParsedBatch {
  seq: number;
  /** which of the pool's Workers parsed it (set by the pool on receipt) */
  member?: number;
  /** the batch's bytes, handed back (transferred) for the lines that have no record */
  bytes: Uint8Array;
  records: (LineRecord | null)[];
  /** the key orders of span objects this Worker has met: a record's shapes index this */
  shapes: string[][];
}

/** What a parsing Worker posts once it is started and can parse. */
export const WORKER_READY = 'ready';

/** What a parsing Worker answers when it cannot parse at all (its sha256 did not load, say). */
export interface ParseFailure {
  seq: number;
  failure: string;
}

export class BatchParser {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private readonly encoder: RecordEncoder;

  constructor(sha256: Sha256) {
    // as lineFeed.ts decodes a line: a blank one is '' without a decode
    // the snapshot scanner reads what it can (scanView.ts); the rest is parsed
    this.encoder = new RecordEncoder(sha256, (bytes, start, end) => (start === end ? '' : this.decoder.decode(bytes.subarray(start, end))), browserScanView);
  }

  parse(batch: ParseBatch): ParsedBatch {
    if (batch.fresh) this.encoder.reset();
    const { bytes, starts, ends } = batch;
    const records: (LineRecord | null)[] = new Array(starts.length);
    for (let i = 0; i < starts.length; i++) {
      let r: LineRecord | null;
      try {
        r = this.encoder.encode(bytes, starts[i]!, ends[i]!);
      } catch {
        r = null; // whatever went wrong here, the analysis Worker reads the line itself and words it
        this.encoder.reset();
      }
      records[i] = r;
    }
    return { seq: batch.seq, bytes, records, shapes: this.encoder.shapes.list };
  }
}

/** The buffers a parsed batch hands over without a copy: its bytes and each record's typed arrays. */
export function transferablesOf(batch: ParsedBatch): ArrayBuffer[] {
  const out: ArrayBuffer[] = [batch.bytes.buffer as ArrayBuffer];
  for (const r of batch.records) if (r !== null) out.push(r.meta.buffer as ArrayBuffer, r.nums.buffer as ArrayBuffer);
  return out;
}
