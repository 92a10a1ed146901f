// Between the transcript reader and the engine, in every door that reads files (check and
// the Worker): tells the format by content (detect.ts), passes the product's own messages
// through untouched, and turns other agents' transcripts into contract §2 messages with
// their adapter (docs/adapters.md). Lines keep their numbers, so an input error still
// names the transcript's own line.
import { notJsonMessage } from '../../core/inputErrors.ts';
import { exceedsNesting, tooDeepMessage } from '../../core/nesting.ts';
import { mayHoldLoneSurrogate } from '../../core/validate.ts';
import { JsonDocumentStream } from '../jsonDocument.ts';
import { ClaudeCodeAdapter, type AdaptedMessage } from './claudeCode.ts';
import { CodexAdapter } from './codex.ts';
import { detectFormat, TRANSCRIPT_FORMATS, type TranscriptFormat } from './detect.ts';
import { GeminiAdapter } from './gemini.ts';
import { OpenHandsAdapter } from './openhands.ts';
import { SweAgentAdapter } from './sweAgent.ts';
import { SweAgentDocument } from './sweAgentDocument.ts';
import type { SessionHeader, Snapshot } from '../../core/wire.ts';
import type { SkippedRecords } from './skipped.ts';
import { LONE_SURROGATE_RECORD, wellFormedRecord } from './wellFormed.ts';

/** Where messages go next: the engine's three ways in (Engine.ingestLine / ingestParsedLine). */
export interface MessageFeed {
  /** a line of the product's own format, as read */
  text(text: string, line: number): void;
  /**
   * a parsed message; `noSurrogateEscape` as in Engine.ingestParsedLine; `fromAdapter`: an
   * adapter made it, so its session carries no harness score (scoringStage.ts)
   */
  value(value: unknown, line: number, noSurrogateEscape: boolean, fromAdapter?: boolean): void;
  error(line: number, message: string): void;
  /** the input ended (a stage that holds messages back lets them go) */
  end?(): void;
}

export interface PipelineOptions {
  /** force a format (`check --from`); default: told by the first message */
  from?: TranscriptFormat;
  /** the session id when a transcript names none (e.g. the file name) */
  fallbackSessionId?: string;
  /** false: compactions carry no audit items (contract §8.4; `check --no-audit`) */
  audit?: boolean;
  /**
   * 'abridged': the consumer reads a session's summary alone, so a Claude Code call's snapshot
   * may leave out the spans that cannot change it (docs/engine.md "Snapshots abridged")
   */
  spans?: 'all' | 'abridged';
  /** the longest message of a streamed document (a Gemini CLI session) held, in characters (default the reader's line limit) */
  maxRecordChars?: number;
}

/** What the pipeline found, for reports and the dashboard's load status. */
export interface AdapterSummary {
  format: TranscriptFormat;
  /** records read but not mapped, by kind (docs/adapters.md); empty for the wire format */
  skipped: Record<string, number>;
}

interface Adapter {
  readonly skipped: SkippedRecords;
  /** an iterable: a trajectory's history snapshots are made as they are taken (sweAgentHistory.ts) */
  record(value: unknown, line: number): Iterable<AdaptedMessage>;
  truncatedLastLine(): void;
  /** the input ended: what the adapter still held (a Claude Code call waiting for its usage) */
  end?(): AdaptedMessage[];
}

/**
 * A record that stands for a file the relay could not send as `check <folder>` reads it (an
 * OpenHands conversation folder sent as JSON Lines, server/localSessions/openhandsConversation.ts):
 * `{"$input_error": "<file>: <why>"}`, one input error with check's own words, before the
 * format is told or in an OpenHands transcript. Made by inputErrorLine.
 */
const INPUT_ERROR_KEY = '$input_error';

/** The JSON line carrying one input error (INPUT_ERROR_KEY). */
export function inputErrorLine(message: string): string {
  return JSON.stringify({ [INPUT_ERROR_KEY]: message });
}

/**
 * A first record `{"$format": "<format>"}` (that one member) tells the format, as `check --from`
 * does, and is nothing else: the relay opens a conversation folder's body with it, so the page
 * reads it as `check <folder>` does whatever the folder's first file holds.
 */
const FORMAT_KEY = '$format';

/** The JSON line that tells the format (FORMAT_KEY). */
export function formatLine(format: TranscriptFormat): string {
  return JSON.stringify({ [FORMAT_KEY]: format });
}

function formatOf(value: unknown): TranscriptFormat | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.keys(value).length !== 1) return null;
  const format = (value as Record<string, unknown>)[FORMAT_KEY];
  return TRANSCRIPT_FORMATS.find((f) => f === format) ?? null;
}

function inputErrorOf(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  // asked of every OpenHands record: its keys are counted only when it has that one
  const message = (value as Record<string, unknown>)[INPUT_ERROR_KEY];
  return typeof message === 'string' && Object.keys(value).length === 1 ? message : null;
}

export class TranscriptPipeline {
  private detected: TranscriptFormat | null;
  private adapter: Adapter | null = null;
  /** adapters.md: a line that did not parse is held; if it turns out to be the last, the file was still being written */
  private heldError: { line: number; message: string } | null = null;
  /**
   * adapters.md: a file whose first line is a lone `{` is one pretty-printed JSON document
   * (a .traj), held whole until the end; if it is not a trajectory its lines are read as
   * they would have been, one by one
   */
  private document: { text: string; line: number }[] | null = null;
  /**
   * adapters.md "Gemini CLI": the same document read as it streams, until it shows whether it
   * is a Gemini CLI session (a `sessionId` before the `messages` array); from then on it alone
   * reads the lines, and `document` holds nothing
   */
  private stream: JsonDocumentStream | null = null;
  /** the Gemini document's members before `messages`, handed to the adapter as its metadata record */
  private streamMeta: Record<string, unknown> = {};
  private streaming = false;
  /** adapters.md "SWE-agent": the same document read as a trajectory as it streams; once it is one, it alone reads the lines */
  private trajectory: SweAgentDocument | null = null;
  private lastLine = 0;

  constructor(
    private readonly feed: MessageFeed,
    private readonly options: PipelineOptions = {},
  ) {
    this.detected = options.from ?? null;
    if (this.detected !== null) this.adapter = this.makeAdapter(this.detected);
  }

  get format(): TranscriptFormat | null {
    return this.detected;
  }

  summary(): AdapterSummary {
    return { format: this.detected ?? 'wire', skipped: this.adapter?.skipped.toRecord() ?? {} };
  }

  /** One line (or array element) as text. */
  line(text: string, line: number): void {
    if (this.detected === 'wire') return this.feed.text(text, line);
    this.lastLine = line;
    if (this.streaming) return this.stream!.push(text, line);
    if (this.trajectoryReading()) return this.trajectory!.push(text, line);
    if (this.document !== null) {
      this.document.push({ text, line });
      this.stream?.push(text, line);
      this.trajectory?.push(text, line);
      if (this.trajectoryReading())
        this.document = null; // nothing of a trajectory is held whole
      else if (this.trajectory?.failed === true) this.trajectory = null;
      return;
    }
    if ((this.detected === null || this.detected === 'swe-agent' || this.detected === 'gemini') && text.trim() === '{') {
      this.document = [{ text, line }];
      if (this.detected !== 'swe-agent') this.startStream(text, line);
      if (this.detected !== 'gemini') this.startTrajectory(text, line);
      return;
    }
    if (isBlank(text)) {
      if (this.detected === null) this.feed.text(text, line); // the engine ignores it, as before
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      if (this.detected === null) {
        this.decide('wire');
        return this.feed.text(text, line);
      }
      this.releaseHeld();
      this.heldError = { line, message: notJsonMessage(text, e) };
      return;
    }
    this.parsedValue(value, line, text);
  }

  /** One line the caller parsed itself (the CLI's fast path: no lone-surrogate escape in it, unless `mayHoldLone`). */
  parsed(value: unknown, line: number, mayHoldLone = false): void {
    // inside a pretty-printed document a line is a piece of it, not a message (a line such as `"é"` parses alone)
    if (this.document !== null || this.streaming) return this.line(JSON.stringify(value), line);
    this.parsedValue(value, line, null, mayHoldLone);
  }

  /** One line that could not be decoded (not UTF-8). */
  error(line: number, message: string): void {
    this.releaseHeld();
    this.feed.error(line, message);
  }

  end(): void {
    if (this.streaming) this.endStream();
    else if (this.trajectoryReading()) {
      this.trajectory!.end(this.lastLine);
      this.trajectory = null;
    } else if (this.document !== null) this.endDocument(this.document);
    if (this.heldError !== null) {
      this.heldError = null;
      this.adapter?.truncatedLastLine();
    }
    for (const m of this.adapter?.end?.() ?? []) this.feed.value(m.value, m.line, false, true);
    this.feed.end?.();
  }

  /** adapters.md "Gemini CLI": the document is read member by member, its `messages` one at a time. */
  private startStream(text: string, line: number): void {
    this.streamMeta = {};
    this.stream = new JsonDocumentStream(
      {
        // only Gemini's own members come before its messages: another document (a SWE-agent
        // trajectory) is left to be held whole, as before, without its values being read twice
        key: (key) => {
          if (!this.streaming && key !== 'messages' && !GEMINI_MEMBERS.has(key)) this.stream = null;
        },
        member: (key, value, at) => {
          if (!this.streaming) {
            this.streamMeta[key] = value;
            return;
          }
          // members after the messages (`summary`, `directories`, `kind`): as the JSONL file's `$set` records
          if (value !== undefined) this.adapted({ $set: { [key]: value } }, at);
        },
        arrayStart: (_key, at) => {
          if (this.stream === null) return; // left as some other document
          const meta = this.streamMeta;
          if (this.detected !== 'gemini' && !(typeof meta.sessionId === 'string' && typeof meta.projectHash === 'string')) {
            this.stream = null;
            return;
          }
          this.streaming = true;
          this.document = null; // nothing of a Gemini session is held whole
          this.trajectory = null;
          if (this.detected === null) this.decide('gemini');
          this.adapted(meta, at);
        },
        element: (text, at) => {
          let value: unknown;
          try {
            value = JSON.parse(text);
          } catch (e) {
            this.feed.error(at, notJsonMessage(text, e));
            return;
          }
          this.adapted(value, at, mayHoldLoneSurrogate(text));
        },
        elementError: (at, message) => this.feed.error(at, message),
      },
      'messages',
      this.options.maxRecordChars === undefined ? {} : { maxValueChars: this.options.maxRecordChars },
    );
    this.stream.push(text, line);
  }

  private trajectoryReading(): boolean {
    return this.trajectory?.reading === true;
  }

  /** adapters.md "SWE-agent": a pretty-printed trajectory is read as it streams, never held whole. */
  private startTrajectory(text: string, line: number): void {
    const first = line;
    this.trajectory = new SweAgentDocument(
      {
        decided: () => {
          if (this.detected === null) this.decide('swe-agent');
          this.releaseHeld();
          const opened = (this.adapter as SweAgentAdapter).stream(first);
          if (opened === null) return null;
          this.feed.value(opened.header.value, opened.header.line, false, true);
          return opened.reader;
        },
        decidedMini: () => {
          if (this.detected === null) this.decide('swe-agent');
          this.releaseHeld();
          return (this.adapter as SweAgentAdapter).streamMini();
        },
        snapshots: (made) => this.trajectorySnapshots(made, first),
        error: (at, message) => this.feed.error(at, message),
        truncated: () => this.adapter?.truncatedLastLine(),
        loneSurrogate: () => this.adapter?.skipped.add(LONE_SURROGATE_RECORD),
      },
      this.options.maxRecordChars === undefined ? {} : { maxValueChars: this.options.maxRecordChars },
    );
    this.trajectory.push(text, line);
  }

  /** A trajectory's snapshots, numbered by its first line as the whole document's are; an adapter that throws is that part's input error. */
  private trajectorySnapshots(made: () => Iterable<Snapshot | SessionHeader>, line: number): void {
    let snaps: Iterator<Snapshot | SessionHeader> | undefined;
    for (;;) {
      let next: IteratorResult<Snapshot | SessionHeader>;
      try {
        snaps ??= made()[Symbol.iterator]();
        next = snaps.next();
      } catch (e) {
        return this.feed.error(line, recordFailedMessage(e));
      }
      if (next.done === true) return;
      this.feed.value(next.value, line, false, true);
    }
  }

  private endStream(): void {
    const stream = this.stream!;
    this.streaming = false;
    this.stream = null;
    stream.end(this.lastLine);
    const error = stream.error;
    if (error === null) return;
    // adapters.md: a session file cut short (still being written) ends in a partial record, counted
    if (error.message.startsWith('the document ends')) this.adapter?.truncatedLastLine();
    else this.feed.error(error.line, error.message);
  }

  /**
   * A record for the adapter (gemini, openhands): past the nesting limit it is an input error, not
   * walked. `mayHoldLone`: its text may hold a lone surrogate (a member of a streamed document,
   * whose text is not kept, may)
   */
  private adapted(value: unknown, line: number, mayHoldLone = true): void {
    const adapter = this.adapter;
    if (adapter === null) return;
    if (exceedsNesting(value, 1)) {
      this.feed.error(line, tooDeepMessage(`the record on line ${line}`));
      return;
    }
    // docs/security.md "Hostile transcripts": a record's lone surrogates read as U+FFFD, the record counted
    if (mayHoldLone) value = wellFormedRecord(value, () => adapter.skipped.add(LONE_SURROGATE_RECORD));
    // docs/security.md "Importers": a record the adapter refuses or fails on is that record's input error, never the end of the read
    let made: Iterable<AdaptedMessage>;
    try {
      made = adapter.record(value, line);
    } catch (e) {
      return this.feed.error(line, recordFailedMessage(e));
    }
    for (const m of made) this.feed.value(m.value, m.line, false, true);
  }

  private endDocument(held: { text: string; line: number }[]): void {
    this.document = null;
    this.stream = null;
    this.trajectory = null;
    let value: unknown = undefined;
    try {
      value = JSON.parse(held.map((h) => h.text).join('\n'));
    } catch {
      // not one document after all: each line as it would have been read
    }
    if (value !== undefined && (this.detected === 'swe-agent' || detectFormat(value) === 'swe-agent')) {
      return this.parsedValue(
        value,
        held[0]!.line,
        null,
        held.some((h) => mayHoldLoneSurrogate(h.text)),
      );
    }
    if (this.detected === 'gemini') {
      // forced (--from gemini): a pretty-printed Gemini session has its `sessionId` and a `messages` array
      this.feed.error(held[0]!.line, 'not a Gemini CLI session: the file is not one JSON object with a "messages" array');
      return;
    }
    if (this.detected === 'swe-agent') {
      // forced (--from swe-agent): the file had to be one trajectory document
      this.feed.error(
        held[0]!.line,
        'not a SWE-agent trajectory: the file is not one JSON object with a "trajectory", "history" or mini-swe-agent "messages" array',
      );
      return;
    }
    if (this.detected === null) this.decide('wire');
    for (const h of held) this.line(h.text, h.line);
  }

  /**
   * `mayHoldLone`: the record's text may hold a lone surrogate (default: told by `text`, scanned
   * only for a record an adapter reads; null: a line the caller parsed, which holds none)
   */
  private parsedValue(value: unknown, line: number, text: string | null, mayHoldLone?: boolean): void {
    if (this.detected === null) {
      const format = formatOf(value);
      if (format !== null) return this.decide(format);
    }
    if (this.detected === null || this.detected === 'openhands') {
      const error = inputErrorOf(value);
      if (error !== null) {
        this.releaseHeld();
        return this.feed.error(line, error);
      }
    }
    if (this.detected === null) this.decide(detectFormat(value));
    const adapter = this.adapter;
    if (adapter === null) {
      if (text !== null) this.feed.text(text, line);
      else this.feed.value(value, line, true);
      return;
    }
    this.releaseHeld();
    const lone = mayHoldLone ?? (text !== null && mayHoldLoneSurrogate(text));
    if (this.detected === 'gemini' || this.detected === 'openhands') return this.adapted(value, line, lone);
    // docs/security.md "Importers": a record is one input error, never the end of the read.
    // A line-per-record transcript's record is refused before anything walks it when it nests
    // too deep; a trajectory is one document whose adapter reads fixed, shallow fields only.
    if (this.detected !== 'swe-agent' && exceedsNesting(value, 1)) return this.feed.error(line, tooDeepMessage('the record'));
    if (lone) value = wellFormedRecord(value, () => adapter.skipped.add(LONE_SURROGATE_RECORD));
    let messages: Iterator<AdaptedMessage> | undefined;
    for (;;) {
      let next: IteratorResult<AdaptedMessage>;
      try {
        messages ??= adapter.record(value, line)[Symbol.iterator]();
        next = messages.next();
      } catch (e) {
        return this.feed.error(line, recordFailedMessage(e));
      }
      if (next.done === true) return;
      // untrusted text: the engine checks every string for lone surrogates (noSurrogateEscape false)
      this.feed.value(next.value.value, next.value.line, false, true);
    }
  }

  private decide(format: TranscriptFormat): void {
    this.detected = format;
    this.adapter = this.makeAdapter(format);
  }

  private makeAdapter(format: TranscriptFormat): Adapter | null {
    switch (format) {
      case 'wire':
        return null;
      case 'claude-code':
        return new ClaudeCodeAdapter(this.options.fallbackSessionId, this.options.audit ?? true, this.options.spans ?? 'all');
      case 'swe-agent':
        return new SweAgentAdapter(this.options.fallbackSessionId);
      case 'codex':
        return new CodexAdapter(this.options.fallbackSessionId);
      case 'gemini':
        return new GeminiAdapter(this.options.fallbackSessionId);
      case 'openhands':
        return new OpenHandsAdapter(this.options.fallbackSessionId);
    }
  }

  private releaseHeld(): void {
    if (this.heldError === null) return;
    this.feed.error(this.heldError.line, this.heldError.message);
    this.heldError = null;
  }
}

/** The members of a Gemini CLI `ConversationRecord` (chatRecordingTypes.ts), the only ones its `messages` may follow. */
const GEMINI_MEMBERS = new Set(['sessionId', 'projectHash', 'startTime', 'lastUpdated', 'summary', 'memoryScratchpad', 'directories', 'kind']);

/** Errors whose message is already the whole input error (where, why and the limit). */
const WORDED_ERRORS = new Set(['TooDeepError', 'TooManyPartsError']);

/** An adapter that threw on one record (a stringified field nested too deep, a bug): that record's input error. */
function recordFailedMessage(e: unknown): string {
  const detail = e instanceof Error ? e.message : String(e);
  return e instanceof Error && WORDED_ERRORS.has(e.name)
    ? detail
    : `the record could not be read: ${detail.length > 160 ? detail.slice(0, 160) + '…' : detail}`;
}

function isBlank(text: string): boolean {
  return text.trim() === '';
}
