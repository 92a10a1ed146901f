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

/**
 * The context's tool results by the tool_use id they answer, so a record that rewrites some
 * finds them without a walk of the context (n records rewriting one result each, after n
 * results, walked n² blocks: docs/security.md "Linear time"). A tool_use id names one result,
 * the last block of the context answering it: Claude Code writes one (the API refuses a second),
 * and n blocks answering one id, rewritten by n records of alternating texts, would again be n²
 * rewrites. Kept lazily: each place of the context is indexed once, when a lookup first needs
 * it; an entry whose place no longer holds its block (a rewind cut it; a compaction starts a new
 * context) is dropped when it is next looked at, once.
 */
export class ToolResultIndex {
  private of: readonly ContextBlock[] | null = null;
  private indexed = 0;
  /** tool_use id → the blocks answering it as indexed, in the context's order among those still there */
  private readonly byCall = new Map<string, { block: ContextBlock; at: number }[]>();
  /** places indexed and entries looked at: the work the scaling tests count */
  looked = 0;

  /** The last block of `context` answering `toolUseId`, with its place; undefined: none. */
  find(context: readonly ContextBlock[], toolUseId: string): { block: ContextBlock; at: number } | undefined {
    this.catchUp(context);
    const list = this.byCall.get(toolUseId);
    if (list === undefined) return undefined;
    for (let last = list.at(-1); last !== undefined; last = list.at(-1)) {
      this.looked++;
      if (context[last.at] === last.block) return last;
      list.pop();
    }
    this.byCall.delete(toolUseId);
    return undefined;
  }

  private catchUp(context: readonly ContextBlock[]): void {
    if (context !== this.of) {
      this.of = context;
      this.indexed = 0;
      this.byCall.clear();
    }
    // cut back (a rewind): the places past its end are indexed again as they are filled, after
    // every entry of theirs, which no longer holds its block
    if (context.length < this.indexed) this.indexed = context.length;
    for (; this.indexed < context.length; this.indexed++) {
      this.looked++;
      const block = context[this.indexed]!;
      if (block.toolUseId === null) continue;
      const list = this.byCall.get(block.toolUseId);
      if (list === undefined) this.byCall.set(block.toolUseId, [{ block, at: this.indexed }]);
      else list.push({ block, at: this.indexed });
    }
  }
}

/**
 * The live tool result of each tool_use id `texts` gives a new text (ToolResultIndex: the last
 * block answering it) reads that text, its id kept. Returns how many changed, and the ids of
 * those not in `modified` yet, in the context's order (then added to it): a result rewritten
 * twice before a call is listed once.
 */
export function rewriteInPlace(
  context: readonly ContextBlock[],
  texts: ReadonlyMap<string, string>,
  modified: Set<string>,
  index: ToolResultIndex,
): { count: number; ids: string[] } {
  const hits: { block: ContextBlock; at: number; text: string }[] = [];
  for (const [toolUseId, text] of texts) {
    const hit = index.find(context, toolUseId);
    if (hit !== undefined && hit.block.text !== text) hits.push({ ...hit, text });
  }
  hits.sort((a, b) => a.at - b.at);
  const ids: string[] = [];
  for (const { block, text } of hits) {
    block.text = text;
    block.estimate = estimateTokens(text);
    if (modified.has(block.id)) continue;
    modified.add(block.id);
    ids.push(block.id);
  }
  return { count: hits.length, ids };
}

/** A `content-replacement` record's texts by tool_use id (its `tool-result` replacements; others are not tool results). */
export function replacementTexts(record: JsonObject): Map<string, string> {
  const texts = new Map<string, string>();
  for (const r of Array.isArray(record.replacements) ? record.replacements : [])
    if (isObject(r) && r.kind === 'tool-result' && typeof r.toolUseId === 'string' && typeof r.replacement === 'string') texts.set(r.toolUseId, r.replacement);
  return texts;
}
