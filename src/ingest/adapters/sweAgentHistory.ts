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
 * One snapshot per model call of the main agent. `steps` (the trajectory) only adds the calls
 * the history lacks: some files end with a step (the final submit) whose messages were never
 * appended to the history; that call saw the whole history.
 */
export function* historyTurns(history: unknown[], steps: unknown[], sessionId: string, skipped: SkippedRecords): Generator<Snapshot> {
  const main = mainAgent(history);
  // docs/security.md "Linear time": each message is made a span once; a call's snapshot
  // holds copies of the spans before it (the stages after the adapter write scores into
  // them), made as the snapshot is read, so one snapshot is held at a time, not n²/2 spans
  const seen: Span[] = [];
  const maker = new SpanMaker();
  let calls = 0;
  const call = (): Snapshot => ({ type: 'snapshot', session_id: sessionId, turn: ++calls, spans: seen.map((s) => ({ ...s })) });
  for (let i = 0; i < history.length; i++) {
    const m = history[i];
    if (!isObject(m)) {
      skipped.add('history entry not an object');
      continue;
    }
    const agent = typeof m.agent === 'string' ? m.agent : null;
    if (agent !== null && main !== null && agent !== main) {
      // adapters.md: another agent's messages (a reviewer, a sub-agent) are not in the main agent's context
      skipped.add(`history message of agent ${agent}`);
      continue;
    }
    // adapters.md: every assistant message of the main agent is a model call, except a demonstration's
    if (m.role === 'assistant' && m.is_demo !== true && m.message_type !== 'demonstration') yield call();
    // adapters.md: history index → span id (`h<i>`): the history is only appended to
    seen.push(maker.span(m, `h${i}`));
  }
  // adapters.md: steps beyond the history's calls; each saw the history and the steps before it
  for (let s = calls; s < steps.length; s++) {
    yield call();
    const raw = steps[s];
    const step = isObject(raw) ? raw : {};
    seen.push(maker.span({ role: 'assistant', content: step.response, message_type: 'action' }, `s${s}.response`));
    seen.push(maker.span({ role: 'user', content: step.observation, message_type: 'observation' }, `s${s}.observation`));
  }
}

/** adapters.md: the main agent is the one named by the first history message (its system prompt, written at setup). */
function mainAgent(history: unknown[]): string | null {
  for (const m of history) if (isObject(m) && typeof m.agent === 'string') return m.agent;
  return null;
}
