// A `.json` transcript is one JSON array of messages (contract §2). It may be far larger than
// one string can hold, so it is split on bytes into its top-level elements, each handed
// on like a JSONL line, numbered by the file line its element starts on.
import {
  copyOf,
  DEFAULT_MAX_LINE_BYTES,
  notUtf8Message,
  tooLongMessage,
  type DecodeFailure,
  type LineDecoder,
  type LineSink,
  type SplitOptions,
} from './lines.ts';

const enum_ = { BeforeArray: 0, BeforeElement: 1, InElement: 2, AfterElement: 3, Done: 4 } as const;
type State = (typeof enum_)[keyof typeof enum_];

export class JsonArraySplitter<T = string> {
  private state: State = enum_.BeforeArray;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private line: number;
  private elementLine = 1;
  private parts: Uint8Array[] = [];
  /** bytes held in `parts` */
  private partsBytes = 0;
  /** bytes of the current element once it is known to be over the limit (nothing of it is held), else −1 */
  private skipped = -1;
  private readonly maxElementBytes: number;
  /** set when the bytes are not an array of values; reported once, at end() */
  private structureError: { line: number; message: string } | null = null;

  /** `linesBefore`: lines of the input already consumed by the caller (white space before the array) */
  constructor(
    private readonly sink: LineSink<T>,
    private readonly decode: LineDecoder<T>,
    private readonly onStructureError: (line: number, message: string) => void,
    options: SplitOptions = {},
    linesBefore = 0,
  ) {
    this.maxElementBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.line = 1 + linesBefore;
  }

  push(chunk: Uint8Array): void {
    let elementStart = this.state === enum_.InElement ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (b === 0x0a) this.line++;
      switch (this.state) {
        case enum_.BeforeArray:
          if (isSpace(b) || (i < 3 && this.line === 1 && (b === 0xef || b === 0xbb || b === 0xbf))) continue;
          if (b === 0x5b) this.state = enum_.BeforeElement;
          else return this.fail('a .json transcript must be a JSON array of messages');
          continue;
        case enum_.BeforeElement:
          if (isSpace(b)) continue;
          if (b === 0x5d) {
            this.state = enum_.Done;
            continue;
          }
          this.state = enum_.InElement;
          this.elementLine = this.line;
          elementStart = i;
          this.depth = 0;
          this.inString = false;
          this.escaped = false;
          break; // fall into the element scan below for this byte
        case enum_.AfterElement:
          if (isSpace(b)) continue;
          if (b === 0x2c) this.state = enum_.BeforeElement;
          else if (b === 0x5d) this.state = enum_.Done;
          else return this.fail(`expected , or ] between array elements on line ${this.line}`);
          continue;
        case enum_.Done:
          if (!isSpace(b)) return this.fail(`unexpected content after the closing ] on line ${this.line}`);
          continue;
        case enum_.InElement:
          break;
      }
      // InElement
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === 0x5c) this.escaped = true;
        else if (b === 0x22) this.inString = false;
        continue;
      }
      if (b === 0x22) this.inString = true;
      else if (b === 0x7b || b === 0x5b) this.depth++;
      else if (b === 0x7d || b === 0x5d) {
        if (this.depth === 0) {
          // `]` closing the array right after a bare value such as `1]`
          this.finishElement(chunk, elementStart, i);
          elementStart = -1;
          this.state = b === 0x5d ? enum_.Done : enum_.AfterElement;
          if (b === 0x7d) this.fail(`unbalanced } on line ${this.line}`);
          continue;
        }
        this.depth--;
        if (this.depth === 0) {
          this.finishElement(chunk, elementStart, i + 1);
          elementStart = -1;
          this.state = enum_.AfterElement;
        }
      } else if (this.depth === 0 && (b === 0x2c || isSpace(b))) {
        // end of a bare top-level value (number, true, …): not a message, but reported per element
        this.finishElement(chunk, elementStart, i);
        elementStart = -1;
        this.state = b === 0x2c ? enum_.BeforeElement : enum_.AfterElement;
      }
    }
    if (this.state === enum_.InElement && elementStart !== -1) this.hold(chunk, elementStart);
  }

  /** The rest of the chunk, from `start`, belongs to the element being read: held, or counted once it is over the limit. */
  /** Lines of the input read so far (an array's elements are numbered by their line). */
  get lines(): number {
    return this.line;
  }

  private hold(chunk: Uint8Array, start: number): void {
    const rest = chunk.length - start;
    if (this.skipped !== -1) this.skipped += rest;
    else if (this.partsBytes + rest > this.maxElementBytes) {
      this.skipped = this.partsBytes + rest;
      this.parts = [];
      this.partsBytes = 0;
    } else {
      this.parts.push(copyOf(chunk, start));
      this.partsBytes += rest;
    }
  }

  end(): void {
    if (this.state === enum_.InElement) {
      this.fail(`the array ends inside an element that starts on line ${this.elementLine}`);
    } else if (this.state !== enum_.Done && this.structureError === null) {
      this.fail(this.state === enum_.BeforeArray ? 'the file is empty' : 'the array is not closed with ]');
    }
    if (this.structureError !== null) this.onStructureError(this.structureError.line, this.structureError.message);
  }

  private finishElement(chunk: Uint8Array, start: number, end: number): void {
    const length = this.skipped !== -1 ? this.skipped + end : this.partsBytes + end - (this.parts.length === 0 ? start : 0);
    if (this.skipped !== -1 || length > this.maxElementBytes) {
      this.skipped = -1;
      this.parts = [];
      this.partsBytes = 0;
      this.sink({ error: tooLongMessage('element', length, this.maxElementBytes) }, this.elementLine);
      return;
    }
    let bytes: Uint8Array;
    let from = 0;
    let to: number;
    if (this.parts.length === 0) {
      bytes = chunk;
      from = start;
      to = end;
    } else {
      this.parts.push(chunk.subarray(0, end));
      let total = 0;
      for (const p of this.parts) total += p.length;
      bytes = new Uint8Array(total);
      let at = 0;
      for (const p of this.parts) {
        bytes.set(p, at);
        at += p.length;
      }
      this.parts = [];
      this.partsBytes = 0;
      to = total;
    }
    let text: T | DecodeFailure;
    try {
      text = this.decode(bytes, from, to);
    } catch {
      text = { error: notUtf8Message('element') };
    }
    this.sink(text, this.elementLine);
  }

  private fail(message: string): void {
    this.structureError ??= { line: this.line, message };
    this.state = enum_.Done;
    this.parts = [];
    this.partsBytes = 0;
    this.skipped = -1;
  }
}

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}
