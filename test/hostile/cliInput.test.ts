// Issue 26 #6, #8 and watch's options: every CLI input error is one sentence and exit 2,
// and every URL form `serve` prints (ws://…/api/ingest, http://…/api/ingest) simply works.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/runCli.ts';
import { generatedSession, relaysPerTest, ROOT, tempDir } from '../relay/helpers.ts';

const relay = relaysPerTest();
const SAMPLE = path.join(ROOT, 'public/samples/collapse.jsonl');

/** exit 2, an error on stderr, and no stack trace */
function refusedClearly(r: { code: number; stderr: string }, says: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(says);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('report --out that cannot be written', () => {
  it('a file, /dev/null and a name too long are one sentence and exit 2', async () => {
    const dir = tempDir('ch-out-');
    const file = path.join(dir, 'a-file');
    fs.writeFileSync(file, 'x');
    refusedClearly(await runCli(['report', SAMPLE, '--out', file]), /cannot write the report into --out .*a-file: it is a file, not a folder/);
    refusedClearly(await runCli(['report', SAMPLE, '--out', '/dev/null']), /cannot write the report into --out \/dev\/null/);
    refusedClearly(await runCli(['report', SAMPLE, '--out', path.join(dir, 'x'.repeat(300))]), /the path is too long/);
  }, 60_000);

  it('does not write through a planted report.md symbolic link', async () => {
    const dir = tempDir('ch-out-');
    const out = path.join(dir, 'out');
    fs.mkdirSync(out);
    const victim = path.join(dir, 'victim');
    fs.writeFileSync(victim, 'precious\n');
    fs.symlinkSync(victim, path.join(out, 'report.md'));
    refusedClearly(await runCli(['report', SAMPLE, '--out', out]), /report\.md: it is a symbolic link/);
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n');
  }, 60_000);
});

describe('relay URLs', () => {
  it('replay accepts the ws:// and http:// …/api/ingest forms serve prints', async () => {
    const r = await relay();
    const file = path.join(tempDir(), 'run.jsonl');
    fs.writeFileSync(file, generatedSession('urls', 3).join('\n') + '\n');
    const ws = r.url.replace(/^http/, 'ws') + 'api/ingest';
    const viaWs = await runCli(['replay', file, '--speed', 'max', '--url', ws]);
    expect(viaWs.code, viaWs.stderr).toBe(0);
    expect(viaWs.stdout).toMatch(/4 messages stored/);
    const viaHttp = await runCli(['replay', file, '--speed', 'max', '--url', `${r.url}api/ingest`, '--session', 'urls-2']);
    expect(viaHttp.code, viaHttp.stderr).toBe(0);
    expect(viaHttp.stdout).toMatch(/4 messages stored/);
  }, 60_000);

  it('ftp:, file: and nonsense are one sentence and exit 2 (replay, watch, alerts)', async () => {
    const file = path.join(tempDir(), 'run.jsonl');
    fs.writeFileSync(file, generatedSession('urls', 1).join('\n') + '\n');
    for (const url of ['ftp://127.0.0.1:1/', 'file:///etc/passwd', 'nonsense']) {
      refusedClearly(await runCli(['replay', file, '--url', url]), /--url must be the relay's address/);
    }
    refusedClearly(await runCli(['watch', file, '--url', 'nonsense']), /--url must be the relay's address/);
    refusedClearly(await runCli(['alerts', 'list', '--url', 'ftp://x/']), /--url must be the relay's address/);
  }, 60_000);
});

describe('watch options', () => {
  it('no path, --poll 0 and --poll abc are one sentence and exit 2', async () => {
    refusedClearly(await runCli(['watch']), /watch takes at least one file or folder/);
    const state = path.join(tempDir(), 'state.json');
    for (const poll of ['0', 'abc', '9', '1.5']) {
      refusedClearly(await runCli(['watch', tempDir(), '--poll', poll, '--state', state]), /--poll must be a whole number of milliseconds ≥ 10/);
    }
    expect(fs.existsSync(state)).toBe(false);
  }, 60_000);
});

describe('a file name with a newline in it (single-file commands)', () => {
  it('check, report, diff and replay say it on one line: the name cannot print a line the product never wrote', async () => {
    const dir = tempDir('ch-nl-');
    const forged = path.join(dir, 'a\ncontext-health: forged.jsonl');
    fs.writeFileSync(forged, '{"not":"a transcript"}\n');
    const missing = path.join(dir, 'gone\ncontext-health: forged.jsonl');
    const runs = [
      await runCli(['check', forged]),
      await runCli(['check', missing]),
      await runCli(['report', missing, '--out', path.join(dir, 'out')]),
      await runCli(['diff', missing, SAMPLE]),
      await runCli(['replay', missing, '--url', 'http://127.0.0.1:9/']),
    ];
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('\\x0acontext-health: forged');
      for (const line of r.stderr.split('\n')) expect(line, r.stderr).not.toMatch(/^context-health: forged/);
    }
  }, 120_000);
});
