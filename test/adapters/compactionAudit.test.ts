// contract §8 on a Claude Code session as `check` reads it: each compaction once, its audit
// item by item (every rule and edge of §8.4), refetches, confirmed losses, repeated
// compactions, a compaction with no summary, a microcompaction, and the scope (§8.1).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkTranscript } from '../../src/cli/check.ts';
import type { CompactionRecord, RecordItem } from '../../src/core/compactions.ts';
import type { SessionOutput } from '../../src/core/checkOutput.ts';
import { TranscriptBuilder } from './claudeCodeTranscript.ts';

const P1 = 'Refactor the Store module so writes are batched, and keep the public API unchanged.';
const P2 = 'Also   add a   TEST for the flush path';
const P3 = 'Use a queue of at most 64 entries for pending writes';
const SUMMARY =
  'This session is being continued from a previous conversation. The user asked to refactor the store module (store.ts) so that writes are batched. radio.tsx was inspected. The user said: also add a test for the flush path. Pending writes go to a queue of at most 64 entries. Pending: batch writes.';

function scenario(): TranscriptBuilder {
  const b = new TranscriptBuilder();
  b.prompt(P1);
  const reads = [
    b.tool('Read', { file_path: '/repo/src/Store.ts' }),
    b.tool('Read', { file_path: '/repo/lib/io.ts' }),
    b.tool('Read', { file_path: '/repo/docs/notes.md' }),
  ];
  b.toolCall(1000, reads); // turn 1
  b.prompt('<command-name>/cost</command-name>\n<command-message>cost</command-message>');
  b.prompt('[Request interrupted by user]');
  b.prompt('Caveat: this is meta', { isMeta: true });
  b.prompt(P2);
  b.prompt([{ type: 'text', text: P3 }]);
  const work = [
    b.tool('Edit', { file_path: '/repo/src/Store.ts', old_string: 'a', new_string: 'b' }),
    b.tool('Bash', { command: 'npm test' }),
    b.tool('TodoWrite', {
      todos: [
        { content: 'batch writes', status: 'in_progress' },
        { content: 'update docs', status: 'completed' },
      ],
    }),
  ];
  b.toolCall(2000, work); // turn 2
  // a sub-agent's read is not the main chain
  b.records.push({
    type: 'assistant',
    uuid: 'side1',
    sessionId: b.sessionId,
    isSidechain: true,
    requestId: 'req_side',
    message: { role: 'assistant', content: [b.tool('Read', { file_path: '/repo/secret.ts' })], usage: { input_tokens: 5 } },
  });
  b.call(3000, [{ type: 'text', text: 'done for now' }]); // turn 3
  b.boundary('auto', 3100);
  b.summary(SUMMARY);
  const again = [b.tool('Read', { file_path: '/repo/docs/notes.md' }), b.tool('Read', { file_path: '/repo/lib/io.ts' })];
  b.toolCall(800, again); // turn 4: compaction 1 takes effect; notes.md (lost) and io.ts (kept) read again
  b.toolCall(900, [b.tool('Edit', { file_path: '/repo/src/Store.ts', old_string: 'b', new_string: 'c' })]); // turn 5: an Edit is no refetch
  b.prompt('Please refactor the Store module so writes are batched and keep the public API unchanged');
  b.call(1000, [{ type: 'text', text: 'on it' }]); // turn 6: P1 restated
  b.microcompact([again[0]!.id as string, again[1]!.id as string], 1050);
  b.toolCall(700, [b.tool('Read', { file_path: '/repo/src/new.ts' })]); // turn 7: the microcompaction
  b.boundary('manual', 1200);
  b.call(300, [{ type: 'text', text: 'continuing' }]); // turn 8: compaction 2, no summary
  return b;
}

let session: SessionOutput;
let records: CompactionRecord[];

beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-audit-'));
  const file = path.join(dir, 'session.jsonl');
  fs.writeFileSync(file, scenario().text());
  const { report } = await checkTranscript(file, { userThresholds: {} });
  session = report.sessions[0]!;
  records = session.compactions ?? [];
});

const item = (r: CompactionRecord, kind: string, text: string): RecordItem | undefined => r.items.find((i) => i.kind === kind && i.text === text);

describe('contract §8.3: one record per compaction, with the exact token figures', () => {
  it('three records: the compaction, the microcompaction, the compaction with no summary', () => {
    expect(records.map((r) => [r.turn, r.kind, r.trigger])).toEqual([
      [4, 'compact', 'auto'],
      [7, 'microcompact', 'auto'],
      [8, 'compact', 'manual'],
    ]);
    expect(records.map((r) => [r.tokens_before, r.tokens_after, r.agent_tokens_before])).toEqual(
      [
        [3000, 800],
        [1000, 700],
        [700, 300],
      ].map(([a, b], i) => [a, b, [3100, 1050, 1200][i]]),
    );
  });

  it('the compaction finding fires once per compaction, at the turn it takes effect; nothing warns on turn 1; nothing is a fault', () => {
    expect(session.findings.filter((f) => f.signal === 'compaction').map((f) => f.turn)).toEqual([4, 7, 8]);
    expect(session.findings.filter((f) => f.turn === 1)).toEqual([]);
    expect(session.findings.filter((f) => f.severity === 'fault')).toEqual([]);
    expect(session.verdicts.every((v) => v.action === 'prune_ok')).toBe(true);
  });

  it('the record holds the summary, what it replaced, and no summary when there is none', () => {
    const [first, micro, second] = records;
    expect(first!.summary_text).toBe(SUMMARY);
    expect(first!.summary_span_ids).toHaveLength(1);
    expect(first!.spans_replaced).toBeGreaterThan(8);
    expect(second!.summary_span_ids).toEqual([]);
    expect(second!.summary_text).toBe('');
    // a microcompaction clears in place: no items, and it does not end the stretch
    expect(micro!.items).toEqual([]);
    expect(micro!.spans_replaced).toBe(2);
  });
});

describe('contract §8.4 file items', () => {
  it('one item per distinct path of Read/Edit/MultiEdit/Write/NotebookEdit on the main chain, in the stretch', () => {
    const files = records[0]!.items.filter((i) => i.kind === 'file').map((i) => i.text);
    expect(files).toEqual(['/repo/src/Store.ts', '/repo/lib/io.ts', '/repo/docs/notes.md']);
  });

  it('lost iff the basename is no case-sensitive substring of the surviving text (inside a longer word counts)', () => {
    const r = records[0]!;
    expect(item(r, 'file', '/repo/src/Store.ts')!.status).toBe('lost'); // the summary says store.ts
    expect(item(r, 'file', '/repo/lib/io.ts')!.status).toBe('kept'); // only inside "radio.tsx"
    expect(item(r, 'file', '/repo/docs/notes.md')!.status).toBe('lost');
  });

  it('refetched_at is the turn of the first Read after the compaction (an Edit is not one); a lost one read again is confirmed', () => {
    const r = records[0]!;
    expect(item(r, 'file', '/repo/docs/notes.md')).toMatchObject({ refetched_at: 4, confirmed: true, from_turn: 1 });
    expect(item(r, 'file', '/repo/lib/io.ts')).toMatchObject({ refetched_at: 4, confirmed: false });
    expect(item(r, 'file', '/repo/src/Store.ts')).toMatchObject({ refetched_at: null, confirmed: false });
    expect(r.retention.file).toEqual({ items: 3, kept: 1, paraphrased: 0, lost: 2, confirmed: 1 });
  });

  it('the stretch of the second compaction runs from the first, across the microcompaction', () => {
    const files = records[2]!.items.filter((i) => i.kind === 'file').map((i) => i.text);
    expect(files).toEqual(['/repo/docs/notes.md', '/repo/lib/io.ts', '/repo/src/Store.ts', '/repo/src/new.ts']);
    expect(records[2]!.items.every((i) => i.status === 'lost')).toBe(true);
  });
});

describe('contract §8.4 user_prompt items', () => {
  it('one per prompt the user wrote: wrappers, interruptions and meta records are not prompts', () => {
    expect(records[0]!.items.filter((i) => i.kind === 'user_prompt').map((i) => i.text)).toEqual([P1, P2, P3]);
  });

  it('kept when verbatim (white space collapsed, any case); paraphrased by word coverage; else lost', () => {
    const r = records[0]!;
    expect(item(r, 'user_prompt', P2)!.status).toBe('kept');
    expect(item(r, 'user_prompt', P3)!.status).toBe('paraphrased');
    expect(item(r, 'user_prompt', P1)!.status).toBe('lost');
  });

  it('a prompt the user has to restate is refetched at the call that saw it, a confirmed loss', () => {
    expect(item(records[0]!, 'user_prompt', P1)).toMatchObject({ refetched_at: 6, confirmed: true });
  });
});

describe('contract §8.4 other kinds, and decay across compactions', () => {
  it('the pending items of the last todo list and the commands run are items too', () => {
    const r = records[0]!;
    expect(item(r, 'todo', 'batch writes')!.status).toBe('kept');
    expect(item(r, 'todo', 'update docs')).toBeUndefined();
    expect(item(r, 'command', 'npm test')!.status).toBe('lost');
  });

  it('what the first compaction kept is judged again at the second (paraphrase of a paraphrase)', () => {
    const carried = records[2]!.carried.map((c) => [c.kind, c.text, c.status, c.first_audited_at]);
    expect(carried).toEqual([
      ['user_prompt', P2, 'lost', 4],
      ['user_prompt', P3, 'lost', 4],
      ['todo', 'batch writes', 'lost', 4],
    ]);
  });
});

describe('contract §8.5–§8.6 signals and §8.1 scope', () => {
  it('compaction_loss once per compaction, at the first turn that reports a confirmed loss', () => {
    const losses = session.findings.filter((f) => f.signal === 'compaction_loss');
    expect(losses.map((f) => [f.turn, f.severity])).toEqual([[5, 'warning']]);
    expect(losses[0]!.message).toMatch(/turn 4/);
    expect(losses[0]!.message).toMatch(/notes\.md/);
  });

  it('names the detectors that do not apply, once, with the reason', () => {
    expect(Object.keys(session.not_applicable ?? {})).toContain('stale_score');
    expect(Object.keys(session.not_applicable ?? {})).toContain('canary_inversion');
    expect(Object.keys(session.not_applicable ?? {})).not.toContain('orphaned_parent');
    expect(session.not_applicable!.spread_collapse).toMatch(/seed 002/);
  });

  it('compaction_loss_min raises the bar', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-audit-'));
    const file = path.join(dir, 's.jsonl');
    fs.writeFileSync(file, scenario().text());
    const two = (await checkTranscript(file, { userThresholds: { compaction_loss_min: 2 } })).report.sessions[0]!;
    // the second confirmed loss (the restated prompt) comes at turn 6
    expect(two.findings.filter((f) => f.signal === 'compaction_loss').map((f) => f.turn)).toEqual([6]);
    const three = (await checkTranscript(file, { userThresholds: { compaction_loss_min: 3 } })).report.sessions[0]!;
    expect(three.findings.filter((f) => f.signal === 'compaction_loss')).toEqual([]);
  });
});

describe('real transcripts repeat records', () => {
  it('a compact boundary read twice (a resumed session repeats records) is still one compaction', async () => {
    const b = scenario();
    const at = b.records.findIndex((r) => r.subtype === 'compact_boundary');
    b.records.splice(at + 1, 0, { ...b.records[at]! });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-audit-'));
    const file = path.join(dir, 's.jsonl');
    fs.writeFileSync(file, b.text());
    const s = (await checkTranscript(file, { userThresholds: {} })).report.sessions[0]!;
    expect(s.compactions?.map((r) => r.turn)).toEqual([4, 7, 8]);
    expect(s.compactions?.[0]?.items).toEqual(records[0]!.items);
  });
});
