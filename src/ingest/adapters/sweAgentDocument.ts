// A pretty-printed SWE-agent `.traj` read as it streams (docs/adapters.md "SWE-agent",
// docs/security.md "Bounded memory"): the document's `trajectory` and `history` arrays are
// handed on element by element (jsonDocument.ts), each element parsed alone, so the file is
// never held whole. It is told a trajectory when its `trajectory` array opens (or, with no
// trajectory before it, at the first history message naming a role and an agent), unless a
// `type` of "session" or "snapshot" came first (then it is the product's own, detect.ts);
// until then the pipeline keeps the lines, as for any document.
import { notJsonMessage } from '../../core/inputErrors.ts';
import { JsonDocumentStream } from '../jsonDocument.ts';
import { isObject } from './json.ts';
import type { TrajectoryReader } from './sweAgentTrajectory.ts';
import type { Snapshot } from '../../core/wire.ts';

export interface TrajectorySink {
  /** the document is a trajectory: the reader its parts go to (null: the adapter read one already) */
  decided(): TrajectoryReader | null;
  /** snapshots as the reader makes them */
  snapshots(made: () => Iterable<Snapshot>): void;
  error(line: number, message: string): void;
  /** the document was cut short (still being written) */
  truncated(): void;
}

export class SweAgentDocument {
  private readonly stream: JsonDocumentStream;
  private reader: TrajectoryReader | null = null;
  private state: 'undecided' | 'reading' | 'not' = 'undecided';
  /** history messages read before the decision (a history-first document), handed on once it is made */
  private pending: unknown[] = [];
  private inHistory = false;

  constructor(
    private readonly sink: TrajectorySink,
    options: { maxValueChars?: number } = {},
  ) {
    this.stream = new JsonDocumentStream(
      {
        member: (key, value) => {
          if (this.state === 'undecided' && key === 'type' && (value === 'session' || value === 'snapshot')) this.state = 'not';
        },
        arrayStart: (key) => {
          if (key === 'trajectory') {
            if (this.state === 'undecided') this.decide();
          } else {
            this.inHistory = true;
            if (this.reader !== null) this.reader.historyStart();
          }
        },
        arrayEnd: (key) => {
          const reader = this.reader;
          if (key === 'history') this.inHistory = false;
          if (reader === null) return;
          if (key === 'trajectory') reader.trajectoryEnd();
          else this.sink.snapshots(() => reader.historyEnd());
        },
        element: (text, line) => {
          let value: unknown;
          try {
            value = JSON.parse(text);
          } catch (e) {
            this.sink.error(line, notJsonMessage(text, e));
            value = undefined;
          }
          this.element(value);
        },
        elementError: (line, message) => {
          this.sink.error(line, message);
          this.element(undefined);
        },
      },
      ['trajectory', 'history'],
      // importers.test.ts: the adapter reads fixed, shallow fields of a step or message, so a deep one is read, as in a document on one line
      { ...options, checkNesting: false },
    );
  }

  /** the document is being read as a trajectory: the pipeline holds its lines no more */
  get reading(): boolean {
    return this.state === 'reading';
  }

  /** it cannot be one (or the reader gave up): the pipeline reads the held lines as before */
  get failed(): boolean {
    return this.state === 'not' || (this.state === 'undecided' && this.stream.error !== null);
  }

  push(text: string, line: number): void {
    if (this.state !== 'not') this.stream.push(text, line);
  }

  /** The input ended. */
  end(line: number): void {
    const reader = this.reader;
    if (reader === null) return;
    this.stream.end(line);
    const error = this.stream.error;
    if (error !== null) {
      // adapters.md: a trajectory cut short (still being written) ends in a partial record, counted; what was read stands
      if (error.message.startsWith('the document ends')) this.sink.truncated();
      else this.sink.error(error.line, error.message);
    }
    this.sink.snapshots(() => reader.end());
  }

  private element(value: unknown): void {
    if (this.state === 'undecided') {
      if (!this.inHistory) return;
      this.pending.push(value);
      // isHistoryDocument: a history of SWE-agent messages
      if (isObject(value) && typeof value.role === 'string' && typeof value.agent === 'string') {
        const pending = this.pending;
        this.decide();
        const reader = this.reader;
        if (reader === null) return;
        reader.historyStart();
        for (const m of pending) this.sink.snapshots(() => reader.historyMessage(m));
      }
      return;
    }
    const reader = this.reader;
    if (reader === null) return;
    if (this.inHistory) this.sink.snapshots(() => reader.historyMessage(value));
    else this.sink.snapshots(() => reader.step(value));
  }

  private decide(): void {
    this.state = 'reading';
    this.pending = [];
    this.reader = this.sink.decided();
  }
}
