// Issue 39, the new doors: `context-health hook` attacked (docs/hooks.md "Never in the way",
// docs/security.md "The hook"). A hostile transcript_path, a malformed event, a record no
// walk survives, a huge transcript: the hook exits 0 with one bounded line on stderr and
// nothing on stdout, or hands back what it can. Inputs are generated here.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditTranscript, HOOK_TIME_BUDGET_MS } from '../../src/cli/hook/auditTranscript.ts';
import { runCli } from '../cli/runCli.ts';
import { sessionStartEvent } from '../hook/hookOutput.ts';
import { buildSession } from '../hook/sessions.ts';
import { tempDir } from '../relay/helpers.ts';
import { ccAssistant, ccCompactBoundary, ccToolUseLine, ccUser, nestedArrays, textBlocks } from './attacks/transcripts.ts';

/** The run ends as the hook must end on bad input: exit 0, nothing handed back, one short stderr line. */
function quietRefusal(r: { code: number | null; stdout: string; stderr: string }, why: RegExp, label: string): void {
  expect(r.code, label).toBe(0);
  expect(r.stdout, label).toBe('');
  const lines = r.stderr.trim().split('\n');
  expect(lines, label).toHaveLength(1);
  expect(lines[0]!.length, label).toBeLessThan(600);
  expect(lines[0], label).toMatch(why);
}

const compacted = (middle: string[]): string =>
  [
    ccUser('u0', null, 'Keep the public API unchanged while fixing the cookie bug'),
    ...middle,
    ccCompactBoundary('cb', 'a0'),
    ccUser('sum', 'cb', 'Summary: the cookie bug.', { isCompactSummary: true }),
  ].join('\n') + '\n';

describe('a hostile transcript_path', () => {
  it('a huge path, a NUL byte, a secret reached through a linked folder: refused in one short line, exit 0', async () => {
    const dir = tempDir('ch-hook-');
    const secretDir = tempDir('ch-secret-');
    fs.writeFileSync(path.join(secretDir, 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n');
    fs.symlinkSync(secretDir, path.join(dir, 'linked'));
    const cases: [string, RegExp][] = [
      ['/tmp/' + 'a'.repeat(300_000) + '.jsonl', /is longer than 4096 bytes: not a path to open$/],
      ['/tmp/x\u0000.jsonl', /holds a NUL byte: not a path to open$/],
      [path.join(dir, 'linked', 'id_rsa'), /id_rsa is not a \.jsonl file: not read$/],
      [path.join(dir, 'a'.repeat(300) + '.jsonl'), /cannot open .*… \(\d+ characters\): ENAMETOOLONG$/],
    ];
    for (const [p, why] of cases) {
      const r = await runCli(['hook'], { stdin: sessionStartEvent('compact', p) });
      quietRefusal(r, why, p.slice(0, 40));
      expect(r.stderr).not.toContain('PRIVATE KEY');
    }
  }, 60_000);
});

describe('a malformed event on stdin', () => {
  it('nested 1M deep, cut, over 1 MiB, of wrong types: one line on stderr, exit 0', async () => {
    const cases: [string, RegExp][] = [
      ['['.repeat(1024 * 1024 - 10), /the event on stdin is not JSON/],
      [nestedArrays(500_000), /not a hook event \(no hook_event_name\)/],
      [`{"a":${'['.repeat(200_000)}${']'.repeat(200_000)}}`, /not a hook event \(no hook_event_name\)/],
      [JSON.stringify({ hook_event_name: 'SessionStart', source: 'compact', transcript_path: 'x'.repeat(2 * 1024 * 1024) }), /longer than 1048576 bytes/],
      [JSON.stringify({ hook_event_name: 'SessionStart', source: 'compact', transcript_path: { $ne: 1 } }), /names no transcript_path/],
      [JSON.stringify({ hook_event_name: 'SessionStart', source: 'compact', transcript_path: ['/etc/passwd'] }), /names no transcript_path/],
      [JSON.stringify({ hook_event_name: 7 }), /no hook_event_name/],
    ];
    for (const [stdin, why] of cases) quietRefusal(await runCli(['hook'], { stdin }), why, stdin.slice(0, 60));
  }, 60_000);

  it('a wrong-typed session_id is not a reason to fail: the hand-back is made', async () => {
    const dir = tempDir('ch-hook-');
    const f = path.join(dir, 's.jsonl');
    fs.writeFileSync(f, buildSession([{ prompts: ['Fix the login cookie bug'], quoted: 0, reads: [], edits: [], named: [], todos: [] }]).text());
    const r = await runCli(['hook'], { stdin: sessionStartEvent('compact', f, { session_id: { toString: 1 } }) });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Fix the login cookie bug');
  }, 30_000);
});

describe('a hostile transcript', () => {
  it('a record nested 100k deep is skipped, as check makes it one input error; the compaction is still audited', () => {
    const dir = tempDir('ch-hook-');
    const f = path.join(dir, 'deep.jsonl');
    fs.writeFileSync(f, compacted([ccToolUseLine('deep', 'u0', nestedArrays(100_000)), ccAssistant('a0', 'u0', [{ type: 'text', text: 'ok' }])]));
    const audit = auditTranscript(f, 's');
    expect('error' in audit).toBe(false);
    if ('error' in audit) return;
    expect(audit.compaction).not.toBeNull();
  });

  it('one record of 300k blocks and 16 MiB of lines: read within the time budget or refused by it, never thrown', () => {
    const dir = tempDir('ch-hook-');
    const blocks = path.join(dir, 'blocks.jsonl');
    fs.writeFileSync(blocks, compacted([ccAssistant('a0', 'u0', textBlocks(300_000))]));
    const a = auditTranscript(blocks, 's', { deadline: performance.now() + HOOK_TIME_BUDGET_MS });
    expect('error' in a ? a.error : a.compaction !== null).toSatisfy((v: unknown) => v === true || /time budget ran out/.test(String(v)));
    // many short lines past the 16 MiB bound: only the tail is read
    const many = path.join(dir, 'many.jsonl');
    const line = ccUser('x', null, 'y'.repeat(200)) + '\n';
    fs.writeFileSync(many, line.repeat(Math.ceil((20 * 1024 * 1024) / line.length)) + compacted([ccAssistant('a0', 'u0', [{ type: 'text', text: 'ok' }])]));
    const b = auditTranscript(many, 's', { deadline: performance.now() + HOOK_TIME_BUDGET_MS });
    if (!('error' in b)) {
      expect(b.whole).toBe(false);
      expect(b.compaction).not.toBeNull();
    } else expect(b.error).toMatch(/time budget ran out/);
  }, 60_000);
});

describe('the time budget is a hard limit', () => {
  /** Runs the hook on `file` with --time-budget `ms`; the run's wall time in `took`. */
  async function hookWithin(file: string, ms: number): Promise<{ code: number; stdout: string; stderr: string; took: number }> {
    const t0 = performance.now();
    const r = await runCli(['hook', '--time-budget', String(ms)], { stdin: sessionStartEvent('compact', file) });
    return { ...r, took: performance.now() - t0 };
  }

  it('one 10 MB line of 300k blocks, the only line the budget could be checked after: the audit is stopped, nothing handed back, exit 0', async () => {
    const dir = tempDir('ch-hook-hard-');
    const file = path.join(dir, 'one-line.jsonl');
    // the whole transcript is within the 16 MiB the hook reads; its first line alone is the work
    fs.writeFileSync(
      file,
      compacted([ccAssistant('a0', 'u0', textBlocks(300_000))])
        .split('\n')
        .slice(1)
        .join('\n'),
    );
    expect(fs.statSync(file).size).toBeGreaterThan(9_000_000);
    const r = await hookWithin(file, 100);
    // the reader checked its deadline between lines only: it read the line whole and answered, late
    quietRefusal(r, /^context-health hook: the time budget of \d+ ms ran out before the audit of .*one-line\.jsonl was done: nothing handed back$/, 'one line');
  }, 60_000);

  it('the same transcript in a budget that holds it: the hand-back, as before', async () => {
    const dir = tempDir('ch-hook-hard-');
    const file = path.join(dir, 's.jsonl');
    fs.writeFileSync(file, compacted([ccAssistant('a0', 'u0', [{ type: 'text', text: 'ok' }])]));
    const r = await hookWithin(file, 30_000);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('"hookEventName":"SessionStart"');
    expect(r.stdout).toContain('Keep the public API unchanged');
  }, 60_000);

  it('--time-budget takes whole milliseconds from 100 to 600000, else a usage error (exit 2)', async () => {
    for (const bad of ['0', '99', '1e3', '600001', '-5', 'abc', '']) {
      const r = await runCli(['hook', `--time-budget=${bad}`], { stdin: '{}' });
      expect(r.code, bad).toBe(2);
      expect(r.stderr, bad).toContain('--time-budget expects a whole number of milliseconds from 100 to 600000');
    }
  }, 60_000);
});
