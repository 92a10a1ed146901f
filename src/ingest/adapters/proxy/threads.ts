// docs/proxy.md "Sessions": which conversation a captured request continues. An agent sends
// many conversations through one proxy, and one agent session many (Claude Code's
// sub-agents and side calls carry the parent's session id): each is a thread, one relay
// session. A request continues the thread
//   1. whose previous request's messages it extends (the same messages, then more), else
//   2. that has its system prompt and first user message (a rewind, an edit, a tool result
//      cleared in place: the same conversation, some of it gone), else
//   3. that has its system prompt, when its first user message is a compaction summary
//      (summaries.ts): the thread was compacted, else
// it starts a new thread. Threads are looked for among the agent session's own (by the id
// the request carries), or among those without one.
import type { Sha256Hex } from '../../../core/analyse.ts';
import { CompactionAuditor } from '../../../core/compactionAudit.ts';
import type { CallMessage, CapturedRequest } from './requests.ts';

export interface Thread {
  sessionId: string;
  agentKey: string | null;
  systemKey: string;
  firstUserKey: string;
  turn: number;
  headerSent: boolean;
  /** the previous request's messages, one key each */
  messageKeys: string[];
  /** the previous snapshot's span ids, in order */
  previousSpans: string[];
  /** span ids seen since the last compaction: their audit items are in */
  seen: Set<string>;
  /** the first user prompt's spans (pinned, contract §8.1 canaries) */
  task: Set<string> | null;
  /** a summary span → the spans it replaced */
  lineage: Map<string, string[]>;
  /** tool call id → its label and tool, for the results that answer it */
  calls: Map<string, { label: string; tool: string | null }>;
  auditor: CompactionAuditor;
  /** the last todo list's pending items (contract §8.4 todo), and where it came from */
  todos: { items: string[]; turn: number; spanId: string } | null;
  /** the tokens of the agent's own summarising call, the compaction's pre_tokens */
  preTokens: number | null;
  /** input errors waiting for this thread's next snapshot */
  inputErrors: string[];
}

/** Threads kept; the least recently used past this are forgotten (docs/proxy.md). */
export const KEPT_THREADS = 1000;

export type Continuation = 'extends' | 'same' | 'compaction' | 'new';

export class ThreadTable {
  private readonly threads = new Map<string, Thread>();
  /** each agent session's threads (key '' for those without one), least recently used first */
  private readonly byAgent = new Map<string, Set<Thread>>();
  /** the first thread of an agent session gets its id; later ones are numbered under it */
  private readonly sessionIds = new Set<string>();
  /** sessions of threads forgotten since the last takeForgotten() */
  private forgotten: string[] = [];

  constructor(private readonly sha256: Sha256Hex) {}

  get size(): number {
    return this.threads.size;
  }

  /** The thread a request continues (made when it starts one), how, and its messages' keys. */
  place(request: CapturedRequest, agentKey: string | null, summaryFirst: boolean): { thread: Thread; how: Continuation; keys: string[] } {
    const keys = request.messages.map((m) => this.messageKey(m));
    const systemKey = this.sha256([...request.system, ...request.tools].map((p) => `${p.kind}\u0000${p.text}`).join('\u0001')).slice(0, 16);
    const firstUser = request.messages.find((m) => m.role === 'user');
    const firstUserKey = firstUser === undefined ? '' : this.messageKey(firstUser);
    const candidates = this.candidates(agentKey);
    let found = candidates.find((t) => t.messageKeys.length > 0 && extendsList(keys, t.messageKeys));
    let how: Continuation = 'extends';
    if (found === undefined) {
      how = 'same';
      found = candidates.find((t) => t.systemKey === systemKey && t.firstUserKey === firstUserKey);
    }
    if (found === undefined && summaryFirst) {
      how = 'compaction';
      found = candidates.find((t) => t.systemKey === systemKey);
    }
    if (found === undefined) {
      how = 'new';
      found = this.make(agentKey, systemKey, firstUserKey);
    }
    found.systemKey = systemKey;
    found.firstUserKey = firstUserKey;
    this.touch(found);
    return { thread: found, how, keys };
  }

  /** The sessions whose threads were forgotten (least recently used) since the last call: their state elsewhere can go too. */
  takeForgotten(): string[] {
    const out = this.forgotten;
    this.forgotten = [];
    return out;
  }

  /** The agent session's most recent thread (for an input error of a call that could not be read). */
  latest(agentKey: string): Thread | null {
    return this.candidates(agentKey)[0] ?? null;
  }

  /** A thread the request extends, without placing it (the agent's own summarising call). */
  extended(request: CapturedRequest, agentKey: string | null): Thread | null {
    const keys = request.messages.map((m) => this.messageKey(m));
    return this.candidates(agentKey).find((t) => t.messageKeys.length > 0 && extendsList(keys, t.messageKeys)) ?? null;
  }

  /** the agent session's threads, most recently used first */
  private candidates(agentKey: string | null): Thread[] {
    return [...(this.byAgent.get(agentKey ?? '') ?? [])].reverse();
  }

  private messageKey(m: CallMessage): string {
    return this.sha256(`${m.role}\u0001${m.parts.map((p) => `${p.kind}\u0000${p.text}`).join('\u0001')}`).slice(0, 24);
  }

  private make(agentKey: string | null, systemKey: string, firstUserKey: string): Thread {
    const fingerprint = this.sha256(`${systemKey}\u0000${firstUserKey}`).slice(0, 16);
    let sessionId = agentKey === null ? `proxy-${fingerprint}` : agentKey;
    if (this.sessionIds.has(sessionId)) sessionId = `${agentKey ?? 'proxy'}:${fingerprint.slice(0, 8)}`;
    for (let n = 2; this.sessionIds.has(sessionId); n++) sessionId = `${agentKey ?? 'proxy'}:${fingerprint.slice(0, 8)}~${n}`;
    this.sessionIds.add(sessionId);
    const thread: Thread = {
      sessionId,
      agentKey,
      systemKey,
      firstUserKey,
      turn: 0,
      headerSent: false,
      messageKeys: [],
      previousSpans: [],
      seen: new Set(),
      task: null,
      lineage: new Map(),
      calls: new Map(),
      auditor: new CompactionAuditor(),
      todos: null,
      preTokens: null,
      inputErrors: [],
    };
    this.threads.set(sessionId, thread);
    this.touch(thread);
    if (this.threads.size > KEPT_THREADS) {
      const oldest = this.threads.values().next().value!;
      this.threads.delete(oldest.sessionId);
      const own = this.byAgent.get(oldest.agentKey ?? '')!;
      own.delete(oldest);
      if (own.size === 0) this.byAgent.delete(oldest.agentKey ?? '');
      this.forgotten.push(oldest.sessionId);
    }
    return thread;
  }

  private touch(t: Thread): void {
    // least recently used first: a Map and a Set keep insertion order
    this.threads.delete(t.sessionId);
    this.threads.set(t.sessionId, t);
    const key = t.agentKey ?? '';
    let own = this.byAgent.get(key);
    if (own === undefined) this.byAgent.set(key, (own = new Set()));
    own.delete(t);
    own.add(t);
  }
}

/** `longer` starts with every key of `prefix` (a request that adds to the previous one). */
function extendsList(longer: readonly string[], prefix: readonly string[]): boolean {
  if (longer.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (longer[i] !== prefix[i]) return false;
  return true;
}
