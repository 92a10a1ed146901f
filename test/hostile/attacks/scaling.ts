// The linear-time attacks of issue 39 (docs/security.md "Linear time"), each a function of
// its size n that builds its input, reads it, and returns the work counted: records read
// plus the context items the adapter looked at (an operation counter, not wall time).
// test/hostile/scaling.test.ts asserts each grows at most as n^1.2 from n to 4n;
// `npm run bench -- scaling` prints the exponents of counted work and of time.
import { CompactionAuditor } from '../../../src/core/compactionAudit.ts';
import { CodexAdapter } from '../../../src/ingest/adapters/codex.ts';
import { ClaudeCodeAdapter } from '../../../src/ingest/adapters/claudeCode.ts';
import { ccUser, codexAssistant, codexLine, codexMeta, codexUser } from './transcripts.ts';

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

function readClaudeCode(lines: Iterable<string>): number {
  const adapter = new ClaudeCodeAdapter('scaling');
  let records = 0;
  for (const l of lines) adapter.record(JSON.parse(l) as unknown, ++records);
  adapter.end();
  return records + adapter.work;
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
