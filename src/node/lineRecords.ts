// `check`'s side of the records (src/ingest/lineRecords.ts, the format and why): a line is
// read as the CLI's ordinary path reads it, by NodeLineParser, or by the snapshot scanner
// (src/ingest/snapshotScan.ts) over its bytes, which says `parsed` as the parser would.
import { Buffer, isAscii, isUtf8 } from 'node:buffer';
import { RecordEncoder as EncoderOf, type ScanViewOf, type Sha256 } from '../ingest/lineRecords.ts';
import { NodeLineParser, onlyAsciiEscapes } from './lineParser.ts';

export { KnownDigests, RecordDecoder, Shapes, type LineRecord, type Sha256, type SpanMakers, type TakenRecord } from '../ingest/lineRecords.ts';

/** A parsing thread's encoder: one per thread, `reset` at the start of each batch of lines. */
export class RecordEncoder extends EncoderOf {
  constructor(sha256: Sha256) {
    super(sha256, new NodeLineParser().decode, nodeScanView);
  }
}

/** Node's UTF-8 decoding of the scanner's copy of a line (a Buffer over the same memory, kept while the copy is the same). */
let decoding: Uint8Array | null = null;
let asBuffer: Buffer = Buffer.alloc(0);
const nodeUtf8 = (at: Uint8Array, a: number, b: number): string => {
  if (at !== decoding) {
    decoding = at;
    asBuffer = Buffer.from(at.buffer, at.byteOffset, at.byteLength);
  }
  return asBuffer.toString('utf8', a, b);
};

/**
 * The line for the scanner, and NodeLineParser's verdict on it: an ASCII line it hands on as
 * text, a line with bytes ≥ 0x80 parsed unless an escape above \u007F sends it the ordinary
 * way (as text). A line that is not UTF-8 is not scanned (the ordinary way words the error);
 * the scanner's strings of any other decode exactly.
 */
export const nodeScanView: ScanViewOf = (bytes, start, end) => {
  const line = Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start);
  const ascii = isAscii(line);
  if (!ascii && !isUtf8(line)) return null;
  // (Buffer's indexOf is a native search; a Uint8Array's went byte by byte and was ~15% of check)
  return { bytes, start, end, parsed: !ascii && (!line.includes('\\u') || onlyAsciiEscapes(line.toString('latin1'))), utf8: nodeUtf8 };
};
