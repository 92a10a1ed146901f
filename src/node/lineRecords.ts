// `check`'s side of the records (src/ingest/lineRecords.ts, the format and why): a line is
// read as the CLI's ordinary path reads it, by NodeLineParser, or by the snapshot scanner
// (src/ingest/snapshotScan.ts) over its latin1 string, which says `parsed` as the parser would.
import { Buffer, isAscii, isUtf8 } from 'node:buffer';
import { mayHoldLoneSurrogate } from '../core/validate.ts';
import { RecordEncoder as EncoderOf, type ScanViewOf, type Sha256 } from '../ingest/lineRecords.ts';
import { NodeLineParser, onlyAsciiEscapes } from './lineParser.ts';

export { KnownDigests, RecordDecoder, Shapes, type LineRecord, type Sha256, type SpanMakers, type TakenRecord } from '../ingest/lineRecords.ts';

/** A parsing thread's encoder: one per thread, `reset` at the start of each batch of lines. */
export class RecordEncoder extends EncoderOf {
  constructor(sha256: Sha256) {
    super(sha256, new NodeLineParser().decode, nodeScanView);
  }
}

/**
 * The line as latin1 (one char per byte, ~15 µs for 100 KB where UTF-8 took ~290 µs), and
 * NodeLineParser's verdict on it: an ASCII line it hands on as text, a line with bytes
 * ≥ 0x80 parsed unless an escape above \u007F sends it the ordinary way (as text).
 */
export const nodeScanView: ScanViewOf = (bytes, start, end) => {
  const view = bytes.subarray(start, end);
  const ascii = isAscii(view);
  if (!ascii && !isUtf8(view)) return null;
  const buf = Buffer.from(view.buffer, view.byteOffset, view.byteLength);
  const chars = buf.toString('latin1');
  const escapes = chars.includes('\\u');
  return {
    chars,
    // a string is well-formed unless escaped into a surrogate: valid UTF-8 holds none
    wellFormed: !escapes || !mayHoldLoneSurrogate(chars),
    parsed: !ascii && (!escapes || onlyAsciiEscapes(chars)),
    utf8: ascii ? (a, b) => chars.slice(a, b) : (a, b) => buf.toString('utf8', a, b),
  };
};
