// docs/hooks.md: `context-health hook` run as Claude Code runs it (the executable, the event
// as JSON on stdin), for every SessionStart source and for bad input; the output held to
// the documented hook output schema; the pending compaction's audit the same one `check`
// makes once the next call has happened; hostile transcript paths that must not hang.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkTranscript } from '../../src/cli/check.ts';
import { auditTranscript } from '../../src/cli/hook/auditTranscript.ts';
import { runCli } from '../cli/runCli.ts';
import { sessionStartEvent, sessionStartOutput } from './hookOutput.ts';
import { buildSession, type StretchPlan } from './sessions.ts';

const P_OLD = 'Fix the login cookie bug in the session handler, keep the public API unchanged';
const P_NEW = 'Also add a retry with backoff to the token refresh\nand log each attempt';
const STRETCH: StretchPlan = {
  prompts: [P_OLD, P_NEW],
  quoted: 1,
  reads: ['/repo/src/session.ts', '/repo/src/token.ts', '/repo/docs/notes.md'],
  edits: ['/repo/src/session.ts'],
  named: ['token.ts'],
  todos: ['write the retry test', 'update the changelog'],
};

let dir: string;
let cut: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-hook-'));
  cut = path.join(dir, 'cut.jsonl');
  fs.writeFileSync(cut, buildSession([STRETCH]).text());
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const context = (stdout: string): string => sessionStartOutput.parse(JSON.parse(stdout)).hookSpecificOutput.additionalContext;

describe('hook, end to end on a transcript cut right after the summary', () => {
  it('hands back the lost prompt, the todos and the unnamed files, in order, as valid hook output', async () => {
    const r = await runCli(['hook'], { stdin: sessionStartEvent('compact', cut) });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const text = context(r.stdout);
    // the prompt the summary quotes is not handed back; the other is, every line quoted exactly
    expect(text).not.toContain(P_OLD);
    expect(text).toContain('> Also add a retry with backoff to the token refresh\n> and log each attempt');
    expect(text).toContain('- write the retry test\n- update the changelog');
    // edited first; token.ts is named by the summary
    expect(text).toContain('- /repo/src/session.ts (edited)\n- /repo/docs/notes.md (read)');
    expect(text).not.toContain('token.ts');
    const order = ['prompts that the compaction summary', 'Pending todos', 'Files this stretch', 'Full audit'].map((s) => text.indexOf(s));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(order[0]).toBeGreaterThan(0);
    expect(text).toContain(`context-health report ${cut} --compaction 1`);
  });

  it('prints nothing and exits 0 for every other source', async () => {
    for (const source of ['startup', 'resume', 'clear'] as const) {
      const r = await runCli(['hook'], { stdin: sessionStartEvent(source, cut) });
      expect([source, r.code, r.stdout, r.stderr]).toEqual([source, 0, '', '']);
    }
  });

  it('prints nothing for another event (PreCompact, UserPromptSubmit)', async () => {
    const pre = JSON.stringify({
      session_id: 's',
      transcript_path: cut,
      cwd: '/repo',
      hook_event_name: 'PreCompact',
      trigger: 'auto',
      custom_instructions: '',
    });
    const r = await runCli(['hook'], { stdin: pre });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, '', '']);
  });

  it('exits 0 with one line on stderr for malformed events and missing transcripts', async () => {
    const cases = [
      'not json at all',
      '[1,2,3]',
      '{"session_id":"s"}',
      JSON.stringify({ hook_event_name: 'SessionStart', source: 'compact' }),
      sessionStartEvent('compact', path.join(dir, 'missing.jsonl')),
      '',
    ];
    for (const stdin of cases) {
      const r = await runCli(['hook'], { stdin });
      expect(r.code, stdin).toBe(0);
      expect(r.stdout, stdin).toBe('');
      expect(r.stderr.trim().split('\n'), stdin).toHaveLength(1);
      expect(r.stderr, stdin).toMatch(/^context-health hook: /);
    }
  });

  it('says so on stderr when the transcript holds no compaction', async () => {
    const plain = path.join(dir, 'plain.jsonl');
    const b = buildSession([{ ...STRETCH }], false);
    fs.writeFileSync(
      plain,
      b.records
        .filter((r) => r.subtype !== 'compact_boundary' && r.isCompactSummary !== true)
        .map((r) => JSON.stringify(r))
        .join('\n') + '\n',
    );
    const r = await runCli(['hook'], { stdin: sessionStartEvent('compact', plain) });
    expect([r.code, r.stdout]).toEqual([0, '']);
    expect(r.stderr).toMatch(/holds no compaction/);
  });
});

describe('hook on hostile transcript paths', () => {
  it('refuses a FIFO, a device, a directory and a symbolic link at once, exit 0', async () => {
    const fifo = path.join(dir, 'fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    const link = path.join(dir, 'link.jsonl');
    fs.symlinkSync(cut, link);
    for (const [p, why] of [
      [fifo, /not a regular file \(a FIFO\)/],
      ['/dev/zero', /not a regular file \(a device\)/],
      [dir, /not a regular file \(a directory\)/],
      [link, /symbolic link/],
    ] as const) {
      const t0 = performance.now();
      const r = await runCli(['hook'], { stdin: sessionStartEvent('compact', p) });
      expect(performance.now() - t0).toBeLessThan(15_000);
      expect([r.code, r.stdout]).toEqual([0, '']);
      expect(r.stderr).toMatch(why);
    }
  });

  it('reads only the tail of a 1 GB transcript (sparse: no disk), in bounded memory, exit 0', async () => {
    const huge = path.join(dir, 'huge.jsonl');
    fs.writeFileSync(huge, fs.readFileSync(cut));
    fs.truncateSync(huge, 1024 ** 3);
    const r = await runCli(['hook'], { stdin: sessionStartEvent('compact', huge), nodeArgs: ['--max-old-space-size=256'] });
    expect([r.code, r.stdout]).toEqual([0, '']);
    expect(r.stderr).toMatch(/holds no compaction/);
    fs.rmSync(huge);
  });

  it('reads only the tail of a transcript longer than the bound, and cannot number its compaction', () => {
    const big = path.join(dir, 'big.jsonl');
    const junk = JSON.stringify({ type: 'progress', uuid: 'p', sessionId: 'cc-audit', data: 'y'.repeat(1000) }) + '\n';
    fs.writeFileSync(big, junk.repeat(300) + buildSession([STRETCH]).text());
    const audit = auditTranscript(big, 'cc-audit', { maxBytes: 64 * 1024 });
    if ('error' in audit) throw new Error(audit.error);
    expect(audit.whole).toBe(false);
    expect(audit.compaction?.pending).toBe(true);
  });

  it('gives up within its time budget rather than hold the agent', () => {
    const audit = auditTranscript(cut, 'cc-audit', { deadline: performance.now() - 1 });
    // a transcript of fewer than 256 lines is read before the first clock check: the bound is per 256 lines
    expect('error' in audit).toBe(false);
    const long = path.join(dir, 'long.jsonl');
    fs.writeFileSync(long, fs.readFileSync(cut, 'utf8').repeat(40));
    const late = auditTranscript(long, 'cc-audit', { deadline: performance.now() - 1 });
    expect(late).toEqual({ error: expect.stringMatching(/time budget ran out/) as unknown as string });
  });
});

describe('the pending compaction is audited as check audits it once the next call has come', () => {
  it('gives the same items as check on the same transcript with the next call added', async () => {
    const pending = auditTranscript(cut, 'cc-audit');
    if ('error' in pending || pending.compaction === null) throw new Error('no compaction');
    expect(pending.compaction.pending).toBe(true);
    // the next call sees the summary and nothing else: the same surviving text
    const b = buildSession([STRETCH]);
    b.call(3000, [{ type: 'text', text: 'Continuing.' }]);
    const after = path.join(dir, 'after.jsonl');
    fs.writeFileSync(after, b.text());
    const result = await checkTranscript(after, { userThresholds: {} });
    const record = result.report.sessions[0]!.compactions![0]!;
    const strip = (items: { kind: string; text: string; status: string; from_turn: number }[]) =>
      items.map(({ kind, text, status, from_turn }) => ({ kind, text, status, from_turn }));
    expect(strip(pending.compaction.items)).toEqual(strip(record.items));
    expect(pending.compaction.turn).toBe(record.turn);
    const late = auditTranscript(after, 'cc-audit');
    if ('error' in late || late.compaction === null) throw new Error('no compaction');
    expect(late.compaction.pending).toBe(false);
    expect(strip(late.compaction.items)).toEqual(strip(record.items));
  });

  it('numbers the compaction as check lists them, and hands back a carried prompt a later summary lost', () => {
    const second: StretchPlan = { prompts: ['Now port the cache layer'], quoted: 1, reads: [], edits: [], named: [], todos: [] };
    const two = path.join(dir, 'two.jsonl');
    fs.writeFileSync(two, buildSession([{ ...STRETCH, quoted: 2 }, second]).text());
    const audit = auditTranscript(two, 'cc-audit');
    if ('error' in audit || audit.compaction === null) throw new Error('no compaction');
    expect(audit.compaction.ordinal).toBe(2);
    // stretch 1's prompts were kept by summary 1 and are not in summary 2: carried, lost now
    expect(audit.compaction.carried.filter((c) => c.kind === 'user_prompt' && c.status === 'lost').map((c) => c.text)).toEqual([P_OLD, P_NEW]);
  });
});

describe('hook --url', () => {
  it('sends the session through the pending compaction to a relay, and still prints the hand-back', async () => {
    const { testRelay, transcriptLines } = await import('../relay/helpers.ts');
    const relay = await testRelay();
    try {
      const r = await runCli(['hook', '--url', relay.url], { stdin: sessionStartEvent('compact', cut) });
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(context(r.stdout)).toContain('> Also add a retry with backoff');
      const lines = (await transcriptLines(relay.url, 'cc-audit')).map(
        (l) => JSON.parse(l) as { type: string; turn?: number; compaction?: { items: { text: string; status: string }[] } },
      );
      const marked = lines.filter((l) => l.type === 'snapshot' && l.compaction !== undefined);
      expect(marked).toHaveLength(1);
      expect(marked[0]!.compaction!.items.find((i) => i.text === P_NEW)?.status).toBe('lost');
      // the call to come stands last: the stretch's calls, then it
      expect(marked[0]!.turn).toBe(Math.max(...lines.map((l) => l.turn ?? 0)));
    } finally {
      await relay.close();
    }
  });

  it('exits 0 with one line on stderr when no relay answers', async () => {
    const r = await runCli(['hook', '--url', 'http://127.0.0.1:9/'], { stdin: sessionStartEvent('compact', cut) });
    expect(r.code).toBe(0);
    expect(context(r.stdout)).toContain('Pending todos');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^context-health hook: .*relay/);
  });
});

describe('the installed command, run through a shell as Claude Code runs a command hook', () => {
  it('answers a compact event with output that holds to the documented schema', async () => {
    const { spawn } = await import('node:child_process');
    const settings = path.join(dir, 'settings.json');
    const install = await runCli(['hook', 'install', '--settings', settings]);
    expect(install.code).toBe(0);
    const group = (JSON.parse(fs.readFileSync(settings, 'utf8')) as { hooks: { SessionStart: { matcher: string; hooks: { command: string }[] }[] } }).hooks
      .SessionStart[0]!;
    expect(group.matcher).toBe('compact');
    const out = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
      const child = spawn('/bin/sh', ['-c', group.hooks[0]!.command], { cwd: dir });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout }));
      child.stdin.end(sessionStartEvent('compact', cut));
    });
    expect(out.code).toBe(0);
    expect(context(out.stdout)).toContain('- /repo/src/session.ts (edited)');
  });
});
