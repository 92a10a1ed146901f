// Which kind of transcript a file is, told by content (contract §7 adapters), never by its
// name: the first message decides. Anything that is not recognisably another agent's
// transcript is read as the product's own wire format, so its errors are reported exactly
// as before.

import { isLegacyMeta } from './codexLegacy.ts';
import { isMiniSweAgentDocument } from './miniSweAgent.ts';
import { OPENHANDS_EVENT_KINDS } from './openhands.ts';
import { isV0EvalRow, isV0Event } from './openhandsV0.ts';

export type TranscriptFormat = 'wire' | 'claude-code' | 'swe-agent' | 'codex' | 'gemini' | 'openhands';

export const TRANSCRIPT_FORMATS: readonly TranscriptFormat[] = ['wire', 'claude-code', 'swe-agent', 'codex', 'gemini', 'openhands'];

/**
 * Record types Claude Code writes (docs/adapters.md, as of 2.1.x); any one of them, with a
 * field only its records carry, names the format. A transcript may open with any of them
 * (a resumed session starts with its `summary`, a new one often with `permission-mode`).
 */
const CLAUDE_CODE_TYPES = new Set([
  'user',
  'assistant',
  'system',
  'summary',
  'progress',
  'file-history-snapshot',
  'queue-operation',
  'attachment',
  'last-prompt',
  'ai-title',
  'custom-title',
  'agent-name',
  'agent-setting',
  'agent-color',
  'permission-mode',
  'mode',
  'pr-link',
  'tag',
  'worktree-state',
  // the rest of the types Claude Code's own writer knows (its table of transcript entry types
  // and how each is written, in @anthropic-ai/claude-code 2.1.126 and 2.1.332): a file may open
  // with any of them (a resumed or branched session's file starts with the session's metadata:
  // `session-owner`, `memory-mode`, `repl-mode`, `hybrid-organization`, `history-suppression`, …)
  'attribution-snapshot',
  'file-history-delta',
  'frame-link',
  'isolation-latch',
  'content-replacement',
  'fork-context-ref',
  'speculation-accept',
  'marble-origami-commit',
  'marble-origami-snapshot',
  'ended-by-model',
  'continued-in',
  'relocated',
  'artifact-comment-monitor',
  'artifact-autoreact-ledger',
  'bridge-session',
  'history-suppression',
  'session-owner',
  'dev-mods',
  'memory-mode',
  'atis-latch',
  'tools-used',
  'data-flow-records',
  'data-flow-incomplete',
  'derived-from',
  'cost-state',
  'api-request-shape',
  'api-request-blob',
  'api-request',
  'api-request-resumed',
  'observer-ref',
  'resume-head-vouch',
  'repl-mode',
  'hybrid-organization',
  'host-row',
]);

/** Fields of Claude Code's records (the chain's `uuid` / `parentUuid`, the `sessionId` every record carries, a summary's `leafUuid`, a snapshot's `messageId`). */
const CLAUDE_CODE_KEYS = ['sessionId', 'uuid', 'parentUuid', 'leafUuid', 'messageId'];

/** The `type`s of a Codex CLI rollout line (codex-rs/protocol/src/protocol.rs `RolloutItem`), each with a `payload` object. */
const CODEX_TYPES = new Set(['session_meta', 'response_item', 'compacted', 'turn_context', 'event_msg']);

/** The format of a transcript whose first message (line or array element) parsed to `first`. */
export function detectFormat(first: unknown): TranscriptFormat {
  if (typeof first !== 'object' || first === null || Array.isArray(first)) return 'wire';
  const record = first as Record<string, unknown>;
  const type = record.type;
  if (type === 'session' || type === 'snapshot') return 'wire';
  if (Array.isArray(record.trajectory)) return 'swe-agent';
  // a SWE-agent document with a history but no trajectory (its demonstrations are saved so)
  if (Array.isArray(record.history) && record.history.some((m) => typeof m === 'object' && m !== null && 'role' in m && 'agent' in m)) return 'swe-agent';
  // a mini-swe-agent trajectory (.traj.json): `messages` with its `trajectory_format`, `info.mini_version` or an early release's `info` (read by the SWE-agent adapter)
  if (isMiniSweAgentDocument(record)) return 'swe-agent';
  // a Gemini CLI session: its metadata line (or the whole legacy document on one line), which has no `type`
  if (type === undefined && typeof record.sessionId === 'string' && typeof record.projectHash === 'string') return 'gemini';
  // an OpenHands event: its class in `kind` (openhands-sdk event/*)
  if (typeof record.kind === 'string' && OPENHANDS_EVENT_KINDS.has(record.kind) && (typeof record.source === 'string' || typeof record.id === 'string'))
    return 'openhands';
  // an OpenHands conversation's base_state.json first (openhands-sdk conversation/state.py: its
  // `id`, the `agent` and its `stats` or `workspace`): the relay sends a conversation folder as
  // JSON Lines in the order `check <folder>` reads it, the state first (docs/relay.md "Local sessions")
  if (
    typeof record.id === 'string' &&
    typeof record.agent === 'object' &&
    record.agent !== null &&
    ((typeof record.stats === 'object' && record.stats !== null) || (typeof record.workspace === 'object' && record.workspace !== null))
  )
    return 'openhands';
  // an OpenHands V0 event (the app's event_to_dict: `action` or `observation`, `source`, `id`), or an evaluation row of them
  if (isV0Event(record) || isV0EvalRow(record)) return 'openhands';
  if (typeof type === 'string' && CODEX_TYPES.has(type) && typeof record.payload === 'object' && record.payload !== null) return 'codex';
  // Codex's first rollout format (before session_meta): a bare metadata line opens it
  if (isLegacyMeta(record)) return 'codex';
  // Gemini CLI's prompt log, not a session: no format reads it (docs/adapters.md "Gemini CLI")
  if (isGeminiPromptLogEntry(record)) return 'wire';
  if (typeof type === 'string' && CLAUDE_CODE_TYPES.has(type) && CLAUDE_CODE_KEYS.some((k) => k in record)) return 'claude-code';
  return 'wire';
}

/**
 * An entry of Gemini CLI's `logs.json` (packages/core/src/core/logger.ts `LogEntry`: `sessionId`,
 * a numeric `messageId`, `timestamp`, `type` "user", `message` the words typed): the prompts kept
 * for the input history, beside the project's chats/, with no model call in them. Its `type` and
 * `sessionId` are Claude Code's names too, but Claude Code's `message` is an object and its
 * `messageId` a string.
 */
function isGeminiPromptLogEntry(record: Record<string, unknown>): boolean {
  return typeof record.sessionId === 'string' && typeof record.messageId === 'number' && typeof record.message === 'string';
}
