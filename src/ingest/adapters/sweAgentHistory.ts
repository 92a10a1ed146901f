// SWE-agent trajectories as most published files are written (docs/adapters.md "SWE-agent",
// history): the steps carry no `query`, so what each model call saw is rebuilt from the
// top-level `history`, the list SWE-agent's `_append_history` appends to
// (sweagent/agent/agents.py). A call is an assistant message of the main agent; it saw that
// agent's messages before it, in order. History processors apply only at query time and are
// not saved, so the texts are as appended, before any elision.
import type { Snapshot, Span } from '../../core/wire.ts';
import type { SkippedRecords } from './skipped.ts';
import { isObject } from './json.ts';
import { SpanMaker } from './sweAgentSpans.ts';

/** A document whose `history` holds SWE-agent messages (role and agent), with or without a `trajectory`. */
export function isHistoryDocument(value: Record<string, unknown>): boolean {
  return Array.isArray(value.history) && value.history.some((m) => isObject(m) && typeof m.role === 'string' && typeof m.agent === 'string');
}

/**
 * One snapshot per model call of the main agent, the history handed in message by message
 * (sweAgentTrajectory.ts reads a pretty-printed file so). `steps` (the trajectory) only adds
 * the calls the history lacks: some files end with a step (the final submit) whose messages
 * were never appended to the history; that call saw the whole history.
 */
export class HistoryCalls {
  // docs/security.md "Linear time": each message is made a span once; a call's snapshot
  // holds copies of the spans before it (the stages after the adapter write scores into
  // them), made as the snapshot is read, so one snapshot is held at a time, not n²/2 spans
  private readonly seen: Span[] = [];
  private readonly maker = new SpanMaker();
  private calls = 0;
  private index = 0;
  /** adapters.md: the main agent is the one named by the first history message that names one (its system prompt, written at setup) */
  private main: string | null = null;

  constructor(
    private readonly sessionId: string,
    private readonly skipped: SkippedRecords,
  ) {}

  /** The next history message. */
  *message(m: unknown): Generator<Snapshot> {
    const i = this.index++;
    if (!isObject(m)) {
      this.skipped.add('history entry not an object');
      return;
    }
    const agent = typeof m.agent === 'string' ? m.agent : null;
    this.main ??= agent;
    if (agent !== null && agent !== this.main) {
      // adapters.md: another agent's messages (a reviewer, a sub-agent) are not in the main agent's context
      this.skipped.add(`history message of agent ${agent}`);
      return;
    }
    // adapters.md: every assistant message of the main agent is a model call, except a demonstration's
    if (m.role === 'assistant' && m.is_demo !== true && m.message_type !== 'demonstration') yield this.call();
    // adapters.md: history index → span id (`h<i>`): the history is only appended to
    this.seen.push(this.maker.span(m, `h${i}`));
  }

  /** The history ended: the steps beyond its calls; each saw the history and the steps before it. */
  *steps(steps: readonly unknown[]): Generator<Snapshot> {
    for (let s = this.calls; s < steps.length; s++) {
      yield this.call();
      const raw = steps[s];
      const step = isObject(raw) ? raw : {};
      this.seen.push(this.maker.span({ role: 'assistant', content: step.response, message_type: 'action' }, `s${s}.response`));
      this.seen.push(this.maker.span({ role: 'user', content: step.observation, message_type: 'observation' }, `s${s}.observation`));
    }
  }

  private call(): Snapshot {
    return { type: 'snapshot', session_id: this.sessionId, turn: ++this.calls, spans: this.seen.map((s) => ({ ...s })) };
  }
}
