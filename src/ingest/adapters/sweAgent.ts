// SWE-agent trajectories (`.traj`: one JSON object with a `trajectory` array) turned into
// contract §2 messages: one snapshot per step, from the messages the model saw at that
// step; when the steps do not carry them (most published files), one snapshot per model
// call of the main agent, from its `history` (sweAgentHistory.ts). The mapping rules are
// docs/adapters.md "SWE-agent". A document on one line is handed in parsed (record); a
// pretty-printed one is read as it streams (sweAgentDocument.ts), through the same
// TrajectoryReader, so both give the same messages.
import type { SessionHeader } from '../../core/wire.ts';
import type { AdaptedMessage } from './claudeCode.ts';
import { isMiniSweAgentDocument, MiniSweAgentCalls } from './miniSweAgent.ts';
import { SkippedRecords } from './skipped.ts';
import { isHistoryDocument } from './sweAgentHistory.ts';
import { isObject } from './json.ts';
import { TrajectoryReader } from './sweAgentTrajectory.ts';

export class SweAgentAdapter {
  readonly skipped = new SkippedRecords();
  private done = false;

  /** the session id when the caller names none (the dashboard's Worker): the agent's name */
  constructor(private readonly namedSessionId?: string) {}

  private get fallbackSessionId(): string {
    return this.namedSessionId ?? 'swe-agent';
  }

  /** The whole trajectory (a .traj file is one JSON document); its messages as they are read (one history snapshot held at a time). */
  *record(value: unknown, line: number): Generator<AdaptedMessage> {
    if (this.done) {
      this.skipped.add('second document');
      return;
    }
    this.done = true;
    // adapters.md "mini-swe-agent": its own document, no trajectory of steps
    if (isObject(value) && !Array.isArray(value.trajectory) && isMiniSweAgentDocument(value)) {
      const calls = this.mini();
      for (const m of value.messages as unknown[]) yield* withLine(calls.message(m), line);
      yield* withLine(calls.end(), line);
      return;
    }
    if (!isObject(value) || !(Array.isArray(value.trajectory) || isHistoryDocument(value))) {
      this.skipped.add('not a trajectory');
      return;
    }
    const { header, reader } = this.open(line);
    yield header;
    const at = (snaps: Iterable<AdaptedMessage['value']>): Generator<AdaptedMessage> => withLine(snaps, line);
    if (Array.isArray(value.trajectory)) for (const step of value.trajectory as unknown[]) yield* at(reader.step(step));
    reader.trajectoryEnd();
    if (Array.isArray(value.history)) {
      reader.historyStart();
      for (const m of value.history as unknown[]) yield* at(reader.historyMessage(m));
      yield* at(reader.historyEnd());
    }
    yield* at(reader.end());
  }

  /**
   * A trajectory read as it streams: its session header (at the document's first line) and the
   * reader its steps and history messages go to; null when a document was read already.
   */
  stream(line: number): { header: AdaptedMessage; reader: TrajectoryReader } | null {
    if (this.done) {
      this.skipped.add('second document');
      return null;
    }
    this.done = true;
    return this.open(line);
  }

  /** A mini-swe-agent document read as it streams: the reader its messages go to; null when a document was read already. */
  streamMini(): MiniSweAgentCalls | null {
    if (this.done) {
      this.skipped.add('second document');
      return null;
    }
    this.done = true;
    return this.mini();
  }

  private mini(): MiniSweAgentCalls {
    return new MiniSweAgentCalls(this.namedSessionId ?? 'mini-swe-agent', this.skipped);
  }

  truncatedLastLine(): void {
    this.skipped.add('truncated last line');
  }

  private open(line: number): { header: AdaptedMessage; reader: TrajectoryReader } {
    const sid = this.fallbackSessionId;
    const header: SessionHeader = { type: 'session', session_id: sid, title: `SWE-agent trajectory ${sid}`, source: 'swe-agent' };
    return { header: { value: header, line }, reader: new TrajectoryReader(sid, this.skipped) };
  }
}

/** Snapshots as adapted messages, all numbered by the document's first line (as the whole document's are). */
export function* withLine(snaps: Iterable<AdaptedMessage['value']>, line: number): Generator<AdaptedMessage> {
  for (const value of snaps) yield { value, line };
}
