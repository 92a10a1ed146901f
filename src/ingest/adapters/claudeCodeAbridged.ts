// docs/engine.md "Snapshots abridged": for a caller that reads only a session's summary
// (`check`'s human output, its folder table, the local sessions' rows), a Claude Code call's
// snapshot carries the system placeholder and the context's derived spans (compaction
// summaries) alone, where that provably changes none of what such a caller reads.
//
// In the reference scope (contract §8.1) the detectors that run read, of a snapshot's spans,
// only the turn's token total (context_pressure), the derived spans' parents (orphaned_parent)
// and, at a compaction, the summary and the live ids (compaction, compaction_loss). A call
// with the same total and the same derived spans, whose parents are live in neither snapshot,
// therefore gets the same findings, verdict, compaction record, tokens_total and orphan_edges.
// What differs is only what no such caller reads: n_spans, tokens_by_kind, texts_changed.
//
// The full snapshot could also be refused (contract §2): two spans of one id, a text or id
// with a lone surrogate, a negative system share. `AbridgedContext` follows the context from
// call to call, checking each block once when it joins, so that it answers "abridge" only for
// a context the full snapshot of which would be accepted; anything else (a duplicate, a parent
// still live, a lone surrogate) makes the call's snapshot in full.
import type { Span } from '../../core/wire.ts';
import type { ContextBlock } from './claudeCodeBlocks.ts';
import { fittedSpan, fittedSystemSpan, SYSTEM_SPAN_ID } from './claudeCodeSpans.ts';
import { fittedShare } from './tokens.ts';

interface DerivedBlock {
  block: ContextBlock;
  /** its derived_from when it joined, and that list's length then: a list replaced or grown is looked at again */
  parents: readonly string[];
  length: number;
}

export class AbridgedContext {
  /** the context array at the last call, how many of its blocks were looked at, the last of them, and the edits counted then */
  private array: readonly ContextBlock[] | null = null;
  private known = 0;
  private last: ContextBlock | null = null;
  private edits = 0;
  /** their estimates, added up (fittedSpansOf's `sum`) */
  private sum = 0;
  /** their ids and the placeholder's */
  private ids = new Set<string>([SYSTEM_SPAN_ID]);
  /** the parents the derived blocks cite */
  private parents = new Set<string>();
  private derived: DerivedBlock[] = [];
  /** every block so far has its own id, well-formed id and text, and no live block is a cited parent */
  private sound = true;

  /** How many times the whole context was looked at again (its tests count them). */
  rebuilds = 0;

  /**
   * A call's abridged spans, or null for its full ones: only for a call that reports a whole
   * total (`total`, else null), and follow's answer for its context. The caller asks only at a
   * call at which nothing left the context or was rewritten and no compaction is pending or
   * awaits its summary: at such a call, or the next, the engine reads more than a summary
   * needs (a compaction's live ids, the pruned and archived ids, a native rewrite's parents).
   */
  spansOf(context: readonly ContextBlock[], edits: number, total: number | null): Span[] | null {
    if (total === null || !Number.isSafeInteger(total)) return null;
    return this.follow(context, edits) ? this.spans(context, total) : null;
  }

  /**
   * Whether a snapshot of `context` may be abridged, as far as its spans go. The context an
   * agent sends grows at its end, and the adapter counts every other change it makes (`edits`:
   * blocks cut by a rewind, the context a compaction empties, a text rewritten in place). While
   * the count, the array and its last known block stay, only the new blocks are looked at, each
   * once; any other change looks at the whole context again.
   */
  follow(context: readonly ContextBlock[], edits: number): boolean {
    const known = this.known;
    if (context !== this.array || edits !== this.edits || context.length < known || (known > 0 && context[known - 1] !== this.last))
      return this.rebuild(context, edits);
    for (const d of this.derived) if (d.block.derivedFrom !== d.parents || d.parents.length !== d.length) return this.rebuild(context, edits);
    for (let i = known; i < context.length; i++) this.add(context[i]!);
    this.known = context.length;
    return this.sound;
  }

  /**
   * The abridged snapshot's spans for a call of `total` prompt tokens: the placeholder, then
   * the derived blocks in context order, each with the share fittedSpansOf gives it. The
   * placeholder takes the rest, so the turn's total is `total`, as in full. Null when the full
   * snapshot's placeholder would have a negative share (refused there).
   */
  spans(context: readonly ContextBlock[], total: number): Span[] | null {
    const sum = this.sum;
    let shared = sum;
    if (sum > total) {
      shared = 0;
      for (let i = 0; i < context.length; i++) shared += fittedShare(context[i]!.estimate, sum, total);
    }
    if (total - shared < 0) return null;
    const spans = new Array<Span>(this.derived.length + 1);
    let derivedShares = 0;
    for (let k = 0; k < this.derived.length; k++) {
      const b = this.derived[k]!.block;
      const share = fittedShare(b.estimate, sum, total);
      derivedShares += share;
      spans[k + 1] = fittedSpan(b, share);
    }
    spans[0] = fittedSystemSpan(total - derivedShares);
    return spans;
  }

  private rebuild(context: readonly ContextBlock[], edits: number): boolean {
    this.rebuilds++;
    this.array = context;
    this.edits = edits;
    this.sum = 0;
    this.ids = new Set([SYSTEM_SPAN_ID]);
    this.parents = new Set();
    this.derived = [];
    this.sound = true;
    for (const b of context) this.add(b);
    this.known = context.length;
    return this.sound;
  }

  private add(b: ContextBlock): void {
    this.last = b;
    this.sum += b.estimate;
    const id = b.id;
    // a repeated id (the set's size unchanged), a cited parent that is live, a lone surrogate
    const size = this.ids.size;
    this.ids.add(id);
    if (this.ids.size === size || this.parents.has(id) || !id.isWellFormed() || !b.text.isWellFormed()) this.sound = false;
    const parents = b.derivedFrom;
    if (parents === null) return;
    this.derived.push({ block: b, parents, length: parents.length });
    for (const p of parents) {
      if (this.ids.has(p)) this.sound = false;
      this.parents.add(p);
    }
  }
}
