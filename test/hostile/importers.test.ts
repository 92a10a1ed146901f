// Issue 39 #1: no record ends a read. A record nesting 100k deep (in a tool_use input, a
// Codex local_shell_call action, or inside a stringified field an adapter parses), one
// record of 300k content blocks, or a compaction boundary after 200k blocks: each is at
// most one input error for its line, and the lines after it are read (docs/security.md
// "Importers"). The pipeline is the one check and the dashboard's Worker both use.
import { describe, expect, it } from 'vitest';
import { TranscriptPipeline } from '../../src/ingest/adapters/pipeline.ts';
import { MAX_NESTING } from '../../src/core/nesting.ts';
import {
  ccAssistant,
  ccCompactBoundary,
  ccToolUseLine,
  ccUser,
  codexAssistant,
  codexCall,
  codexLine,
  codexMeta,
  codexUser,
  nestedArrays,
  textBlocks,
} from './attacks/transcripts.ts';

interface Read {
  snapshots: { turn: number; spans: number; pruned?: number }[];
  errors: { line: number; message: string }[];
}

function read(lines: string[]): Read {
  const out: Read = { snapshots: [], errors: [] };
  const pipeline = new TranscriptPipeline({
    text: () => {},
    value: (v) => {
      const m = v as { type: string; turn?: number; spans?: unknown[]; pruned?: unknown[] };
      if (m.type === 'snapshot') out.snapshots.push({ turn: m.turn!, spans: m.spans!.length, ...(m.pruned === undefined ? {} : { pruned: m.pruned.length }) });
    },
    error: (line, message) => out.errors.push({ line, message }),
  });
  lines.forEach((l, i) => pipeline.line(l, i + 1));
  pipeline.end();
  return out;
}

const DEEP = nestedArrays(100_000);

describe('a record nested 100k deep is one input error; the rest is read', () => {
  it('Claude Code: a tool_use input', () => {
    const r = read([ccUser('u1', null, 'fix it'), ccToolUseLine('a1', 'u1', DEEP), ccAssistant('a2', 'u1', [{ type: 'text', text: 'done' }])]);
    expect(r.errors).toEqual([
      { line: 2, message: expect.stringMatching(new RegExp(`the record nests arrays and objects more than ${MAX_NESTING} levels deep`)) },
    ]);
    expect(r.snapshots.length).toBe(1);
  });

  it('Codex: a local_shell_call action and a function_call whose arguments string nests 100k deep', () => {
    const shell = codexLine('response_item', {
      type: 'local_shell_call',
      call_id: 'c1',
      status: 'completed',
      action: { type: 'exec', command: '__X__' },
    }).replace('"__X__"', DEEP);
    const call = codexLine('response_item', { type: 'function_call', name: 'shell', call_id: 'c2', arguments: DEEP });
    const fine = codexLine('response_item', { type: 'function_call', name: 'shell', call_id: 'c3', arguments: '{"command":["bash","-lc","ls"]}' });
    const r = read([codexMeta(), codexUser('list the files'), shell, call, fine, codexCall(100, 100), codexAssistant('done'), codexCall(120, 220)]);
    expect(r.errors.map((e) => e.line)).toEqual([3, 4]);
    expect(r.errors[0]!.message).toMatch(/^the record nests arrays and objects more than 64 levels deep/);
    expect(r.errors[1]!.message).toMatch(/^the function call's "arguments" nests arrays and objects more than 64 levels deep/);
    expect(r.snapshots.length).toBeGreaterThan(0);
  });

  it('SWE-agent: a history message with a field nested 100k deep is read (the adapter reads fixed, shallow fields)', () => {
    const doc = `{"history":[{"role":"system","agent":"main","content":"s"},{"role":"user","agent":"main","content":"task"},{"role":"assistant","agent":"main","content":"a","extra":${DEEP}}],"trajectory":[]}`;
    const r = read(['{', doc.slice(1)]);
    expect(r.errors).toEqual([]);
    expect(r.snapshots.map((x) => x.spans)).toEqual([2]);
  });
});

describe('wide records: no argument spread overflows the stack', () => {
  it('Claude Code: one record of 300k blocks, and a compact boundary after 200k more, are analysed', () => {
    const r = read([
      ccUser('u1', null, 'fix it'),
      ccAssistant('a1', 'u1', textBlocks(300_000)),
      ccUser('u2', 'a1', textBlocks(200_000, 'r')),
      ccCompactBoundary('c1', 'u2'),
      ccUser('u3', 'c1', 'This session is being continued from a previous conversation. Summary: fixed.', { isCompactSummary: true }),
      ccAssistant('a2', 'u3', [{ type: 'text', text: 'ok' }]),
    ]);
    expect(r.errors).toEqual([]);
    expect(r.snapshots.map((s) => s.turn)).toEqual([1, 2]);
    // the boundary replaced the 500k blocks: the next call prunes every one of them
    expect(r.snapshots[1]!.pruned).toBeGreaterThan(500_000);
  }, 60_000);
});
