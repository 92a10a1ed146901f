// One pretty-printed JSON document read as it streams, line by line, never as one string:
// a Gemini CLI session (`{"sessionId": …, "messages": [ … ]}`) may hold a million messages.
// The document's top-level members are handed on one by one, parsed; the elements of one
// named array member (the `streamed` key) are handed on one at a time, as their text, so
// memory is bounded by the largest element, not by the document (docs/adapters.md "Gemini CLI").
import { MAX_NESTING } from '../core/nesting.ts';
import { DEFAULT_MAX_LINE_BYTES } from './lines.ts';

export interface DocumentSink {
  /** a top-level member's name, before its value is read (a reader that does not want the document stops here) */
  key?(key: string, line: number): void;
  /** a top-level member (not the streamed array) with its value, parsed; `undefined` when its text did not parse */
  member(key: string, value: unknown, line: number): void;
  /** the streamed array member begins: what came before it has been handed on */
  arrayStart(key: string, line: number): void;
  /** the streamed array member ended (its `]`) */
  arrayEnd?(key: string, line: number): void;
  /** one element of the streamed array, as JSON text, with the line it starts on */
  element(text: string, line: number): void;
  /** an element that cannot be read (over the size or nesting limit); reading goes on after it */
  elementError(line: number, message: string): void;
}

const S = {
  BeforeObject: 0,
  BeforeKey: 1,
  InKey: 2,
  BeforeColon: 3,
  BeforeValue: 4,
  InValue: 5,
  BeforeElement: 6,
  InElement: 7,
  AfterMember: 8,
  Done: 9,
  Failed: 10,
} as const;
type State = (typeof S)[keyof typeof S];

export interface DocumentOptions {
  /** the longest element or member text held, in UTF-16 units (default the reader's line limit) */
  maxValueChars?: number;
  /** false: an element nesting past MAX_NESTING is read all the same (its reader reads fixed, shallow fields; JSON.parse does not recurse) */
  checkNesting?: boolean;
}

/**
 * Scans the document's text line by line. Inside a value it only tracks strings and nesting,
 * so a chunk boundary (a line) can fall anywhere. A value's text is held as slices of its
 * lines and joined once, when it ends.
 */
export class JsonDocumentStream {
  private state: State = S.BeforeObject;
  private key = '';
  private keyParts: string[] = [];
  private parts: string[] = [];
  private partsLength = 0;
  private valueLine = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** the value being read is over a limit: nothing more of it is held */
  private overflow: 'size' | 'depth' | null = null;
  private failure: { line: number; message: string } | null = null;
  private readonly maxValueChars: number;
  /** the array members whose elements are handed on one at a time (a SWE-agent trajectory streams two) */
  private readonly streamed: ReadonlySet<string>;
  private readonly maxNesting: number;

  constructor(
    private readonly sink: DocumentSink,
    streamed: string | readonly string[],
    options: DocumentOptions = {},
  ) {
    this.streamed = new Set(typeof streamed === 'string' ? [streamed] : streamed);
    this.maxValueChars = options.maxValueChars ?? DEFAULT_MAX_LINE_BYTES;
    this.maxNesting = options.checkNesting === false ? Infinity : MAX_NESTING;
  }

  /** the first structural error, or null */
  get error(): { line: number; message: string } | null {
    return this.failure;
  }

  /** the document's closing brace was read */
  get complete(): boolean {
    return this.state === S.Done;
  }

  /** true while the document has been read no further than its streamed array's elements */
  get inStreamedArray(): boolean {
    return this.state === S.BeforeElement || this.state === S.InElement;
  }

  /** One line of the document's text, without its newline. */
  push(text: string, line: number): void {
    const n = text.length;
    let i = 0;
    // where the current value's slice of this line starts
    let from = this.state === S.InValue || this.state === S.InElement ? 0 : -1;
    while (i < n) {
      const c = text.charCodeAt(i);
      switch (this.state) {
        case S.BeforeObject:
          if (isSpace(c) || (c === 0xfeff && i === 0)) break;
          if (c !== 0x7b) return this.fail(line, 'a document must be one JSON object');
          this.state = S.BeforeKey;
          break;
        case S.BeforeKey:
          if (isSpace(c) || c === 0x2c) break;
          if (c === 0x7d) this.state = S.Done;
          else if (c === 0x22) {
            this.state = S.InKey;
            this.keyParts = ['"'];
            this.escaped = false;
          } else return this.fail(line, `expected a member name on line ${line}`);
          break;
        case S.InKey: {
          const start = i;
          for (; i < n; i++) {
            const k = text.charCodeAt(i);
            if (this.escaped) this.escaped = false;
            else if (k === 0x5c) this.escaped = true;
            else if (k === 0x22) break;
          }
          this.keyParts.push(text.slice(start, i));
          if (i === n) return this.fail(line, `a member name runs past the end of line ${line}`);
          this.keyParts.push('"');
          try {
            this.key = JSON.parse(this.keyParts.join('')) as string;
          } catch {
            return this.fail(line, `a member name on line ${line} is not a JSON string`);
          }
          this.state = S.BeforeColon;
          this.sink.key?.(this.key, line);
          break;
        }
        case S.BeforeColon:
          if (isSpace(c)) break;
          if (c !== 0x3a) return this.fail(line, `expected : after "${this.key}" on line ${line}`);
          this.state = S.BeforeValue;
          break;
        case S.BeforeValue:
          if (isSpace(c)) break;
          if (this.streamed.has(this.key) && c === 0x5b) {
            this.sink.arrayStart(this.key, line);
            this.state = S.BeforeElement;
            break;
          }
          this.startValue(line, S.InValue);
          from = i;
          continue; // the value's first character is scanned as part of it
        case S.BeforeElement:
          if (isSpace(c) || c === 0x2c) break;
          if (c === 0x5d) {
            this.state = S.AfterMember;
            this.sink.arrayEnd?.(this.key, line);
            break;
          }
          this.startValue(line, S.InElement);
          from = i;
          continue;
        case S.InValue:
        case S.InElement: {
          const end = this.scanValue(text, i);
          if (end === -1) {
            i = n;
            continue;
          }
          this.take(text, from, end);
          from = -1;
          const closer = text.charCodeAt(end);
          this.endValue();
          if (this.state === S.InValue) this.state = closer === 0x7d ? S.Done : S.BeforeKey;
          else if (closer === 0x5d) {
            this.state = S.AfterMember;
            this.sink.arrayEnd?.(this.key, line);
          } else this.state = S.BeforeElement;
          i = end + 1;
          continue;
        }
        case S.AfterMember:
          if (isSpace(c)) break;
          if (c === 0x2c) this.state = S.BeforeKey;
          else if (c === 0x7d) this.state = S.Done;
          else return this.fail(line, `expected , or } after "${this.key}" on line ${line}`);
          break;
        case S.Done:
          if (!isSpace(c)) return this.fail(line, `unexpected content after the document's closing } on line ${line}`);
          break;
        case S.Failed:
          return;
      }
      i++;
    }
    if (from !== -1 && (this.state === S.InValue || this.state === S.InElement)) {
      this.take(text, from, n);
      this.take('\n', 0, 1);
    }
  }

  /** The input ended: a document cut short is reported as such (the elements read so far stand). */
  end(line: number): void {
    if (this.state === S.Done || this.state === S.Failed) return;
    this.fail(line, this.state === S.BeforeObject ? 'the document is empty' : 'the document ends before its closing }');
  }

  private startValue(line: number, state: State): void {
    this.state = state;
    this.valueLine = line;
    this.parts = [];
    this.partsLength = 0;
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    this.overflow = null;
  }

  /**
   * Scans the value from `i`: the index of the `,`, `}` or `]` that ends it (outside its
   * strings and containers), or −1 when the line ends first.
   */
  private scanValue(text: string, i: number): number {
    const n = text.length;
    // locals in the loop that sees every character of the document
    let depth = this.depth;
    let inString = this.inString;
    let escaped = this.escaped;
    let end = -1;
    while (i < n) {
      if (inString) {
        if (escaped) {
          escaped = false;
          i++;
          continue;
        }
        // a string's characters are skipped to its closing quote: one not preceded by an odd run of backslashes
        const q = text.indexOf('"', i);
        if (q === -1) {
          escaped = text.charCodeAt(n - 1) === 0x5c && oddBackslashes(text, n - 1);
          i = n;
          break;
        }
        i = q + 1;
        if (!oddBackslashes(text, q - 1)) inString = false;
        continue;
      }
      const c = text.charCodeAt(i);
      if (c === 0x22) inString = true;
      else if (c === 0x7b || c === 0x5b) {
        depth++;
        // nesting.ts: an element is level 1, so its containers start at level 1
        if (depth > this.maxNesting && this.overflow === null) this.drop('depth');
      } else if (c === 0x7d || c === 0x5d) {
        if (depth === 0) {
          end = i;
          break;
        }
        depth--;
      } else if (c === 0x2c && depth === 0) {
        end = i;
        break;
      }
      i++;
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    return end;
  }

  private take(text: string, from: number, to: number): void {
    if (this.overflow !== null || to <= from) return;
    this.partsLength += to - from;
    if (this.partsLength > this.maxValueChars) return this.drop('size');
    this.parts.push(from === 0 && to === text.length ? text : text.slice(from, to));
  }

  private drop(why: 'size' | 'depth'): void {
    this.overflow = why;
    this.parts = [];
  }

  private endValue(): void {
    const element = this.state === S.InElement;
    const where = element ? `the element of "${this.key}" that starts on line ${this.valueLine}` : `the member "${this.key}" (line ${this.valueLine})`;
    if (this.overflow !== null) {
      const message =
        this.overflow === 'size'
          ? `${where} is longer than ${this.maxValueChars} characters: it was skipped, not read`
          : `${where} nests arrays and objects more than ${MAX_NESTING} levels deep: it was skipped, not read`;
      this.parts = [];
      if (element) this.sink.elementError(this.valueLine, message);
      else this.sink.member(this.key, undefined, this.valueLine);
      return;
    }
    const text = this.parts.join('');
    this.parts = [];
    if (element) {
      this.sink.element(text, this.valueLine);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    this.sink.member(this.key, value, this.valueLine);
  }

  private fail(line: number, message: string): void {
    this.failure ??= { line, message };
    this.state = S.Failed;
    this.parts = [];
  }
}

/** Whether the backslashes ending at `at` (going back) are an odd run, so they escape what follows. */
function oddBackslashes(text: string, at: number): boolean {
  let k = 0;
  while (at - k >= 0 && text.charCodeAt(at - k) === 0x5c) k++;
  return k % 2 === 1;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}
