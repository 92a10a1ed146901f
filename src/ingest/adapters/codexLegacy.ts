// Codex CLI's first rollout format (CLI 0.1x–0.3x, before `session_meta` and `RolloutLine`):
// how to tell it, for detect.ts and the Codex adapter (docs/adapters.md "Codex's first format").
// Source: codex-rs/core/src/rollout.rs of mid-2025 (`SessionMeta`, `SessionMetaWithGit`,
// `rollout_writer`: the meta line, then each `ResponseItem` as its own line, and
// `{"record_type": "state"}` lines for the resume state).
import { isObject } from './json.ts';

/** the response item types of Codex's first rollout format, each a bare line of its own. */
export const LEGACY_ITEM_TYPES: ReadonlySet<string> = new Set([
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'local_shell_call',
  'custom_tool_call',
  'custom_tool_call_output',
  'web_search_call',
]);

/**
 * adapters.md "Codex's first format": the metadata line of a rollout from before `session_meta`
 * (CLI 0.1x–0.3x, `SessionMeta` / `SessionMetaWithGit` of codex-rs/core/src/rollout.rs): a bare
 * object with the session's `id` and `timestamp` (and `instructions`, `git`, later `cwd`,
 * `originator`, `cli_version`), no `type`.
 */
export function isLegacyMeta(value: unknown): boolean {
  return isObject(value) && !('type' in value) && !('record_type' in value) && typeof value.id === 'string' && typeof value.timestamp === 'string';
}
