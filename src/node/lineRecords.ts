// `check`'s side of the records (src/ingest/lineRecords.ts, the format and why): a line is
// read as the CLI's ordinary path reads it, by NodeLineParser.
import { RecordEncoder as EncoderOf, type Sha256 } from '../ingest/lineRecords.ts';
import { NodeLineParser } from './lineParser.ts';

export { KnownDigests, RecordDecoder, Shapes, type LineRecord, type Sha256, type SpanMakers, type TakenRecord } from '../ingest/lineRecords.ts';

/** A parsing thread's encoder: one per thread, `reset` at the start of each batch of lines. */
export class RecordEncoder extends EncoderOf {
  constructor(sha256: Sha256) {
    super(sha256, new NodeLineParser().decode);
  }
}
