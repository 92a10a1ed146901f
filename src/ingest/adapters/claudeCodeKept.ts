// What a Claude Code compact boundary keeps (docs/adapters.md "Claude Code" compaction, kept
// messages): @anthropic-ai/claude-code keeps the last messages through some compactions (a
// reactive or partial one) and lists them on the boundary, `compactMetadata.preservedMessages
// {anchorUuid, uuids, allUuids}` (2.1.332) or `preservedSegment {headUuid, anchorUuid,
// tailUuid}`; its loader puts them back after the anchor (the boundary, or the summary's last
// record). They are not written again after the boundary: the file holds them before it.
import type { ContextBlock } from './claudeCodeBlocks.ts';
import type { ChainEnds } from './claudeCodeBranches.ts';
import { isObject, type JsonObject } from './json.ts';
import type { SkippedRecords } from './skipped.ts';

/**
 * The compact boundaries between two calls whose kept messages are read. Each one that keeps
 * moves its kept blocks again: n boundaries before a call, each keeping the whole context by
 * naming its first and last record, cost n times the context (docs/security.md "Linear time").
 * Claude Code writes one or two.
 */
export const KEEPING_BOUNDARIES_MAX = 8;

/** A session's kept messages: what the last boundary kept, held until the record they follow. */
export class KeptMessages {
  private held: { anchor: string | null; blocks: ContextBlock[] } | null = null;
  /** the boundaries since the last call that kept some */
  private keeping = 0;
  /** blocks looked at for kept ones or moved back: the work the scaling tests count */
  looked = 0;

  /** a call: the count of boundaries that keep starts again */
  called(): void {
    this.keeping = 0;
  }

  /** whether the record `uuid` is the one the held blocks follow */
  anchoredBy(uuid: unknown): boolean {
    return this.held !== null && typeof uuid === 'string' && uuid === this.held.anchor;
  }

  /** A compact boundary over `context`: the blocks it keeps, held from here (past KEEPING_BOUNDARIES_MAX before a call: none, counted when it named some). */
  boundary(meta: JsonObject | null, context: readonly ContextBlock[], skipped: SkippedRecords): Set<ContextBlock> {
    if (this.keeping >= KEEPING_BOUNDARIES_MAX) {
      if (namesKept(meta)) skipped.add(`compact_boundary (kept messages not read: more than ${KEEPING_BOUNDARIES_MAX} boundaries before a call keep some)`);
      return new Set();
    }
    this.looked += context.length;
    const kept = keptBlocks(meta, context);
    if (kept.size > 0) {
      this.keeping++;
      this.held = { anchor: preservedAnchor(meta), blocks: context.filter((b) => kept.has(b)) };
    }
    return kept;
  }

  /** The held blocks follow their anchor (else come at the next call or boundary) in `context`, ids kept; each record a rewind point again. */
  restore(context: ContextBlock[], endOf: ChainEnds): void {
    const p = this.held;
    if (p === null) return;
    this.held = null;
    this.looked += p.blocks.length;
    for (let i = 0; i < p.blocks.length; i++) {
      const b = p.blocks[i]!;
      context.push(b);
      const uuid = recordOf(b.id);
      if (i + 1 === p.blocks.length || recordOf(p.blocks[i + 1]!.id) !== uuid) endOf.mark(uuid, context.length);
    }
  }
}

/** The record a block came from: its id up to the last `#` (adapters.md span id). */
function recordOf(blockId: string): string {
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
function keptBlocks(meta: JsonObject | null, context: readonly ContextBlock[]): Set<ContextBlock> {
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
function namesKept(meta: JsonObject | null): boolean {
  return meta !== null && (isObject(meta.preservedMessages) || isObject(meta.preservedSegment));
}

/** The record kept messages follow (`preservedMessages.anchorUuid`, else `preservedSegment.anchorUuid`); null: none named. */
function preservedAnchor(meta: JsonObject | null): string | null {
  for (const field of ['preservedMessages', 'preservedSegment']) {
    const v = meta?.[field];
    if (isObject(v) && typeof v.anchorUuid === 'string' && v.anchorUuid !== '') return v.anchorUuid;
  }
  return null;
}
