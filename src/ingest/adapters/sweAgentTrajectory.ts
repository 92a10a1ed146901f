// A SWE-agent trajectory read piece by piece (docs/adapters.md "SWE-agent"; docs/security.md
// "Bounded memory"): its steps and its history messages are handed in one at a time, in the
// file's order, and the snapshots come out as soon as they are known, so a pretty-printed
// `.traj` is never held whole. The rules are those of the whole document: when a step says
// what the model saw (`query`), one snapshot per such step; when none does and there is a
// `history`, one per model call of the main agent (sweAgentHistory.ts). Which of the two is
// known only when a step with messages is read or the trajectory ends; until then the steps
// are kept as the history rule needs them (their response and observation), and history
// messages read before the trajectory (not SWE-agent's order) are kept whole.
import type { Snapshot, Span } from '../../core/wire.ts';
import type { SkippedRecords } from './skipped.ts';
import { isObject } from './json.ts';
import { HistoryCalls } from './sweAgentHistory.ts';
import { messagesToSpans } from './sweAgentSpans.ts';

/** What the history rule reads of a step: its response and observation (a step that is not an object reads as {}). */
type HeldStep = { response?: unknown; observation?: unknown };

export class TrajectoryReader {
  private mode: 'undecided' | 'steps' | 'history' = 'undecided';
  private heldSteps: HeldStep[] = [];
  private heldHistory: unknown[] | null = null;
  private trajectoryDone = false;
  private history: HistoryCalls | null = null;
  /** a `history` member was begun; a second one (a key written twice, which SWE-agent never does) is counted, not read */
  private historyBegun = false;
  private inExtraHistory = false;
  // step mode
  private previous = new Map<string, string>();
  private turn = 0;

  constructor(
    private readonly sessionId: string,
    private readonly skipped: SkippedRecords,
  ) {}

  /** One element of `trajectory`, in order. */
  *step(step: unknown): Generator<Snapshot> {
    const messages = stepMessages(step);
    if (this.mode === 'undecided' && messages !== null) {
      // a step says what was seen: the steps rule, for the steps before it too (none said)
      this.mode = 'steps';
      this.heldHistory = null;
      for (let i = 0; i < this.heldSteps.length; i++) this.skipped.add('step without query');
      this.heldSteps = [];
    }
    if (this.mode === 'steps') {
      const snap = this.stepSnapshot(messages);
      if (snap !== null) yield snap;
      return;
    }
    const raw = isObject(step) ? step : {};
    this.heldSteps.push({ response: raw.response, observation: raw.observation });
  }

  /** The trajectory array ended. */
  trajectoryEnd(): void {
    this.trajectoryDone = true;
  }

  /** The history array begins. */
  historyStart(): void {
    // adapters.md: the first `history` is the one read. A second one restarted the calls' turns
    // at 1 (every later one an input error) or, held before the trajectory, replaced the first.
    if (this.historyBegun) {
      this.inExtraHistory = true;
      this.skipped.add('history (a second one, not read)');
      return;
    }
    this.historyBegun = true;
    if (this.mode === 'steps') return;
    if (this.trajectoryDone) {
      // no step said what was seen, and none is to come: the history rule, message by message
      this.mode = 'history';
      this.history = new HistoryCalls(this.sessionId, this.skipped);
    } else this.heldHistory = [];
  }

  /** One element of `history`, in order. */
  *historyMessage(m: unknown): Generator<Snapshot> {
    if (this.inExtraHistory) return;
    if (this.history !== null) yield* this.history.message(m);
    else this.heldHistory?.push(m);
  }

  /** The history array ended. */
  *historyEnd(): Generator<Snapshot> {
    if (this.inExtraHistory) {
      this.inExtraHistory = false;
      return;
    }
    if (this.history === null) return;
    yield* this.history.steps(this.heldSteps);
    this.heldSteps = [];
    this.history = null;
  }

  /** The document ended: what the rules still owe. */
  *end(): Generator<Snapshot> {
    if (this.mode === 'steps' || this.mode === 'history') return;
    if (this.heldHistory !== null) {
      // a history read before the trajectory, and no step said what was seen
      const calls = new HistoryCalls(this.sessionId, this.skipped);
      const history = this.heldHistory;
      this.heldHistory = null;
      for (const m of history) yield* calls.message(m);
      yield* calls.steps(this.heldSteps);
    } else {
      // no history: the steps rule, and none of the steps said what was seen
      for (let i = 0; i < this.heldSteps.length; i++) this.skipped.add('step without query');
    }
    this.heldSteps = [];
  }

  private stepSnapshot(messages: unknown[] | null): Snapshot | null {
    if (messages === null) {
      this.skipped.add('step without query');
      return null;
    }
    this.turn++;
    const previous = this.previous;
    const spans = toSpans(messages);
    const modified = spans.filter((s) => previous.has(s.span_id) && previous.get(s.span_id) !== s.text).map((s) => s.span_id);
    const snap: Snapshot = { type: 'snapshot', session_id: this.sessionId, turn: this.turn, spans };
    // adapters.md: a history processor's replacement is a rewrite the agent did not score
    if (modified.length > 0) snap.rewrite = { spans_modified: modified.length, scores_invalidated: modified.length, modified_span_ids: modified };
    // contract §8.3: text a history processor elided is one compaction event, at the step that first shows it
    const elided = modified.filter((id) => spans.find((x) => x.span_id === id)?.elided === true);
    if (elided.length > 0) snap.compaction = { kind: 'elision', trigger: 'history processor', pre_tokens: null, replaced: elided, summary: [], items: [] };
    const live = new Set(spans.map((s) => s.span_id));
    const pruned = [...previous.keys()].filter((id) => !live.has(id));
    if (pruned.length > 0) snap.pruned = pruned;
    this.previous = new Map(spans.map((s) => [s.span_id, s.text]));
    return snap;
  }
}

/** adapters.md: SWE-agent 1.1 calls the messages a step saw `query`; older files `messages`. */
export function stepMessages(step: unknown): unknown[] | null {
  if (!isObject(step)) return null;
  return Array.isArray(step.query) ? step.query : Array.isArray(step.messages) ? step.messages : null;
}

/** adapters.md: message index → span id (`m<i>`), stable because history processors edit in place. */
function toSpans(messages: unknown[]): Span[] {
  return messagesToSpans(messages.map((m, i) => ({ message: m, id: `m${i}` })));
}
