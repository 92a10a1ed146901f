// The linear-time attacks of issue 39 (docs/security.md "Linear time"), each a function of
// its size n that builds its input, reads it, and returns the work counted: records read
// plus the context items the adapter looked at (an operation counter, not wall time).
// test/hostile/scaling.test.ts asserts each grows at most as n^1.2 from n to 4n;
// `npm run bench -- scaling` prints the exponents of counted work and of time.
import { createHash } from 'node:crypto';
import { CompactionAuditor } from '../../../src/core/compactionAudit.ts';
import { Engine } from '../../../src/core/engine.ts';
import { CodexAdapter } from '../../../src/ingest/adapters/codex.ts';
import { GeminiAdapter } from '../../../src/ingest/adapters/gemini.ts';
import { contextSummary } from '../../../src/server/analysis/sessionEngine.ts';
import { ClaudeCodeAdapter } from '../../../src/ingest/adapters/claudeCode.ts';
import { HistoryCalls } from '../../../src/ingest/adapters/sweAgentHistory.ts';
import { SpanMaker } from '../../../src/ingest/adapters/sweAgentSpans.ts';
import { SkippedRecords } from '../../../src/ingest/adapters/skipped.ts';
import {
  ccAssistant,
  ccCompactBoundary,
  ccContentReplacement,
  ccMicrocompact,
  ccToolResult,
  ccUser,
  codexAssistant,
  codexLine,
  codexMeta,
  codexUser,
} from './transcripts.ts';

export interface ScalingCase {
  name: string;
  /** the size the test starts at (the bench uses larger) */
  n: number;
  /** reads the attack of size n; returns the work counted */
  run(n: number): number;
}

function readCodex(lines: Iterable<string>): number {
  const adapter = new CodexAdapter('scaling');
  let records = 0;
  for (const l of lines) {
    adapter.record(JSON.parse(l) as unknown, ++records);
  }
  return records + adapter.work;
}

/**
 * A refetch storm (issue 39): a compaction of n lost files, then the agent goes back for every
 * one, in one snapshot (`perTurn` false: one POST to the relay) or one a turn. The lines a
 * relay takes; refetchStorm() reads them as the relay's analysis does.
 */
export function refetchStormLines(n: number, perTurn: boolean): string[] {
  const span = (id: string, text: string): Record<string, unknown> => ({ span_id: id, text, score: null, text_sha256: null });
  const out = [JSON.stringify({ type: 'session', session_id: 'storm', source: 'claude-code', scores: 'reference' })];
  out.push(JSON.stringify({ type: 'snapshot', session_id: 'storm', turn: 1, spans: [span('a', 'read every file')] }));
  const items = [];
  const refetched = [];
  for (let i = 0; i < n; i++) {
    items.push({ kind: 'file', text: `/repo/src/f${i}.ts`, status: 'lost', from_turn: 1, span_id: null });
    refetched.push({ compaction_turn: 2, kind: 'file', text: `/repo/src/f${i}.ts`, turn: 2 });
  }
  const compaction = { kind: 'compact', trigger: 'auto', replaced: ['a'], summary: ['b'], items, carried: [] };
  const summary = [span('b', 'summary: nothing of the files')];
  out.push(JSON.stringify({ type: 'snapshot', session_id: 'storm', turn: 2, spans: summary, pruned: ['a'], compaction, ...(perTurn ? {} : { refetched }) }));
  if (perTurn)
    for (let i = 0; i < n; i++)
      out.push(JSON.stringify({ type: 'snapshot', session_id: 'storm', turn: 3 + i, spans: summary, refetched: [{ ...refetched[i], turn: 3 + i }] }));
  return out;
}

/** the storm read as the relay's analysis reads it: each turn analysed, and its overview row's headline worded */
function refetchStorm(n: number, perTurn: boolean): number {
  const engine = new Engine({ sha256: (t) => createHash('sha256').update(t).digest('hex') });
  const lines = refetchStormLines(n, perTurn);
  lines.forEach((l, i) => {
    const o = engine.ingestLine(l, i + 1);
    if (o.kind === 'error') throw new Error(o.error.message);
    if (o.kind === 'turn') contextSummary(engine, o.result);
  });
  return lines.length + engine.analysis('storm')!.compactions.steps;
}

function readGemini(records: Iterable<unknown>): number {
  const adapter = new GeminiAdapter('scaling');
  let n = 0;
  for (const r of records) adapter.record(r, ++n);
  return n + adapter.work;
}

function readClaudeCode(lines: Iterable<string>): number {
  const adapter = new ClaudeCodeAdapter('scaling');
  let records = 0;
  for (const l of lines) adapter.record(JSON.parse(l) as unknown, ++records);
  adapter.end();
  return records + adapter.work;
}

/**
 * A SWE-agent history of n messages (n/2 model calls) read as the adapter reads it: each
 * message made a span once (SpanMaker.span counted) and each call's snapshot taken and let go
 * before the next message is read. The snapshots' copies of the window are the wire format's
 * (n²/8 spans in all, so the bench's time grows as n²), never held together: the work counted
 * is the messages, the spans made, and the largest snapshot held.
 */
function sweAgentHistory(n: number): number {
  const made = SpanMaker.prototype.span;
  let spans = 0;
  SpanMaker.prototype.span = function (this: SpanMaker, m, id) {
    spans++;
    return made.call(this, m, id);
  };
  try {
    const calls = new HistoryCalls('scaling', new SkippedRecords());
    let largest = 0;
    const message = (role: string, i: number) => ({
      role,
      content: `${role} ${i}`,
      agent: 'main',
      message_type: role === 'assistant' ? 'action' : 'observation',
    });
    for (const snap of calls.message({ role: 'system', content: 'system', agent: 'main', message_type: 'system_prompt' }))
      largest = Math.max(largest, snap.spans.length);
    for (let i = 1; i < n; i++) for (const snap of calls.message(message(i % 2 ? 'user' : 'assistant', i))) largest = Math.max(largest, snap.spans.length);
    return n + spans + largest;
  } finally {
    SpanMaker.prototype.span = made;
  }
}

const rollback = (turns: number): string => codexLine('event_msg', { type: 'thread_rolled_back', num_turns: turns });

export const SCALING_CASES: ScalingCase[] = [
  {
    name: 'Codex thread_rolled_back {num_turns: 0}, n times after n items',
    n: 2000,
    run: (n) =>
      readCodex(
        (function* () {
          yield codexMeta();
          for (let i = 0; i < n; i++) yield codexUser(`prompt ${i}`);
          for (let i = 0; i < n; i++) yield rollback(0);
        })(),
      ),
  },
  {
    name: 'Codex rollbacks of 5 turns with one prompt, after n items that are not prompts',
    n: 2000,
    run: (n) =>
      readCodex(
        (function* () {
          yield codexMeta();
          for (let i = 0; i < n; i++) yield codexAssistant(`note ${i}`);
          for (let i = 0; i < n; i++) {
            yield codexUser(`prompt ${i}`);
            yield rollback(5);
          }
        })(),
      ),
  },
  {
    name: 'Codex: n prompts, then n rollbacks of one turn each (the audit forgets each prompt)',
    n: 2000,
    run: (n) =>
      readCodex(
        (function* () {
          yield codexMeta();
          for (let i = 0; i < n; i++) yield codexUser(`prompt ${i}`);
          for (let i = 0; i < n; i++) yield rollback(1);
        })(),
      ),
  },
  {
    name: 'Codex compaction: a replacement_history of n items against n live ones',
    n: 2000,
    run: (n) =>
      readCodex(
        (function* () {
          yield codexMeta();
          for (let i = 0; i < n; i++) yield codexUser(`prompt ${i}`);
          const history = [];
          for (let i = n - 1; i >= 0; i--) history.push({ type: 'message', role: 'user', content: [{ type: 'input_text', text: `prompt ${i}` }] });
          yield codexLine('compacted', { message: 'summary', replacement_history: history });
        })(),
      ),
  },
  {
    name: 'audit: n file reads and n prompts judged against an n-line summary',
    n: 2000,
    run: (n) => {
      const audit = new CompactionAuditor();
      for (let i = 0; i < n; i++) {
        audit.add('file', `/repo/src/module${i}.ts`, 1, `r${i}`);
        audit.add('user_prompt', `please fix the bug number ${i} in the parser`, 1, `p${i}`);
      }
      audit.compact();
      const lines: string[] = [];
      for (let i = 0; i < n; i += 2) lines.push(`Read module${i}.ts and fixed the bug number ${i} in the parser.`);
      const { items } = audit.judge(2, lines.join('\n'));
      return items.length + audit.scanned;
    },
  },
  {
    name: 'audit: n prompts watched after a compaction, n prompts written, every other one restating one',
    n: 2000,
    run: (n) => {
      const audit = new CompactionAuditor();
      for (let i = 0; i < n; i++) audit.add('user_prompt', `fix parser${i} and lexer${i}, then run the tests`, 1, `p${i}`);
      audit.compact();
      audit.judge(2, 'summary: the parsers and lexers have bugs');
      // even: the prompt again (verbatim); odd: two of its four words, short of the 70% that restates
      for (let i = 0; i < n; i++)
        audit.promptWritten(i % 2 === 0 ? `Again: fix parser${i} and  lexer${i}, then run the tests!` : `the tests of parser${i} fail`, 3 + i);
      const refetched = audit.takeRefetches().length;
      if (refetched !== n / 2) throw new Error(`${refetched} prompts restated, not ${n / 2}`);
      return 2 * n + refetched + audit.scanned;
    },
  },
  {
    name: 'audit: a refetch storm, n lost files gone back for one a turn (the relay’s analysis and headline)',
    n: 2000,
    run: (n) => refetchStorm(n, true),
  },
  {
    name: 'audit: a refetch storm, n lost files gone back for in one snapshot (one POST to the relay)',
    n: 2000,
    run: (n) => refetchStorm(n, false),
  },
  {
    name: 'Claude Code: a chain of n prompts, then n rewinds, each editing the last of them',
    n: 2000,
    run: (n) =>
      readClaudeCode(
        (function* () {
          for (let i = 0; i < n; i++) yield ccUser(`u${i}`, i === 0 ? null : `u${i - 1}`, `prompt ${i}`);
          for (let i = 0; i < n; i++) yield ccUser(`e${i}`, `u${n - 2}`, `prompt ${n - 1}, edited ${i} times`);
        })(),
      ),
  },
  {
    name: 'Claude Code: n prompts, then n compact boundaries before a call, each keeping them all (preservedSegment: two uuids)',
    n: 2000,
    run: (n) =>
      readClaudeCode(
        (function* () {
          for (let i = 0; i < n; i++) yield ccUser(`u${i}`, i === 0 ? null : `u${i - 1}`, `prompt ${i}`);
          const segment = { headUuid: 'u0', tailUuid: `u${n - 1}`, anchorUuid: 'never written' };
          for (let i = 0; i < n; i++) yield ccCompactBoundary(`b${i}`, `u${n - 1}`, { preservedSegment: segment });
          yield ccAssistant('a', `u${n - 1}`, [{ type: 'text', text: 'done' }]);
        })(),
      ),
  },
  {
    name: 'Claude Code: n prompts, then n compact boundaries before a call (each replaces nothing more)',
    n: 2000,
    run: (n) =>
      readClaudeCode(
        (function* () {
          for (let i = 0; i < n; i++) yield ccUser(`u${i}`, i === 0 ? null : `u${i - 1}`, `prompt ${i}`);
          for (let i = 0; i < n; i++) yield ccCompactBoundary(`b${i}`, `u${n - 1}`);
          yield ccAssistant('a', `u${n - 1}`, [{ type: 'text', text: 'done' }]);
        })(),
      ),
  },
  {
    name: 'Claude Code: n tool results, then n content-replacement records, one result each',
    n: 2000,
    run: (n) =>
      readClaudeCode(
        (function* () {
          yield ccUser('p', null, 'read them all');
          for (let i = 0; i < n; i++) yield ccToolResult(`u${i}`, i === 0 ? 'p' : `u${i - 1}`, `t${i}`, `result ${i}`);
          for (let i = 0; i < n; i++) yield ccContentReplacement(`t${i}`, `<persisted-output>${i}</persisted-output>`);
          yield ccAssistant('a', `u${n - 1}`, [{ type: 'text', text: 'done' }]);
        })(),
      ),
  },
  {
    name: 'Claude Code: n tool results, then n microcompact boundaries, one result each',
    n: 2000,
    run: (n) =>
      readClaudeCode(
        (function* () {
          yield ccUser('p', null, 'read them all');
          for (let i = 0; i < n; i++) yield ccToolResult(`u${i}`, i === 0 ? 'p' : `u${i - 1}`, `t${i}`, `result ${i}`);
          for (let i = 0; i < n; i++) yield ccMicrocompact(`m${i}`, [`t${i}`]);
          yield ccAssistant('a', `u${n - 1}`, [{ type: 'text', text: 'done' }]);
        })(),
      ),
  },
  {
    name: 'Gemini CLI: n messages, then n times a message and a $rewindTo it',
    n: 2000,
    run: (n) =>
      readGemini(
        (function* () {
          yield { sessionId: 'scaling', projectHash: 'h' };
          for (let i = 0; i < n; i++) yield { id: `m${i}`, type: 'user', content: [{ text: `prompt ${i}` }] };
          for (let i = 0; i < n; i++) {
            yield { id: `x${i}`, type: 'user', content: [{ text: 'again' }] };
            yield { $rewindTo: `x${i}` };
          }
        })(),
      ),
  },
  {
    name: 'Gemini CLI: n compressions before a call, each a checkpoint of one new summary',
    n: 2000,
    run: (n) =>
      readGemini(
        (function* () {
          yield { sessionId: 'scaling', projectHash: 'h' };
          yield { id: 'm', type: 'user', content: [{ text: 'start' }] };
          for (let i = 0; i < n; i++) yield { $set: { messages: [{ id: `s${i}`, type: 'user', content: [{ text: `<state_snapshot>${i}` }] }] } };
          yield { id: 'g', type: 'gemini', content: [{ text: 'done' }], tokens: { input: 10 } };
        })(),
      ),
  },
  {
    name: 'SWE-agent history: n messages, a model call at every other one (spans made, and the largest snapshot held)',
    // small: the snapshots' copies (the wire format's, n²/8 spans) are the time, not the work
    n: 500,
    run: sweAgentHistory,
  },
  {
    // the audit follows 50 items here instead of its 1,000 (CARRIED_MAX), so that n is well past
    // the cap at a test's size; compactionCarried.test.ts holds the adapter to the 1,000
    name: 'audit: n compactions, each keeping every earlier item (followed: at most 50, the rest counted)',
    n: 2000,
    run: (n) => {
      const audit = new CompactionAuditor(50);
      let work = 0;
      for (let i = 0; i < n; i++) {
        audit.add('file', `/s${i}/x`, i + 1, `t${i}`);
        audit.compact();
        const { items, carried } = audit.judge(i + 2, 'x');
        work += items.length + carried.length;
        // bounded memory: the items held from one compaction to the next
        if (audit.followed > 50) throw new Error(`the audit follows ${audit.followed} items, past its 50`);
      }
      return work + audit.scanned;
    },
  },
];

/** log2 of the work's growth from n to 4n, halved: the exponent k of work ∝ n^k. */
export function growthExponent(c: ScalingCase, n = c.n): { exponent: number; work: number[] } {
  const work = [n, 2 * n, 4 * n].map((size) => c.run(size));
  return { exponent: Math.log2(work[2]! / work[0]!) / 2, work };
}
