// Generators of hostile transcripts (issue 39, docs/security.md "Importers"): each builds its
// input in memory at the size asked, so no large fixture is kept in the repository. The
// record shapes are the ones the adapters read (docs/adapters.md; Claude Code's
// ~/.claude/projects/*.jsonl records, Codex's rollout-*.jsonl `response_item` payloads).

/** JSON text nesting `levels` arrays: `[[[…]]]`. */
export const nestedArrays = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);

const CC_TIME = '2026-11-30T10:00:00.000Z';

/** A Claude Code user record. */
export function ccUser(uuid: string, parent: string | null, content: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ type: 'user', uuid, parentUuid: parent, sessionId: 'hostile', timestamp: CC_TIME, message: { role: 'user', content }, ...extra });
}

/** A Claude Code assistant record (one API call, `requestId` r<uuid>). */
export function ccAssistant(uuid: string, parent: string, content: unknown[]): string {
  return JSON.stringify({
    type: 'assistant',
    uuid,
    parentUuid: parent,
    sessionId: 'hostile',
    timestamp: CC_TIME,
    requestId: `r${uuid}`,
    message: { id: `m${uuid}`, role: 'assistant', content },
  });
}

/** A Claude Code compact boundary (`meta`: more of its compactMetadata, the kept messages' fields). */
export function ccCompactBoundary(uuid: string, parent: string, meta: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: 'system',
    subtype: 'compact_boundary',
    uuid,
    parentUuid: parent,
    sessionId: 'hostile',
    timestamp: CC_TIME,
    compactMetadata: { trigger: 'auto', preTokens: 1000, ...meta },
  });
}

/** A Claude Code tool result of the call `t<id>`. */
export const ccToolResult = (uuid: string, parent: string, id: string, text: string): string =>
  ccUser(uuid, parent, [{ type: 'tool_result', tool_use_id: id, content: text }]);

/** A Claude Code `content-replacement` record: the tool result of `toolUseId` sent as `replacement` from then on. */
export const ccContentReplacement = (toolUseId: string, replacement: string): string =>
  JSON.stringify({ type: 'content-replacement', sessionId: 'hostile', replacements: [{ kind: 'tool-result', toolUseId, replacement }] });

/** A Claude Code `microcompact_boundary` clearing the tool results of `ids`. */
export const ccMicrocompact = (uuid: string, ids: string[]): string =>
  JSON.stringify({
    type: 'system',
    subtype: 'microcompact_boundary',
    uuid,
    sessionId: 'hostile',
    timestamp: CC_TIME,
    microcompactMetadata: { trigger: 'auto', compactedToolIds: ids },
  });

/** `n` tiny text blocks. */
export function textBlocks(n: number, prefix = 'b'): { type: 'text'; text: string }[] {
  const out: { type: 'text'; text: string }[] = [];
  for (let i = 0; i < n; i++) out.push({ type: 'text', text: `${prefix}${i}` });
  return out;
}

/** A Claude Code tool_use block whose `input` is a JSON value given as text (spliced in raw). */
export function ccToolUseLine(uuid: string, parent: string, inputJson: string): string {
  const marker = '"__INPUT__"';
  return ccAssistant(uuid, parent, [{ type: 'tool_use', id: `t${uuid}`, name: 'Read', input: '__INPUT__' }]).replace(marker, inputJson);
}

const CODEX_TIME = '2025-10-04T09:12:00.000Z';

/** A Codex rollout line. */
export function codexLine(type: string, payload: Record<string, unknown>): string {
  return JSON.stringify({ timestamp: CODEX_TIME, type, payload });
}

export const codexMeta = (): string => codexLine('session_meta', { id: 'hostile', timestamp: CODEX_TIME, cwd: '/repo' });
export const codexUser = (text: string): string => codexLine('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
export const codexAssistant = (text: string): string =>
  codexLine('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });

/** A Codex `token_count` event: one model call whose input was `input` tokens (totals must change for each call). */
export const codexCall = (input: number, total: number): string =>
  codexLine('event_msg', { type: 'token_count', info: { last_token_usage: { input_tokens: input }, total_token_usage: { total_tokens: total } } });

/**
 * Claude Code: `n` compactions, each stretch one Read of a path of its own with the one
 * basename `x`, each summary `x`: every compaction keeps every earlier file (contract §8.4
 * `file` is a basename substring), so each carries all the earlier ones (issue 39, the audit).
 */
export function* ccCompactionsCarrying(n: number): Generator<string> {
  yield ccUser('u0', null, 'start');
  let parent = 'u0';
  for (let i = 0; i < n; i++) {
    yield ccAssistant(`a${i}`, parent, [{ type: 'tool_use', id: `t${i}`, name: 'Read', input: { file_path: `/s${i}/x` } }]);
    yield ccCompactBoundary(`c${i}`, `a${i}`);
    yield ccUser(`s${i}`, `c${i}`, 'x', { isCompactSummary: true });
    parent = `s${i}`;
  }
  yield ccAssistant('last', parent, [{ type: 'text', text: 'done' }]);
}
