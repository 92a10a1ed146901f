// SWE-agent trajectories (`.traj`: one JSON object with a `trajectory` array) turned into
// contract §2 messages: one snapshot per step, from the messages the model saw at that
// step; when the steps do not carry them (most published files), one snapshot per model
// call of the main agent, from its `history` (sweAgentHistory.ts). The mapping rules are
// docs/adapters.md "SWE-agent".
import type { SessionHeader, Snapshot, Span } from '../../core/wire.ts';
import type { AdaptedMessage } from './claudeCode.ts';
import { SkippedRecords } from './skipped.ts';
import { historyTurns, isHistoryDocument } from './sweAgentHistory.ts';
import { isObject } from './json.ts';
import { messagesToSpans } from './sweAgentSpans.ts';

export class SweAgentAdapter {
  readonly skipped = new SkippedRecords();
  private done = false;

  constructor(private readonly fallbackSessionId = 'swe-agent') {}

  /** The whole trajectory (a .traj file is one JSON document); its messages as they are read (one history snapshot held at a time). */
  *record(value: unknown, line: number): Generator<AdaptedMessage> {
    if (this.done) {
      this.skipped.add('second document');
      return;
    }
    this.done = true;
    if (!isObject(value) || !(Array.isArray(value.trajectory) || isHistoryDocument(value))) {
      this.skipped.add('not a trajectory');
      return;
    }
    const sid = this.fallbackSessionId;
    const header: SessionHeader = { type: 'session', session_id: sid, title: `SWE-agent trajectory ${sid}`, source: 'swe-agent' };
    yield { value: header, line };
    const out: AdaptedMessage[] = [];
    const steps: unknown[] = Array.isArray(value.trajectory) ? value.trajectory : [];
    if (Array.isArray(value.history) && !steps.some((step) => stepMessages(step) !== null)) {
      // adapters.md: no step says what the model saw; the history does
      for (const snap of historyTurns(value.history, steps, sid, this.skipped)) yield { value: snap, line };
      return;
    }
    let previous = new Map<string, string>();
    let turn = 0;
    steps.forEach((step: unknown) => {
      const messages = stepMessages(step);
      if (messages === null) {
        this.skipped.add('step without query');
        return;
      }
      turn++;
      const spans = toSpans(messages);
      const modified = spans.filter((s) => previous.has(s.span_id) && previous.get(s.span_id) !== s.text).map((s) => s.span_id);
      const snap: Snapshot = { type: 'snapshot', session_id: sid, turn, spans };
      // adapters.md: a history processor's replacement is a rewrite the agent did not score
      if (modified.length > 0) snap.rewrite = { spans_modified: modified.length, scores_invalidated: modified.length, modified_span_ids: modified };
      // contract §8.3: text a history processor elided is one compaction event, at the step that first shows it
      const elided = modified.filter((id) => spans.find((x) => x.span_id === id)?.elided === true);
      if (elided.length > 0) snap.compaction = { kind: 'elision', trigger: 'history processor', pre_tokens: null, replaced: elided, summary: [], items: [] };
      const live = new Set(spans.map((s) => s.span_id));
      const pruned = [...previous.keys()].filter((id) => !live.has(id));
      if (pruned.length > 0) snap.pruned = pruned;
      previous = new Map(spans.map((s) => [s.span_id, s.text]));
      out.push({ value: snap, line });
    });
    yield* out;
  }

  truncatedLastLine(): void {
    this.skipped.add('truncated last line');
  }
}

/** adapters.md: SWE-agent 1.1 calls the messages a step saw `query`; older files `messages`. */
function stepMessages(step: unknown): unknown[] | null {
  if (!isObject(step)) return null;
  return Array.isArray(step.query) ? step.query : Array.isArray(step.messages) ? step.messages : null;
}

/** adapters.md: message index → span id (`m<i>`), stable because history processors edit in place. */
function toSpans(messages: unknown[]): Span[] {
  return messagesToSpans(messages.map((m, i) => ({ message: m, id: `m${i}` })));
}
