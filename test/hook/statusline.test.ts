// docs/hooks.md "Status line": Claude Code's status-line JSON in, one short line out; the
// counts cached by the transcript's path, inode, size and mtime, a grown transcript scanned
// only in its new bytes, and a cache folder that is not safely this user's never used.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextPercent, statusText, transcriptCounts } from '../../src/cli/hook/statusline.ts';
import { cacheDir } from '../../src/cli/hook/statuslineCache.ts';
import { runCli } from '../cli/runCli.ts';
import { buildSession, type StretchPlan } from './sessions.ts';

// 1 prompt the summary does not quote, 2 files it does not name, 2 pending todos: 5 lost
const STRETCH: StretchPlan = {
  prompts: ['Fix the login cookie bug in the session handler', 'Also add a retry with backoff to the refresh path'],
  quoted: 1,
  reads: ['/repo/src/session.ts', '/repo/src/token.ts', '/repo/docs/notes.md'],
  edits: [],
  named: ['token.ts'],
  todos: ['write the retry test', 'update the changelog'],
};

/** Claude Code's status-line input (code.claude.com/docs/en/statusline), newer fields included. */
const statusInput = (transcript: string, cw: Record<string, unknown> | undefined): string =>
  JSON.stringify({
    hook_event_name: 'Status',
    session_id: 'cc-audit',
    transcript_path: transcript,
    cwd: '/repo',
    model: { id: 'claude-sonnet-4-5', display_name: 'Sonnet 4.5' },
    workspace: { current_dir: '/repo', project_dir: '/repo' },
    version: '2.1.20',
    output_style: { name: 'default' },
    cost: { total_cost_usd: 0.42, total_duration_ms: 60000, total_api_duration_ms: 30000, total_lines_added: 10, total_lines_removed: 2 },
    exceeds_200k_tokens: false,
    ...(cw === undefined ? {} : { context_window: cw }),
  });

let dir: string;
let tmp: string;
const savedTmp = process.env.TMPDIR;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-status-'));
  tmp = path.join(dir, 'tmp');
  fs.mkdirSync(tmp);
  process.env.TMPDIR = tmp;
});
afterAll(() => {
  process.env.TMPDIR = savedTmp;
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('statusline', () => {
  it('prints ctx %, the compactions and the last one’s losses, as Claude Code runs it', async () => {
    const t = path.join(dir, 'a.jsonl');
    fs.writeFileSync(t, buildSession([STRETCH]).text());
    const cw = { total_input_tokens: 1000, total_output_tokens: 50, context_window_size: 200000, used_percentage: 74, remaining_percentage: 26 };
    const r = await runCli(['statusline'], { stdin: statusInput(t, cw), env: { TMPDIR: tmp } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('ctx 74% · 1 compaction · 5 lost\n');
    const bad = await runCli(['statusline'], { stdin: 'nope' });
    expect([bad.code, bad.stdout]).toEqual([0, 'ctx ?\n']);
  });

  it('reads the percentage from current_usage on versions without used_percentage', () => {
    const cw = {
      context_window_size: 200000,
      current_usage: { input_tokens: 10000, output_tokens: 99, cache_creation_input_tokens: 20000, cache_read_input_tokens: 70000 },
    };
    expect(contextPercent(JSON.parse(statusInput('x', cw)) as Record<string, unknown>)).toBe(50);
    expect(contextPercent(JSON.parse(statusInput('x', undefined)) as Record<string, unknown>)).toBeNull();
    expect(statusText(null, { compactions: 0, lost: 0, pending: false })).toBe('0 compactions');
  });

  it('reuses the cached counts while the transcript only grows without a boundary, and counts again at one', () => {
    const t = path.join(dir, 'b.jsonl');
    const b = buildSession([STRETCH], false);
    fs.writeFileSync(t, b.text());
    expect(transcriptCounts(t)).toEqual({ compactions: 1, lost: 5, pending: false });
    const file = fs
      .readdirSync(cacheDir())
      .map((f) => path.join(cacheDir(), f))
      .find((f) => fs.readFileSync(f, 'utf8').includes(t))!;
    // mark the cache: a full count would not say 99
    const entry = JSON.parse(fs.readFileSync(file, 'utf8')) as { counts: { lost: number } };
    entry.counts.lost = 99;
    fs.writeFileSync(file, JSON.stringify(entry));
    fs.appendFileSync(t, JSON.stringify({ type: 'user', uuid: 'late1', sessionId: 'cc-audit', message: { role: 'user', content: 'one more thing' } }) + '\n');
    expect(transcriptCounts(t)?.lost).toBe(99);
    // a new compaction in the new bytes: counted again in full
    fs.appendFileSync(
      t,
      JSON.stringify({
        type: 'system',
        subtype: 'compact_boundary',
        uuid: 'late2',
        sessionId: 'cc-audit',
        compactMetadata: { trigger: 'manual', preTokens: 5000 },
      }) + '\n',
    );
    expect(transcriptCounts(t)?.compactions).toBe(2);
    expect(fs.statSync(cacheDir()).mode & 0o777).toBe(0o700);
  });

  it('does not use a cache folder that is a symbolic link', () => {
    const other = fs.mkdtempSync(path.join(dir, 'tmp2-'));
    const elsewhere = path.join(dir, 'elsewhere');
    fs.mkdirSync(elsewhere, { mode: 0o700 });
    process.env.TMPDIR = other;
    try {
      fs.symlinkSync(elsewhere, cacheDir());
      const t = path.join(dir, 'c.jsonl');
      fs.writeFileSync(t, buildSession([STRETCH]).text());
      expect(transcriptCounts(t)).toEqual({ compactions: 1, lost: 5, pending: true });
      expect(fs.readdirSync(elsewhere)).toEqual([]);
    } finally {
      process.env.TMPDIR = tmp;
    }
  });
});
