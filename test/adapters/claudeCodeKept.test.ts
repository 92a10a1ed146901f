// docs/adapters.md "Claude Code" compaction, kept messages and replaced tool results: what
// @anthropic-ai/claude-code 2.1.332 writes for a compaction that keeps the last messages
// (`compactMetadata.preservedMessages` / `preservedSegment`) and for a tool result sent in a
// shorter form (`content-replacement`). Records built in the shapes its code writes; the
// texts are invented.
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/core/wire.ts';
import { TranscriptBuilder } from './claudeCodeTranscript.ts';
import { SYSTEM_SPAN_ID } from '../../src/ingest/adapters/claudeCode.ts';
import { KEEPING_BOUNDARIES_MAX } from '../../src/ingest/adapters/claudeCodeKept.ts';
import { convertText } from '../../src/ingest/adapters/convert.testing.ts';

type Json = Record<string, unknown>;
const ids = (s: Snapshot): string[] => s.spans.map((x) => x.span_id);

/** r1–r7: a task and its work, then `next` (r8 on): the boundary and what follows it */
function session(meta: () => Json, afterBoundary: (b: TranscriptBuilder) => void): TranscriptBuilder {
  const b = new TranscriptBuilder('kept');
  b.prompt('make the tokenizer skip comments'); // r1
  const read = b.tool('Read', { file_path: '/repo/src/tokenize.ts' });
  b.toolCall(1200, [read], 'export function tokenize(src: string) {}'); // r2, r3
  b.call(1500, [{ type: 'text', text: 'The tokenizer has no comment rule yet.' }]); // r4
  b.prompt('also count the lines it skips'); // r5
  const edit = b.tool('Edit', { file_path: '/repo/src/lines.ts', old_string: 'a', new_string: 'b' });
  b.toolCall(1900, [edit], 'edited'); // r6, r7
  const { trigger, preTokens, ...more } = meta();
  b.boundary(trigger as 'auto' | 'manual', preTokens as number, more); // r8
  afterBoundary(b);
  return b;
}

const summaryThenCall = (b: TranscriptBuilder): void => {
  b.summary('Summary: the tokenizer should skip comments; not done.'); // r9
  b.call(900, [{ type: 'text', text: 'Carrying on with the line count.' }]); // r10
};

describe('Claude Code compaction that keeps messages (docs/adapters.md)', () => {
  const before = ['r1#0', 'r2#0', 'r3#0', 'r4#0'];
  const kept = ['r5#0', 'r6#0', 'r7#0'];

  it('preservedMessages: the listed records stay, after the summary they are anchored to; only the rest is pruned and summarised', () => {
    const b = session(
      () => ({ trigger: 'auto', preTokens: 2000, preservedMessages: { anchorUuid: 'r9', uuids: ['r5', 'r6', 'r7'], allUuids: ['r5', 'r6', 'r7'] } }),
      summaryThenCall,
    );
    const r = convertText(b.text());
    expect(r.errors).toEqual([]);
    const turn = r.snapshots.at(-1)!;
    expect(ids(turn)).toEqual([SYSTEM_SPAN_ID, 'r9#0', ...kept]);
    expect(turn.pruned).toEqual(before);
    expect(turn.archived).toEqual(before);
    expect(turn.compaction).toMatchObject({ kind: 'compact', trigger: 'auto', pre_tokens: 2000, replaced: before, summary: ['r9#0'] });
    expect(turn.spans.find((s) => s.span_id === 'r9#0')!.derived_from).toEqual(before);
    // contract §8.4: the kept edit names its file in what the call saw
    expect(
      (turn.compaction as { items: { kind: string; text: string; status: string }[] }).items.filter((i) => i.kind === 'file').map((i) => [i.text, i.status]),
    ).toEqual([
      ['/repo/src/tokenize.ts', 'lost'],
      ['/repo/src/lines.ts', 'kept'],
    ]);
  });

  it('a prompt written after going back to the summary keeps them: they follow it, as Claude Code relinks them', () => {
    const b = session(
      () => ({ trigger: 'auto', preTokens: 2000, preservedMessages: { anchorUuid: 'r9', uuids: ['r5', 'r6', 'r7'] } }),
      (x) => {
        summaryThenCall(x); // r9, r10
        x.prompt('no, count the comment lines instead', { parentUuid: 'r9' }); // r11: r10 abandoned
        x.call(950, [{ type: 'text', text: 'Counting comment lines.' }]); // r12
      },
    );
    const turn = convertText(b.text()).snapshots.at(-1)!;
    expect(ids(turn)).toEqual([SYSTEM_SPAN_ID, 'r9#0', ...kept, 'r11#0']);
    expect(turn.pruned).toEqual(['r10#0']);
  });

  it('preservedSegment alone (earlier 2.1.x): the stretch from its head to its tail stays', () => {
    const b = session(() => ({ trigger: 'auto', preTokens: 2000, preservedSegment: { headUuid: 'r5', anchorUuid: 'r9', tailUuid: 'r7' } }), summaryThenCall);
    const turn = convertText(b.text()).snapshots.at(-1)!;
    expect(ids(turn)).toEqual([SYSTEM_SPAN_ID, 'r9#0', ...kept]);
    expect(turn.pruned).toEqual(before);
  });

  it('anchored to the boundary itself (a compaction of the later part): the kept records come first, then the summary', () => {
    const b = session(
      () => ({ trigger: 'manual', preTokens: 2000, preservedMessages: { anchorUuid: 'r8', uuids: ['r1', 'r2', 'r3', 'r4'] } }),
      summaryThenCall,
    );
    const turn = convertText(b.text()).snapshots.at(-1)!;
    expect(ids(turn)).toEqual([SYSTEM_SPAN_ID, ...before, 'r9#0']);
    expect(turn.pruned).toEqual(kept);
  });

  it('an anchor that never comes: the kept records come back before the next call, as Claude Code adds them at the end', () => {
    const b = session(
      () => ({ trigger: 'auto', preTokens: 2000, preservedMessages: { anchorUuid: 'gone', uuids: ['r5', 'r6', 'r7'] } }),
      (x) => x.call(900, [{ type: 'text', text: 'Carrying on.' }]),
    );
    const turn = convertText(b.text()).snapshots.at(-1)!;
    expect(ids(turn)).toEqual([SYSTEM_SPAN_ID, ...kept]);
    expect(turn.pruned).toEqual(before);
  });

  it('a boundary without them, or naming records not in the context, keeps nothing (as before)', () => {
    const b = session(() => ({ trigger: 'auto', preTokens: 2000, preservedMessages: { anchorUuid: 'r9', uuids: ['elsewhere'] } }), summaryThenCall);
    const turn = convertText(b.text()).snapshots.at(-1)!;
    expect(ids(turn)).toEqual([SYSTEM_SPAN_ID, 'r9#0']);
    expect(turn.pruned).toEqual([...before, ...kept]);
  });
});

describe('Claude Code tool results sent in a shorter form (docs/adapters.md replaced tool results)', () => {
  const big = 'line of the build log\n'.repeat(400);
  const note =
    '<persisted-output>\nOutput too large. Full output saved to: /tmp/tool-results/toolu_1.txt\n\nPreview:\nline of the build log\n</persisted-output>';
  const replacement = (extra: Json = {}): Json => ({
    type: 'content-replacement',
    sessionId: 'kept',
    replacements: [{ kind: 'tool-result', toolUseId: 'toolu_1', replacement: note }],
    ...extra,
  });
  const build = (...records: Json[]): TranscriptBuilder => {
    const b = new TranscriptBuilder('kept');
    b.prompt('why does the build fail?'); // r1
    const run = b.tool('Bash', { command: 'make' });
    b.toolCall(9000, [run], big); // r2, r3
    b.call(9500, [{ type: 'text', text: 'Looking at the log.' }]); // r4
    for (const r of records) b.records.push(r);
    b.call(2500, [{ type: 'text', text: 'The linker step fails.' }]); // r5
    return b;
  };

  it('from the record on, the tool result reads as what Claude Code sent: same id, reported as a rewrite and a microcompaction', () => {
    const r = convertText(build(replacement()).text());
    expect(r.errors).toEqual([]);
    const [, second, third] = r.snapshots;
    expect(second!.spans.find((s) => s.span_id === 'r3#0')!.text).toBe(big);
    const after = third!.spans.find((s) => s.span_id === 'r3#0')!;
    expect(after.text).toBe(note);
    expect(third!.rewrite).toEqual({ spans_modified: 1, scores_invalidated: 1, modified_span_ids: ['r3#0'] });
    expect(third!.compaction).toMatchObject({
      kind: 'microcompact',
      trigger: 'tool result budget',
      pre_tokens: null,
      replaced: ['r3#0'],
      summary: [],
      items: [],
    });
    expect(third!.pruned).toBeUndefined();
    expect(r.summary.skipped).toEqual({});
  });

  it('written again (a resumed session) it changes nothing and is counted; a sub-agent’s, in the session’s file, is counted', () => {
    const again = convertText(build(replacement(), replacement()).text());
    expect(again.snapshots.filter((s) => s.compaction !== undefined)).toHaveLength(1);
    expect(again.summary.skipped).toEqual({ 'content-replacement (no live tool result changed)': 1 });
    const sub = convertText(build(replacement({ agentId: 'a1b2' })).text());
    expect(sub.snapshots.at(-1)!.spans.find((s) => s.span_id === 'r3#0')!.text).toBe(big);
    expect(sub.summary.skipped).toEqual({ 'content-replacement (a sub-agent’s)': 1 });
  });
});

describe('Claude Code kept messages, hostile (docs/security.md "Linear time")', () => {
  const segment = { headUuid: 'r5', anchorUuid: 'none', tailUuid: 'r7' };
  const kept = ['r5#0', 'r6#0', 'r7#0'];

  it(`of the boundaries before a call, the first ${KEEPING_BOUNDARIES_MAX} keep messages; a later one keeps nothing and is counted; a call starts the count again`, () => {
    const many = (boundaries: number): ReturnType<typeof convertText> =>
      convertText(
        session(
          () => ({ trigger: 'auto', preTokens: 2000, preservedSegment: segment }),
          (x) => {
            for (let i = 1; i < boundaries; i++) x.boundary('auto', 2000, { preservedSegment: segment });
            x.call(900, [{ type: 'text', text: 'Carrying on.' }]);
            x.boundary('auto', 900, { preservedSegment: segment });
            x.call(800, [{ type: 'text', text: 'Still going.' }]);
          },
        ).text(),
      );
    const atCap = many(KEEPING_BOUNDARIES_MAX);
    expect(atCap.errors).toEqual([]);
    expect(ids(atCap.snapshots.at(-2)!)).toEqual([SYSTEM_SPAN_ID, ...kept]);
    expect(atCap.summary.skipped).toEqual({});
    // the call in between starts the count again: the boundary after it keeps them
    expect(ids(atCap.snapshots.at(-1)!)).toEqual([SYSTEM_SPAN_ID, ...kept]);
    const past = many(KEEPING_BOUNDARIES_MAX + 1);
    expect(past.errors).toEqual([]);
    expect(ids(past.snapshots.at(-2)!)).toEqual([SYSTEM_SPAN_ID]);
    expect(past.snapshots.at(-2)!.pruned).toEqual(['r1#0', 'r2#0', 'r3#0', 'r4#0', ...kept]);
    expect(ids(past.snapshots.at(-1)!)).toEqual([SYSTEM_SPAN_ID]);
    expect(past.summary.skipped).toEqual({
      [`compact_boundary (kept messages not read: more than ${KEEPING_BOUNDARIES_MAX} boundaries before a call keep some)`]: 1,
    });
  });

  it('a segment of one record, backwards, or naming keys of Object.prototype; a list of one uuid 100,000 times; fields of the wrong type: read, never thrown', () => {
    const last = (meta: Json): Snapshot => {
      const r = convertText(session(() => ({ trigger: 'auto', preTokens: 2000, ...meta }), summaryThenCall).text());
      expect(r.errors).toEqual([]);
      return r.snapshots.at(-1)!;
    };
    expect(ids(last({ preservedSegment: { headUuid: 'r6', tailUuid: 'r6', anchorUuid: 'r9' } }))).toEqual([SYSTEM_SPAN_ID, 'r9#0', 'r6#0']);
    expect(ids(last({ preservedSegment: { headUuid: 'r7', tailUuid: 'r5', anchorUuid: 'r9' } }))).toEqual([SYSTEM_SPAN_ID, 'r9#0']);
    expect(ids(last({ preservedSegment: { headUuid: '__proto__', tailUuid: 'constructor', anchorUuid: 'toString' } }))).toEqual([SYSTEM_SPAN_ID, 'r9#0']);
    expect(ids(last({ preservedMessages: { anchorUuid: 'r9', uuids: new Array(100_000).fill('r6'), allUuids: ['__proto__', 'hasOwnProperty'] } }))).toEqual([
      SYSTEM_SPAN_ID,
      'r9#0',
      'r6#0',
    ]);
    for (const wrong of [null, 7, 'r5', ['r5'], true, { uuids: 'r5' }, { uuids: [5, null, ['r5'], { r5: 1 }] }, { anchorUuid: 9, uuids: ['r5'] }])
      expect(ids(last({ preservedMessages: wrong, preservedSegment: wrong })).slice(0, 2)).toEqual([SYSTEM_SPAN_ID, 'r9#0']);
  });
});

describe('Claude Code replaced tool results, hostile (docs/security.md "Linear time")', () => {
  const replace = (toolUseId: unknown, replacement: unknown, extra: Json = {}): Json => ({
    type: 'content-replacement',
    sessionId: 'kept',
    replacements: [{ kind: 'tool-result', toolUseId, replacement }],
    ...extra,
  });
  const textOf = (s: Snapshot, id: string): string | undefined => s.spans.find((x) => x.span_id === id)?.text;

  it('a result cut by a rewind is not rewritten; the one answering the same id on the new branch is', () => {
    const b = new TranscriptBuilder('kept');
    b.prompt('run the tests'); // r1
    const run = b.tool('Bash', { command: 'npm test' });
    b.toolCall(900, [run], 'first run'); // r2, r3
    b.prompt('no, run them with --bail', { parentUuid: 'r1' }); // r4: r2, r3 abandoned
    b.call(950, [run]); // r5: the same tool_use id again (hostile)
    b.results([run], 'second run'); // r6
    b.records.push(replace(run.id, '<persisted-output>second</persisted-output>'));
    b.call(1000, [{ type: 'text', text: 'Done.' }]); // r7
    const r = convertText(b.text());
    expect(r.errors).toEqual([]);
    const last = r.snapshots.at(-1)!;
    expect(textOf(last, 'r3#0')).toBeUndefined();
    expect(textOf(last, 'r6#0')).toBe('<persisted-output>second</persisted-output>');
    expect(last.rewrite?.modified_span_ids).toEqual(['r6#0']);
  });

  it('a result kept through a compaction is found in the new context', () => {
    const b = new TranscriptBuilder('kept');
    b.prompt('read the log'); // r1
    const read = b.tool('Read', { file_path: '/var/log/build.log' });
    b.toolCall(900, [read], 'a long log'); // r2, r3
    b.boundary('auto', 900, { preservedMessages: { anchorUuid: 'r5', uuids: ['r2', 'r3'] } }); // r4
    b.summary('Summary: the log was read.'); // r5
    b.microcompact([read.id as string], 900); // r6
    b.call(300, [{ type: 'text', text: 'Done.' }]); // r7
    const last = convertText(b.text()).snapshots.at(-1)!;
    expect(last.spans.map((s) => s.span_id)).toEqual([SYSTEM_SPAN_ID, 'r5#0', 'r2#0', 'r3#0']);
    expect(textOf(last, 'r3#0')).toBe('[Old tool result content cleared]');
  });

  it('several results answering one id (never written by Claude Code): the last one is the result rewritten', () => {
    const b = new TranscriptBuilder('kept');
    b.prompt('list the files'); // r1
    const ls = b.tool('Bash', { command: 'ls' });
    b.toolCall(900, [ls], 'a b c'); // r2, r3
    b.results([ls], 'a b c d'); // r4
    b.records.push(replace(ls.id, 'short'));
    b.call(1000, [{ type: 'text', text: 'Four files.' }]); // r5
    const last = convertText(b.text()).snapshots.at(-1)!;
    expect([textOf(last, 'r3#0'), textOf(last, 'r4#0')]).toEqual(['a b c', 'short']);
  });

  it('thousands of records for one result, ids that are keys of Object.prototype, fields of the wrong type: read, counted, never thrown', () => {
    const b = new TranscriptBuilder('kept');
    b.prompt('look around'); // r1
    const uses = ['__proto__', 'constructor', 'toString'].map((id) => ({ type: 'tool_use', id, name: 'Bash', input: { command: id } }));
    b.toolCall(900, uses, 'output'); // r2, r3
    for (let i = 0; i < 5000; i++) b.records.push(replace('__proto__', `note ${i % 2}`));
    b.records.push(replace('constructor', 'ctor note'));
    for (const wrong of [
      { replacements: null },
      { replacements: 'x' },
      {
        replacements: [
          null,
          7,
          'x',
          [],
          { kind: 'tool-result', toolUseId: 7, replacement: 'x' },
          { kind: 'tool-result', toolUseId: 'toString', replacement: 7 },
        ],
      },
      { replacements: [{ kind: ['tool-result'], toolUseId: 'toString', replacement: 'x' }] },
      { replacements: [{ kind: 'tool-result', toolUseId: 'hasOwnProperty', replacement: 'x' }] },
    ])
      b.records.push({ type: 'content-replacement', sessionId: 'kept', ...wrong });
    b.call(1000, [{ type: 'text', text: 'Done.' }]); // r4
    const r = convertText(b.text());
    expect(r.errors).toEqual([]);
    const last = r.snapshots.at(-1)!;
    expect(['r3#0', 'r3#1', 'r3#2'].map((id) => textOf(last, id))).toEqual(['note 1', 'ctor note', 'output']);
    expect(last.rewrite?.modified_span_ids).toEqual(['r3#0', 'r3#1']);
    // rewritten 5,000 times, replaced once
    expect(last.compaction).toMatchObject({ kind: 'microcompact', replaced: ['r3#0', 'r3#1'] });
    expect(r.summary.skipped).toEqual({ 'content-replacement (no live tool result changed)': 5 });
  });
});
