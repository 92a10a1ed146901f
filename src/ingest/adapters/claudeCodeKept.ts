// What a Claude Code compact boundary keeps (docs/adapters.md "Claude Code" compaction, kept
// messages): @anthropic-ai/claude-code keeps the last messages through some compactions (a
// reactive or partial one) and lists them on the boundary, `compactMetadata.preservedMessages
// {anchorUuid, uuids, allUuids}` (2.1.332) or `preservedSegment {headUuid, anchorUuid,
// tailUuid}`; its loader puts them back after the anchor (the boundary, or the summary's last
// record). They are not written again after the boundary: the file holds them before it.
import type { ContextBlock } from './claudeCodeBlocks.ts';
import { isObject, type JsonObject } from './json.ts';

/** The record a block came from: its id up to the last `#` (adapters.md span id). */
export function recordOf(blockId: string): string {
  const at = blockId.lastIndexOf('#');
  return at < 0 ? blockId : blockId.slice(0, at);
}

/**
 * adapters.md compaction, kept messages: the context's blocks a compact boundary keeps.
 * `compactMetadata.preservedMessages.uuids` (and `allUuids`) lists the records kept, by uuid
 * (Claude Code 2.1.332); `preservedSegment {headUuid, tailUuid}` alone (earlier 2.1.x) names
 * the first and the last of a stretch of the chain, kept whole: the blocks from the head's
 * first to the tail's last. Anything else (no such field, a record not in the context) keeps
 * nothing, as a boundary did before.
 */
export function keptBlocks(meta: JsonObject | null, context: readonly ContextBlock[]): Set<ContextBlock> {
  const kept = new Set<ContextBlock>();
  if (meta === null || context.length === 0) return kept;
  const messages = isObject(meta.preservedMessages) ? meta.preservedMessages : null;
  if (messages !== null) {
    const uuids = new Set<string>();
    for (const list of [messages.uuids, messages.allUuids]) if (Array.isArray(list)) for (const u of list) if (typeof u === 'string') uuids.add(u);
    for (const b of context) if (uuids.has(recordOf(b.id))) kept.add(b);
    return kept;
  }
  const segment = isObject(meta.preservedSegment) ? meta.preservedSegment : null;
  if (segment === null || typeof segment.headUuid !== 'string' || typeof segment.tailUuid !== 'string') return kept;
  const head = context.findIndex((b) => recordOf(b.id) === segment.headUuid);
  let tail = -1;
  for (let i = context.length - 1; i >= head && head >= 0; i--)
    if (recordOf(context[i]!.id) === segment.tailUuid) {
      tail = i;
      break;
    }
  if (head < 0 || tail < 0) return kept;
  for (let i = head; i <= tail; i++) kept.add(context[i]!);
  return kept;
}

/** Whether the boundary names kept messages at all (either field, an object). */
export function namesKept(meta: JsonObject | null): boolean {
  return meta !== null && (isObject(meta.preservedMessages) || isObject(meta.preservedSegment));
}

/** The record kept messages follow (`preservedMessages.anchorUuid`, else `preservedSegment.anchorUuid`); null: none named. */
export function preservedAnchor(meta: JsonObject | null): string | null {
  for (const field of ['preservedMessages', 'preservedSegment']) {
    const v = meta?.[field];
    if (isObject(v) && typeof v.anchorUuid === 'string' && v.anchorUuid !== '') return v.anchorUuid;
  }
  return null;
}
