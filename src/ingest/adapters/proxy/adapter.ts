// `context-health proxy` (docs/proxy.md): each model API request the proxy forwarded, with
// what its response said, turned into contract §2 messages: a session header for a new
// conversation, then one snapshot per call, spans from the system prompt, the tool
// definitions and the messages exactly as sent. Pure, like the other adapters: the proxy
// (src/proxy/) captures the request and the response's usage and hands them here; what
// comes out takes the watch path (reference scorer, harness client) into the relay.
import type { Sha256Hex } from '../../../core/analyse.ts';
import { notFollowedField } from '../../../core/compactionAudit.ts';
import type { SessionHeader, Snapshot, Span } from '../../../core/wire.ts';
import type { AdaptedMessage } from '../claudeCode.ts';
import { CLEARED_TOOL_RESULT } from '../claudeCode.ts';
import { WRAPPER_PREFIXES } from '../claudeCodePrompts.ts';
import { injectedLabel, typedText } from '../injectedText.ts';
import { SkippedRecords } from '../skipped.ts';
import { firstWords, toolCallLabel } from '../spanLabels.ts';
import { estimateTokens, fitTokens } from '../tokens.ts';
import type { CallMessage, CallPart, CapturedRequest } from './requests.ts';
import { asksForSummary, summaryMessage } from './summaries.ts';
import { ThreadTable, type Continuation, type Thread } from './threads.ts';

export interface CallOutcome {
  /** the prompt tokens the response reported (usage.ts); null: estimated from the texts */
  inputTokens: number | null;
  /** the model the response names, else the request's */
  model: string | null;
  responseId: string | null;
  /** when the response ended (ISO 8601) */
  ts: string;
  /** what went wrong capturing this call (a limit passed), carried by its snapshot */
  inputErrors: string[];
}

/** contract §8.4 `file`: the tools whose `file_path` / `notebook_path` input names a file */
const FILE_TOOLS: ReadonlySet<string> = new Set(['Read', 'Edit', 'MultiEdit', 'Write', 'NotebookEdit']);
/** contract §8.4 `command`: the tools that run a shell command (Claude Code, Codex CLI) */
const SHELL_TOOLS: ReadonlySet<string> = new Set(['Bash', 'shell', 'local_shell', 'exec_command']);

export class ProxyAdapter {
  readonly skipped = new SkippedRecords();
  private readonly threads: ThreadTable;

  constructor(private readonly sha256: Sha256Hex) {
    this.threads = new ThreadTable(sha256);
  }

  /**
   * One forwarded call, answered: its header (for a new conversation) and snapshot. The
   * agent's own summarising call is no turn: its size becomes the compaction's pre_tokens.
   */
  call(request: CapturedRequest, agentKey: string | null, outcome: CallOutcome): AdaptedMessage[] {
    if (asksForSummary(request.messages)) {
      const parent = this.threads.extended(request, agentKey);
      if (parent !== null) parent.preTokens = outcome.inputTokens ?? estimateAll(request);
      this.skipped.add('the agent asking for a compaction summary');
      return [];
    }
    const summaryAt = summaryMessage(request.messages);
    const { thread, how, keys } = this.threads.place(request, agentKey, summaryAt >= 0);
    thread.turn++;
    const out: AdaptedMessage[] = [];
    if (!thread.headerSent) {
      thread.headerSent = true;
      out.push({ value: this.header(thread, request, outcome), line: 0 });
    }
    out.push({ value: this.snapshot(thread, request, outcome, how, summaryAt), line: 0 });
    thread.messageKeys = keys;
    return out;
  }

  /** Sessions this adapter will make no more turns of (their threads were forgotten). */
  takeForgotten(): string[] {
    return this.threads.takeForgotten();
  }

  /** A call that could not be read (over a limit, not decodable): an input error of its session's next snapshot. */
  inputError(agentKey: string | null, message: string): boolean {
    const thread = agentKey === null ? null : this.threads.latest(agentKey);
    if (thread === null) return false;
    thread.inputErrors.push(message);
    return true;
  }

  private header(t: Thread, request: CapturedRequest, outcome: CallOutcome): SessionHeader {
    const prompt = request.messages.find((m) => m.role === 'user' && promptOf(m) !== null);
    const words = prompt === undefined ? null : firstWords(promptOf(prompt)!, 50);
    const via = request.api === 'anthropic' ? 'Anthropic API' : request.api === 'openai-chat' ? 'OpenAI Chat Completions' : 'OpenAI Responses API';
    const header: SessionHeader = {
      type: 'session',
      session_id: t.sessionId,
      title: words === null ? `${via} conversation ${t.sessionId.slice(0, 16)}` : words,
      started_at: outcome.ts,
      // contract §8.1: an imported agent's session, scored by the reference scorer
      source: 'proxy',
      scores: 'reference',
    };
    header.api = request.api;
    return header;
  }

  private snapshot(t: Thread, request: CapturedRequest, outcome: CallOutcome, how: Continuation, summaryAt: number): Snapshot {
    const compacted = how === 'compaction';
    if (compacted) {
      // contract §8.4: the stretch closes before this call's parts are read (they are the
      // next stretch's); the last todo list's pending items are items of it
      if (t.todos !== null) for (const item of t.todos.items) t.auditor.add('todo', item, t.todos.turn, t.todos.spanId);
      t.todos = null;
      t.auditor.compact();
      t.seen = new Set();
    }
    const built = this.spans(t, request, summaryAt);
    const spans = built.spans;
    const live = new Set(spans.map((s) => s.span_id));
    const pruned = t.previousSpans.filter((id) => !live.has(id));
    // docs/proxy.md compactions: Claude Code's microcompaction, tool results cleared in place
    const before = new Set(t.previousSpans);
    const microcompacted =
      how === 'same' && pruned.length > 0 && spans.some((x) => x.kind === 'tool_result' && x.text === CLEARED_TOOL_RESULT && !before.has(x.span_id));
    // docs/proxy.md: part of the conversation is gone (a rewind, an edit): its items go with it
    if (how === 'same' && pruned.length > 0 && !microcompacted) t.auditor.forget(new Set(pruned));
    if (compacted) for (const id of built.summary) t.lineage.set(id, pruned);
    for (const s of spans) {
      const parents = t.lineage.get(s.span_id);
      if (parents !== undefined && parents.length > 0) s.derived_from = parents;
    }
    const tokens = outcome.inputTokens;
    if (tokens !== null && spans.length > 0) {
      // docs/proxy.md tokens: the call's prompt tokens exactly; what the texts do not show
      // (message framing, images, tool schemas' encoding) is counted on the first span
      const shares = fitTokens(
        spans.map((s) => estimateTokens(s.text)),
        tokens,
      );
      shares[0]! += tokens - shares.reduce((a, b) => a + b, 0);
      spans.forEach((s, i) => (s.tokens = shares[i]!));
    }
    const snap: Snapshot = { type: 'snapshot', session_id: t.sessionId, turn: t.turn, ts: outcome.ts, spans };
    const model = outcome.model ?? request.model;
    // contract §8.7: the model names the context window
    if (model !== null) snap.model = model;
    if (outcome.responseId !== null) snap.request_id = outcome.responseId;
    if (pruned.length > 0) snap.pruned = pruned;
    if (compacted) {
      // contract §8.2–§8.3: the relay's log still holds the replaced spans (earlier turns carry them)
      snap.archived = pruned;
      const audit = t.auditor.judge(t.turn, spans.map((s) => s.text).join('\n'));
      snap.compaction = {
        kind: 'compact',
        trigger: null,
        pre_tokens: t.preTokens,
        replaced: pruned,
        summary: built.summary,
        items: audit.items,
        carried: audit.carried,
        ...notFollowedField(audit),
      };
      t.preTokens = null;
    }
    if (microcompacted) {
      // contract §8.4: a record with no items (the calls still name every path); the stretch goes on
      snap.archived = pruned;
      snap.compaction = { kind: 'microcompact', trigger: null, pre_tokens: null, replaced: pruned, summary: [], items: [], carried: [] };
    }
    const refetched = t.auditor.takeRefetches();
    if (refetched.length > 0) snap.refetched = refetched;
    const errors = [...t.inputErrors, ...outcome.inputErrors];
    t.inputErrors = [];
    if (errors.length > 0) snap.input_errors = errors.map((message) => ({ message }));
    snap.proxy = { api: request.api, tokens: tokens === null ? 'estimated' : 'usage', ...(request.continues ? { continues_stored_response: true } : {}) };
    t.previousSpans = spans.map((s) => s.span_id);
    return snap;
  }

  /** The call's spans in window order (system prompt, tools, messages), and the new summary's ids. */
  private spans(t: Thread, request: CapturedRequest, summaryAt: number): { spans: Span[]; summary: string[] } {
    const occurrences = new Map<string, number>();
    const id = (prefix: string, p: CallPart): string => {
      const h = `${prefix}-${this.sha256(`${p.role}\u0000${p.kind}\u0000${p.text}`).slice(0, 16)}`;
      const n = (occurrences.get(h) ?? 0) + 1;
      occurrences.set(h, n);
      return n === 1 ? h : `${h}~${n}`;
    };
    const spans: Span[] = [];
    request.system.forEach((p, i) =>
      spans.push(span(id('sys', p), p, 'system', 'text', request.system.length === 1 ? 'system prompt' : `system prompt (part ${i + 1})`)),
    );
    for (const p of request.tools) spans.push(span(id('tool', p), p, 'system', 'tool_definition', `tool definition: ${firstWords(p.tool ?? '(unnamed)', 40)}`));
    const summary: string[] = [];
    request.messages.forEach((m, mi) => {
      const isSummary = mi === summaryAt;
      const ids = m.parts.map((p) => id('m', p));
      const fresh = ids.some((x) => !t.seen.has(x));
      const prompt = isSummary ? null : promptOf(m);
      if (t.task === null && prompt !== null) t.task = new Set(ids);
      if (fresh && prompt !== null && !isSummary) {
        // contract §8.4 user_prompt: the prompt as written, first seen by this call
        t.auditor.promptWritten(prompt, t.turn);
        t.auditor.add('user_prompt', prompt, t.turn, ids[0]!);
      }
      m.parts.forEach((p, pi) => {
        const s = this.messageSpan(t, m, p, ids[pi]!, isSummary, prompt !== null);
        if (isSummary && !t.seen.has(s.span_id)) summary.push(s.span_id);
        if (!t.seen.has(s.span_id)) {
          t.seen.add(s.span_id);
          this.auditPart(t, p, s.span_id);
        }
        if (t.task?.has(s.span_id) === true) s.pinned = true;
        spans.push(s);
      });
    });
    return { spans, summary };
  }

  private messageSpan(t: Thread, m: CallMessage, p: CallPart, spanId: string, isSummary: boolean, isPrompt: boolean): Span {
    let role = p.role;
    let label: string;
    let tool = p.tool;
    if (isSummary) {
      role = 'summary';
      label = 'compaction summary';
    } else if (p.kind === 'tool_use') {
      label = toolCallLabel(p.tool ?? '', p.input ?? {}, null);
      if (p.callId !== null) t.calls.set(p.callId, { label, tool: p.tool });
    } else if (p.kind === 'tool_result') {
      const call = p.callId === null ? undefined : t.calls.get(p.callId);
      tool ??= call?.tool ?? null;
      label = call === undefined ? 'tool result' : `${p.isError ? 'error from' : 'result of'} ${call.label}`;
    } else if (p.kind === 'text' && m.role === 'user') {
      // docs/adapters.md injected text: a block of injected text alone is the agent's, not the user's
      if (!isPrompt && typedText(p.text) === '') role = 'meta';
      label = injectedLabel(p.text) ?? firstWords(typedText(p.text) || p.text);
    } else if (p.kind === 'text') label = `${m.role}: ${firstWords(p.text, 48)}`;
    else if (p.kind === 'thinking') label = p.text === '[redacted thinking]' ? 'thinking (redacted)' : 'thinking';
    else label = `[${p.kind}]`;
    const s = span(spanId, p, role, p.kind, label);
    if (tool !== null) s.tool = tool;
    return s;
  }

  /** contract §8.4: what a part the thread sees for the first time adds to the audit (a call's turn is the one before: its answer came back in this request). */
  private auditPart(t: Thread, p: CallPart, spanId: string): void {
    const callTurn = Math.max(1, t.turn - 1);
    if (p.kind === 'tool_result' && p.isError) t.auditor.add('error', firstLine(p.text), t.turn, spanId);
    if (p.kind !== 'tool_use' || p.tool === null) return;
    const input = p.input ?? {};
    if (FILE_TOOLS.has(p.tool)) {
      const path = typeof input.file_path === 'string' ? input.file_path : typeof input.notebook_path === 'string' ? input.notebook_path : '';
      if (path === '') return;
      if (p.tool === 'Read') t.auditor.fileRead(path, callTurn);
      t.auditor.add('file', path, callTurn, spanId);
    } else if (SHELL_TOOLS.has(p.tool)) {
      const command = Array.isArray(input.command) ? input.command.filter((c) => typeof c === 'string').join(' ') : input.command;
      if (typeof command === 'string' && command !== '') t.auditor.add('command', command, callTurn, spanId);
    } else if (p.tool === 'TodoWrite' && Array.isArray(input.todos)) {
      const items = input.todos
        .filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null && (x as Record<string, unknown>).status !== 'completed')
        .map((x) => x.content)
        .filter((c): c is string => typeof c === 'string');
      t.todos = { items, turn: callTurn, spanId };
    }
  }
}

function span(spanId: string, p: CallPart, role: string, kind: string, label: string): Span {
  return { span_id: spanId, text: p.text, score: null, text_sha256: null, role, kind, label };
}

/** contract §8.4 user_prompt: a user message's typed text, when it is a prompt the user wrote (not tool results, not a wrapper, not injected text alone). */
function promptOf(m: CallMessage): string | null {
  if (m.role !== 'user' || m.parts.some((p) => p.kind === 'tool_result')) return null;
  const typed = m.parts
    .filter((p) => p.kind === 'text')
    .map((p) => typedText(p.text))
    .filter((x) => x !== '')
    .join('\n');
  if (typed === '') return null;
  const start = typed.trimStart();
  return WRAPPER_PREFIXES.some((w) => start.startsWith(w)) ? null : typed;
}

function firstLine(text: string): string {
  const x = text.trim();
  const nl = x.indexOf('\n');
  return nl < 0 ? x : x.slice(0, nl).trim();
}

function estimateAll(request: CapturedRequest): number {
  let n = 0;
  for (const p of [...request.system, ...request.tools]) n += estimateTokens(p.text);
  for (const m of request.messages) for (const p of m.parts) n += estimateTokens(p.text);
  return n;
}
