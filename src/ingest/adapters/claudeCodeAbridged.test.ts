// AbridgedContext's own rules (docs/engine.md "Snapshots abridged"): a context whose full
// snapshot the engine would refuse, or read otherwise, is never abridged. The Claude Code
// adapter does not make such a context from any transcript the tests know
// (test/cli/abridged.test.ts compares whole runs); these hold the guard to its rules anyway.
import { describe, expect, it } from 'vitest';
import { AbridgedContext } from './claudeCodeAbridged.ts';
import { block, type ContextBlock } from './claudeCodeBlocks.ts';
import { fittedSpansOf, SYSTEM_SPAN_ID } from './claudeCodeSpans.ts';

function blocks(...ids: string[]): ContextBlock[] {
  return ids.map((id) => block(id, `text of ${id}`, 'text', null));
}

function summary(id: string, parents: string[]): ContextBlock {
  const b = block(id, `summary ${id}`, 'text', null);
  b.role = 'summary';
  b.derivedFrom = parents;
  return b;
}

describe('AbridgedContext.follow', () => {
  // the adapter's count of the context's changes other than blocks added at its end
  let edits = 0;
  it('a context that grows at its end is abridged, each new block looked at once', () => {
    const a = new AbridgedContext();
    const context = blocks('a#0', 'b#0');
    expect(a.follow(context, edits)).toBe(true);
    context.push(...blocks('c#0'));
    expect(a.follow(context, edits)).toBe(true);
    // the first look only
    expect(a.rebuilds).toBe(1);
  });

  it('two blocks of one id, or a block named as the placeholder, are not', () => {
    expect(new AbridgedContext().follow(blocks('a#0', 'a#0'), edits)).toBe(false);
    expect(new AbridgedContext().follow(blocks(SYSTEM_SPAN_ID), edits)).toBe(false);
    const a = new AbridgedContext();
    const context = blocks('a#0');
    expect(a.follow(context, edits)).toBe(true);
    context.push(...blocks('a#0'));
    expect(a.follow(context, edits)).toBe(false);
  });

  it('a lone surrogate in an id or a text is not (the engine refuses the full snapshot)', () => {
    expect(new AbridgedContext().follow(blocks('a\ud800'), edits)).toBe(false);
    const b = block('a#0', 'half \udc00 pair', 'text', null);
    expect(new AbridgedContext().follow([b], edits)).toBe(false);
  });

  it('a text rewritten in place is looked at again: a lone surrogate then is noticed, a good text abridged', () => {
    const a = new AbridgedContext();
    const context = blocks('a#0', 'b#0');
    expect(a.follow(context, edits)).toBe(true);
    context[0]!.text = 'broken \ud800';
    expect(a.follow(context, ++edits)).toBe(false);
    context[0]!.text = '[Old tool result content cleared]';
    expect(a.follow(context, ++edits)).toBe(true);
    expect(a.rebuilds).toBe(3);
  });

  it('a context the adapter changed otherwise than at its end (counted), or a new one, is looked at whole again', () => {
    const a = new AbridgedContext();
    const context = blocks('a#0', 'b#0', 'c#0');
    a.follow(context, edits);
    expect(a.follow([...context], edits)).toBe(true);
    // the last known block replaced: noticed without the count
    context[2] = blocks('c#0')[0]!;
    expect(a.follow(context, edits)).toBe(true);
    expect(a.rebuilds).toBe(3);
    // a rewind: counted
    context.splice(1);
    context.push(...blocks('a#0'));
    expect(a.follow(context, ++edits)).toBe(false);
    expect(a.rebuilds).toBe(4);
  });

  it('a derived block whose parent is live is not (the abridged snapshot would call the parent missing)', () => {
    expect(new AbridgedContext().follow([...blocks('p#0'), summary('s#0', ['p#0', 'q#0'])], edits)).toBe(false);
    const a = new AbridgedContext();
    const context = [summary('s#0', ['p#0', 'q#0'])];
    expect(a.follow(context, edits)).toBe(true);
    // the parent comes back live later
    context.push(...blocks('q#0'));
    expect(a.follow(context, edits)).toBe(false);
    // a derived block naming itself
    expect(new AbridgedContext().follow([summary('s#0', ['s#0', 'q#0'])], edits)).toBe(false);
  });

  it('a derived list grown or replaced in place is looked at again', () => {
    const a = new AbridgedContext();
    const parents = ['p#0'];
    const context = [summary('s#0', parents), ...blocks('q#0')];
    expect(a.follow(context, edits)).toBe(true);
    parents.push('q#0');
    expect(a.follow(context, edits)).toBe(false);
    context[0]!.derivedFrom = ['p#0'];
    expect(a.follow(context, edits)).toBe(true);
  });
});

describe('AbridgedContext.spans', () => {
  it('the placeholder and the derived blocks, with the shares and the total the full snapshot has', () => {
    for (const total of [100_000, 50]) {
      const context = [...blocks('a#0', 'b#0'), summary('s#0', ['old#0']), ...blocks('c#0')];
      const a = new AbridgedContext();
      expect(a.follow(context, 0)).toBe(true);
      const spans = a.spans(context, total)!;
      const full = fittedSpansOf(context, total);
      expect(spans.map((s) => s.span_id)).toEqual([SYSTEM_SPAN_ID, 's#0']);
      expect(spans[1]).toEqual(full.find((s) => s.span_id === 's#0'));
      expect(spans.reduce((n, s) => n + s.tokens!, 0)).toBe(total);
    }
  });
});
