// Issue 39: `--threads` is capped by the cores and the memory, saying so; `report
// --compaction N` takes digits only (docs/security.md "Threads", "report").
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { capThreads, THREAD_BUDGET_BYTES } from '../../src/cli/threads.ts';
import { ROOT, runCli } from '../cli/runCli.ts';

describe('--threads is capped', () => {
  it('by the cores, saying so', () => {
    const notes: string[] = [];
    expect(capThreads(256, (l) => notes.push(l), 4, 64 * THREAD_BUDGET_BYTES)).toBe(4);
    expect(notes).toEqual(['context-health: --threads 256 capped to 4 (4 cores)']);
  });
  it('by a quarter of the free memory, saying so', () => {
    const notes: string[] = [];
    expect(capThreads(16, (l) => notes.push(l), 32, 12 * THREAD_BUDGET_BYTES)).toBe(3);
    expect(notes).toEqual(['context-health: --threads 16 capped to 3 (free memory for 3 (64 MiB a thread))']);
  });
  it('not at all when it fits, and never below one', () => {
    const notes: string[] = [];
    expect(capThreads(2, (l) => notes.push(l), 4, 64 * THREAD_BUDGET_BYTES)).toBe(2);
    expect(capThreads(2, (l) => notes.push(l), 4, 0)).toBe(1);
    expect(notes).toHaveLength(1);
  });
});

describe('report --compaction N takes a whole number in digits', () => {
  const FIXTURE = path.join(ROOT, 'test/fixtures/adapters/claude-code.jsonl');
  it('"0x2", "2.0", "1e0" and " 2" (Number() read them as 2, 2, 1 and 2) are refused, as 0 and -1 are', async () => {
    for (const bad of ['0x2', '2.0', '1e0', ' 2', '0', '-1', '99999999999999999999']) {
      const r = await runCli(['report', FIXTURE, `--compaction=${bad}`, '--out', '/nonexistent-never-written']);
      expect(r.code, bad).toBe(2);
      expect(r.stderr, bad).toMatch(/--compaction expects a whole number ≥ 1/);
    }
  }, 120_000);
});
