// A pretty-printed SWE-agent `.traj` read as it streams (docs/adapters.md "SWE-agent",
// docs/security.md "Bounded memory"): the document's `trajectory` and `history` arrays are
// handed on element by element (jsonDocument.ts), each element parsed alone, so the file is
// never held whole. It is told a trajectory when its `trajectory` array opens (or, with no
// trajectory before it, at the first history message naming a role and an agent), unless a
// `type` of "session" or "snapshot" came first (then it is the product's own, detect.ts);
// until then the pipeline keeps the lines, as for any document. A mini-swe-agent document
// (docs/adapters.md "mini-swe-agent") is told when its `messages` array opens after an
// `info` with `mini_version` or of the releases before it (or a `trajectory_format`
// "mini-swe-agent…"); its messages are then handed on one at a time the same way.
import { notJsonMessage } from '../../core/inputErrors.ts';
import { mayHoldLoneSurrogate } from '../../core/validate.ts';
import { JsonDocumentStream } from '../jsonDocument.ts';
import { isObject } from './json.ts';
import { isEarlyMiniInfo, isMiniFormat, isMiniInfo, type MiniSweAgentCalls } from './miniSweAgent.ts';
import type { TrajectoryReader } from './sweAgentTrajectory.ts';
import { wellFormedRecord } from './wellFormed.ts';
import type { SessionHeader, Snapshot } from '../../core/wire.ts';

export interface TrajectorySink {
  /** the document is a trajectory: the reader its parts go to (null: the adapter read one already) */
  decided(): TrajectoryReader | null;
  /** the document is a mini-swe-agent trajectory: the reader its messages go to (null: the adapter read one already) */
  decidedMini(): MiniSweAgentCalls | null;
  /** snapshots (and a mini-swe-agent session's header) as the reader makes them */
  snapshots(made: () => Iterable<Snapshot | SessionHeader>): void;
  error(line: number, message: string): void;
  /** the document was cut short (still being written) */
  truncated(): void;
  /** an element held a lone surrogate, read as U+FFFD (wellFormed.ts) */
  loneSurrogate(): void;
}

export class SweAgentDocument {
  private readonly stream: JsonDocumentStream;
  private reader: TrajectoryReader | null = null;
  private mini: MiniSweAgentCalls | null = null;
  /** a member before `messages` said mini-swe-agent (`info.mini_version` or an early `info`, `trajectory_format`) */
  private miniSaid = false;
  private inMessages = false;
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
          if ((key === 'info' && (isMiniInfo(value) || isEarlyMiniInfo(value))) || (key === 'trajectory_format' && isMiniFormat(value))) this.miniSaid = true;
        },
        arrayStart: (key) => {
          if (key === 'messages') {
            this.inMessages = true;
            if (this.state === 'undecided' && this.miniSaid) {
              this.state = 'reading';
              this.mini = this.sink.decidedMini();
            }
          } else if (key === 'trajectory') {
            if (this.state === 'undecided') this.decide();
          } else {
            this.inHistory = true;
            if (this.reader !== null) this.reader.historyStart();
          }
        },
        arrayEnd: (key) => {
          if (key === 'messages') this.inMessages = false;
          const reader = this.reader;
          if (key === 'history') this.inHistory = false;
          if (reader === null) return;
          if (key === 'trajectory') reader.trajectoryEnd();
          else if (key === 'history') this.sink.snapshots(() => reader.historyEnd());
        },
        element: (text, line) => {
          let value: unknown;
          try {
            value = JSON.parse(text);
          } catch (e) {
            this.sink.error(line, notJsonMessage(text, e));
            value = undefined;
          }
          if (value !== undefined && mayHoldLoneSurrogate(text)) value = wellFormedRecord(value, () => this.sink.loneSurrogate());
          this.element(value);
        },
        elementError: (line, message) => {
          this.sink.error(line, message);
          this.element(undefined);
        },
      },
      ['trajectory', 'history', 'messages'],
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
    const mini = this.mini;
    if (reader === null && mini === null) return;
    this.stream.end(line);
    const error = this.stream.error;
    if (error !== null) {
      // adapters.md: a trajectory cut short (still being written) ends in a partial record, counted; what was read stands
      if (error.message.startsWith('the document ends')) this.sink.truncated();
      else this.sink.error(error.line, error.message);
    }
    if (mini !== null) this.sink.snapshots(() => mini.end());
    else this.sink.snapshots(() => reader!.end());
  }

  private element(value: unknown): void {
    if (this.inMessages) {
      // a mini-swe-agent message; in any other document `messages` is not read
      const mini = this.mini;
      if (mini !== null) this.sink.snapshots(() => mini.message(value));
      return;
    }
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
