// The span ids of records that carry no id of their own, made from where they are in the file
// (docs/adapters.md: Codex `line<N>`, Claude Code `line<N>#<block>` for a record without a
// uuid, OpenHands `line<N>` for an event without an id), and the escape of a file's id that
// could equal a derived one.

/**
 * `line<N>` for the first record read from line N, `line<N>.<k>` for the k-th (k ≥ 2). A JSONL
 * file has one record a line, so its ids are `line<N>` as they always were; but the elements of
 * a JSON array are numbered by the line they start on (src/ingest/jsonArray.ts), so an array
 * written on one line handed every record line 1, every record got `line1`, and the engine
 * refused every snapshot for its repeated span ids. Ask once per record. Line numbers never go
 * back (the readers number lines, array elements and OpenHands event files in order), so the
 * last line read is all it keeps.
 */
export class LineIds {
  private line = -1;
  private count = 0;

  next(line: number): string {
    if (line === this.line) this.count++;
    else {
      this.line = line;
      this.count = 1;
    }
    return this.count === 1 ? `line${line}` : `line${line}.${this.count}`;
  }
}

/** The ids LineIds gives: an id from the file of this form could equal one of them. */
export const LINE_ID = /^line\d+(\.\d+)?$/;

/**
 * A file's id that could equal an id an adapter derives, made one that cannot: `#`, then the
 * id with `%` and `#` percent-escaped. The same id always gets the same result, and no two
 * ids get one. Gemini CLI's message keys are this; OpenHands' event keys add a `#` at the end
 * (docs/adapters.md, each adapter's span id row).
 */
export function escapedId(id: string): string {
  return '#' + id.replace(/%/g, '%25').replace(/#/g, '%23');
}
