// Claude Code tool results whose text changes in place (docs/adapters.md "Claude Code"
// microcompaction and replaced tool results): a microcompaction's placeholder, and the shorter
// text Claude Code sends in a large result's place once a message's tool results outgrow their
// budget. @anthropic-ai/claude-code (2.1.126, 2.1.332) then writes the large result to a file and
// sends a `<persisted-output>` note naming it, and records what it sent, to send the same on
// every later call and on resume: `{"type": "content-replacement", "replacements":
// [{"kind": "tool-result", "toolUseId", "replacement"}]}` (its `insertContentReplacement`; a
// sub-agent's carries its `agentId` and goes to the sub-agent's file). The tool result in the
// transcript keeps its whole text.
import type { ContextBlock } from './claudeCodeBlocks.ts';
import { isObject, type JsonObject } from './json.ts';
import { estimateTokens } from './tokens.ts';

/** Each live tool result `textOf` gives a new text reads that text, its id kept; returns the ids changed (also added to `modified`). */
export function rewriteInPlace(context: readonly ContextBlock[], textOf: (toolUseId: string) => string | undefined, modified: Set<string>): string[] {
  const changed: string[] = [];
  for (const b of context) {
    const text = b.toolUseId === null ? undefined : textOf(b.toolUseId);
    if (text === undefined || b.text === text) continue;
    b.text = text;
    b.estimate = estimateTokens(text);
    modified.add(b.id);
    changed.push(b.id);
  }
  return changed;
}

/** A `content-replacement` record's texts by tool_use id (its `tool-result` replacements; others are not tool results). */
export function replacementTexts(record: JsonObject): Map<string, string> {
  const texts = new Map<string, string>();
  for (const r of Array.isArray(record.replacements) ? record.replacements : [])
    if (isObject(r) && r.kind === 'tool-result' && typeof r.toolUseId === 'string' && typeof r.replacement === 'string') texts.set(r.toolUseId, r.replacement);
  return texts;
}
