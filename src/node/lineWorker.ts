// A parsing thread of `check` (src/node/linePool.ts): each batch of lines it is posted comes
// back with one record per line (or null: that line goes the ordinary way on the main
// thread), and the batch's bytes, transferred back, for the lines that do.
import { parentPort, workerData } from 'node:worker_threads';
import { RecordEncoder, type LineRecord } from './lineRecords.ts';
import { nodeSha256 } from './platform.ts';

export interface LineBatch {
  seq: number;
  bytes: Uint8Array;
  /** per line of the batch: where its bytes start and end in `bytes` */
  starts: Int32Array;
  ends: Int32Array;
}

export interface LineBatchResult {
  seq: number;
  bytes: Uint8Array;
  records: (LineRecord | null)[];
  /** which thread parsed it (LinePool numbers them; −1: the main thread): whose previous line its records refer to */
  member: number;
  /** the key orders of span objects the thread has met: a record's shapes index this (lineRecords.ts) */
  shapes: string[][];
}

export interface LineWorkerData {
  /** tests only: the thread exits (code 70) on receiving its batch number `stopAt` (0-based) */
  stopAt?: number;
}

const port = parentPort;
if (port === null) throw new Error('lineWorker.ts runs as a worker thread');
const options = (workerData ?? {}) as LineWorkerData;
const encoder = new RecordEncoder(nodeSha256);
let received = 0;

port.on('message', (batch: LineBatch) => {
  if (received++ === options.stopAt) process.exit(70);
  // a record may refer to this thread's previous line, in its previous batch: the main thread
  // takes this thread's batches in their order with one decoder (threadedRead.ts)
  const { bytes, starts, ends } = batch;
  const records: (LineRecord | null)[] = new Array(starts.length);
  const transfer: ArrayBuffer[] = [bytes.buffer as ArrayBuffer];
  for (let i = 0; i < starts.length; i++) {
    let r: LineRecord | null;
    try {
      r = encoder.encode(bytes, starts[i]!, ends[i]!);
    } catch {
      r = null; // whatever went wrong here, the main thread reads the line itself and words it
      encoder.reset();
    }
    records[i] = r;
  }
  const result: LineBatchResult = { seq: batch.seq, bytes, records, member: 0, shapes: encoder.shapes.list };
  port.postMessage(result, transfer);
});
port.postMessage('ready');
