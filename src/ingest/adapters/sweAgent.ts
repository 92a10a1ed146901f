// SWE-agent trajectories (`.traj`: one JSON object with a `trajectory` array) turned into
// contract §2 messages: one snapshot per step, from the messages the model saw at that
// step. The mapping rules are docs/adapters.md "SWE-agent".
import type { SessionHeader, Snapshot, Span } from '../../core/wire.ts';
import type { AdaptedMessage } from './claudeCode.ts';
import { SkippedRecords } from './skipped.ts';

type JsonObject = Record<string, unknown>;

/** adapters.md: the texts SWE-agent's history processors put in place of what they elide. */
const ELIDED = /^(Old environment output: \(\d+ lines omitted\)|Outdated window with \d+ lines omitted)/;

export class SweAgentAdapter {
  readonly skipped = new SkippedRecords();
  private done = false;

  constructor(private readonly fallbackSessionId = 'swe-agent') {}

  /** The whole trajectory (a .traj file is one JSON document). */
  record(value: unknown, line: number): AdaptedMessage[] {
    if (this.done) {
      this.skipped.add('second document');
      return [];
    }
    this.done = true;
    if (!isObject(value) || !Array.isArray(value.trajectory)) {
      this.skipped.add('not a trajectory');
      return [];
    }
    const sid = this.fallbackSessionId;
    const header: SessionHeader = { type: 'session', session_id: sid, title: `SWE-agent trajectory ${sid}`, source: 'swe-agent' };
    const out: AdaptedMessage[] = [{ value: header, line }];
    let previous = new Map<string, string>();
    let turn = 0;
    value.trajectory.forEach((step: unknown) => {
      // adapters.md: SWE-agent 1.1 calls the messages a step saw `query`; older files `messages`
      const messages = isObject(step) ? (Array.isArray(step.query) ? step.query : Array.isArray(step.messages) ? step.messages : null) : null;
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
      const live = new Set(spans.map((s) => s.span_id));
      const pruned = [...previous.keys()].filter((id) => !live.has(id));
      if (pruned.length > 0) snap.pruned = pruned;
      previous = new Map(spans.map((s) => [s.span_id, s.text]));
      out.push({ value: snap, line });
    });
    return out;
  }

  truncatedLastLine(): void {
    this.skipped.add('truncated last line');
  }
}

function toSpans(messages: unknown[]): Span[] {
  let instanceSeen = false;
  return messages.map((m, i) => {
    const msg = isObject(m) ? m : {};
    const role = typeof msg.role === 'string' ? msg.role : 'unknown';
    const type = typeof msg.message_type === 'string' ? msg.message_type : null;
    const text = contentText(msg.content);
    // adapters.md: message index → span id, stable because history processors edit in place
    const instance = role === 'user' && type !== 'demonstration' && !instanceSeen;
    const span: Span = { span_id: `m${i}`, text, score: null, text_sha256: null, role: instance ? 'user' : spanRole(role, type) };
    if (type !== null) span.kind = type;
    if (role === 'system' || instance) span.pinned = true; // system and instance prompts
    if (instance) instanceSeen = true;
    if (ELIDED.test(text)) span.elided = true;
    return span;
  });
}

/** After the instance prompt (the task, role "user"), user-role messages are observations. */
function spanRole(role: string, type: string | null): string {
  if (type === 'demonstration') return 'demonstration';
  if (type === 'observation' || role === 'tool' || role === 'user') return 'tool';
  return role;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isObject(part) ? (typeof part.text === 'string' ? part.text : `[${String(part.type)}]`) : '')).join('\n');
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
