// Issue 37 / contract §6.1 "Many files": `check` over several files and folders, run as a user
// runs it (the real executable). A folder of agents' transcripts, native transcripts, files
// that are not transcripts, an unreadable file, a corrupt gzip between good files, a symlink
// loop and nested folders.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from './runCli.ts';

const SAMPLES = path.join(ROOT, 'public/samples');
const FIXTURES = path.join(ROOT, 'test/fixtures/adapters');

let dir: string;
let mixed: string;

/** the transcripts of the mixed folder, as its walk must list them: by path */
let transcripts: string[];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-batch-'));
  mixed = path.join(dir, 'runs');
  const put = (rel: string, data: string | Buffer): string => {
    const p = path.join(mixed, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, data);
    return p;
  };
  const sample = (f: string): Buffer => fs.readFileSync(path.join(SAMPLES, f));
  const fixture = (f: string): Buffer => fs.readFileSync(path.join(FIXTURES, f));
  const good = [
    put('a-healthy.jsonl', sample('healthy.jsonl')),
    put('all-faults.json', sample('all-faults.json')),
    put('nested/deeper/cc-session.jsonl', fixture('claude-code.jsonl')),
    put('nested/codex.jsonl.gz', zlib.gzipSync(fixture('codex-rollout.jsonl'))),
    put('nested/swe.traj', fixture('swe-agent.traj')),
    // fails to read in the middle of the batch (sorted between the others): a gzip cut short
    put('m-cut.jsonl.gz', zlib.gzipSync(sample('stale-scores.jsonl')).subarray(0, 3000)),
    put('z-bad-lines.jsonl', sample('with-bad-lines.jsonl')),
  ];
  // not transcripts: skipped and counted
  put('notes.txt', 'hello\n');
  put('package.json', '{"name":"x"}\n');
  put('nested/app-log.jsonl', '{"level":"info","msg":"started"}\n');
  put('nested/deeper/tool-output.txt', 'ok\n');
  // a link to a file that is not there: a transcript's name, so it is listed, and cannot be read
  const dangling = path.join(mixed, 'b-gone.jsonl');
  fs.symlinkSync(path.join(dir, 'nowhere.jsonl'), dangling);
  // a symlink loop: a link back to the folder, and one to its parent
  fs.symlinkSync(mixed, path.join(mixed, 'nested/loop'));
  fs.symlinkSync('..', path.join(mixed, 'nested/deeper/up'));
  transcripts = [...good, dangling].sort();
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Line {
  file: string;
  error?: string;
  [k: string]: unknown;
}

describe('check over a folder', () => {
  it('--json: one line per transcript in path order, each the single-file output with its path first; the others skipped with a count', async () => {
    const r = await runCli(['check', '--json', mixed]);
    const lines = r.stdout.split('\n');
    expect(lines.pop()).toBe('');
    const parsed = lines.map((l) => JSON.parse(l) as Line);
    expect(parsed.map((l) => l.file)).toEqual(transcripts);
    expect(r.stderr).toContain('4 other files in the folders skipped (not transcripts)');
    for (const [i, file] of transcripts.entries()) {
      const line = lines[i]!;
      const prefix = `{"file":${JSON.stringify(file)},`;
      expect(line.startsWith(prefix), file).toBe(true);
      const alone = await runCli(['check', '--json', file]);
      if (alone.stdout === '') {
        // could not be read alone either: the line names the error check words on stderr
        expect(parsed[i]!.error, file).toBeDefined();
        expect(alone.stderr).toContain(`cannot read ${file}: ${parsed[i]!.error}`);
        expect(alone.code).toBe(2);
      } else expect('{' + line.slice(prefix.length) + '\n', file).toBe(alone.stdout);
    }
    expect(parsed.find((l) => l.file.endsWith('m-cut.jsonl.gz'))?.error).toMatch(/unexpected end of file/);
    expect(parsed.find((l) => l.file.endsWith('b-gone.jsonl'))?.error).toMatch(/ENOENT/);
    // all-faults: a fault reached --fail-on; the unreadable files do not make it 2
    expect(r.code).toBe(1);
  }, 120_000);

  it('the human output: one row per file, worst first, then one line of totals', async () => {
    const r = await runCli(['check', mixed]);
    const rows = r.stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^file\s+agent\s+turns\s+compactions\s+confirmed losses\s+faults\s+headline$/);
    const body = rows.slice(1, rows.indexOf(''));
    expect(body).toHaveLength(transcripts.length);
    // unreadable files first, then the worst headline: all-faults freezes
    expect(body[0]).toMatch(/b-gone\.jsonl .* cannot read: ENOENT/);
    expect(body[1]).toMatch(/m-cut\.jsonl\.gz .* cannot read: unexpected end of file/);
    expect(body[2]).toMatch(/all-faults\.json\s+context-health\s+150\s+0\s+0\s+114\s+FREEZE$/);
    expect(body.find((b) => b.includes('cc-session'))).toMatch(/claude-code\s+6\s+2\s+0\s+0\s+CONTEXT OK$/);
    expect(body.find((b) => b.includes('codex.jsonl.gz'))).toMatch(/\scodex\s+8\s+2\s/);
    expect(body.find((b) => b.includes('swe.traj'))).toMatch(/\sswe-agent\s+4\s+1\s/);
    expect(body.find((b) => b.includes('z-bad-lines'))).toMatch(/PRUNE OK \(5 input errors\)$/);
    const total = rows[rows.length - 1]!;
    expect(total).toBe(
      'total: 8 files, 268 turns, 5 compactions, 0 confirmed losses, 114 faults; 2 could not be read; 4 other files in the folders skipped (not transcripts)',
    );
    expect(r.code).toBe(1);
  }, 60_000);
});

describe('check over several files', () => {
  it('keeps the order of the arguments, then paths within a folder', async () => {
    const healthy = path.join(SAMPLES, 'healthy.jsonl');
    const r = await runCli(['check', '--json', path.join(mixed, 'nested'), healthy, path.join(FIXTURES, 'codex-legacy.jsonl')]);
    const files = r.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as Line).file);
    expect(files).toEqual([
      path.join(mixed, 'nested/codex.jsonl.gz'),
      path.join(mixed, 'nested/deeper/cc-session.jsonl'),
      path.join(mixed, 'nested/swe.traj'),
      healthy,
      path.join(FIXTURES, 'codex-legacy.jsonl'),
    ]);
    // nothing reached --fail-on fault in these
    expect(r.code).toBe(0);
  }, 60_000);

  it("names mini-swe-agent's trajectories after their agent, though SWE-agent's format reads them", async () => {
    const r = await runCli(['check', path.join(FIXTURES, 'swe-agent.traj'), path.join(FIXTURES, 'mini-swe-agent.traj.json')]);
    const rows = r.stdout.split('\n');
    expect(rows.find((b) => b.includes('mini-swe-agent.traj.json'))).toMatch(/\.traj\.json\s+mini-swe-agent\s+\d+\s/);
    expect(rows.find((b) => b.includes('swe-agent.traj') && !b.includes('mini'))).toMatch(/\.traj\s+swe-agent\s+\d+\s/);
  }, 60_000);

  it('exit status: the worst over the files read; 2 only when none could be read', async () => {
    const healthy = path.join(SAMPLES, 'healthy.jsonl');
    const faults = path.join(SAMPLES, 'all-faults.jsonl');
    const gone = path.join(mixed, 'b-gone.jsonl');
    const cut = path.join(mixed, 'm-cut.jsonl.gz');
    const code = async (...args: string[]): Promise<number> => (await runCli(['check', '--json', ...args])).code;
    expect(await code(healthy, gone)).toBe(0);
    expect(await code(healthy, faults)).toBe(1);
    expect(await code('--fail-on', 'never', healthy, faults)).toBe(0);
    expect(await code(gone, cut)).toBe(2);
    const none = await runCli(['check', gone, cut]);
    expect(none.code).toBe(2);
    expect(none.stdout).toContain('2 could not be read');
  }, 60_000);

  it('a thread that stops loses only its file: that line says so, a new thread reads the rest', async () => {
    const files = ['healthy.jsonl', 'collapse.jsonl', 'stale-scores.jsonl', 'drift-and-orphans.jsonl'].map((f) => path.join(SAMPLES, f));
    const r = await runCli(['check', '--json', '--threads', '1', ...files], { env: { CONTEXT_HEALTH_TEST_STOP_BATCH_AT: 'collapse.jsonl' } });
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Line);
    expect(lines.map((l) => l.file)).toEqual(files);
    expect(lines[1]!.error).toBe('the thread reading it stopped (exit code 3)');
    for (const i of [0, 2, 3]) expect(lines[i]!.error, files[i]).toBeUndefined();
    // stale-scores and drift-and-orphans fire faults
    expect(r.code).toBe(1);
  }, 60_000);

  it("an agent's session with no model call is its row's words and its own exit 2, as check of it alone says", async () => {
    // a Gemini CLI session whose one prompt failed: a user message and an error, no call
    const noCall = path.join(dir, 'no-call', 'session-2026-01-14T10-01-nocall.json');
    fs.mkdirSync(path.dirname(noCall), { recursive: true });
    const messages = [
      { id: 'u1', timestamp: '2026-01-14T10:01:59.000Z', type: 'user', content: [{ text: 'Explain src/math.ts' }] },
      { id: 'e1', timestamp: '2026-01-14T10:02:00.000Z', type: 'error', content: 'quota exceeded' },
    ];
    fs.writeFileSync(noCall, JSON.stringify({ sessionId: 'no-call', projectHash: 'ab12', startTime: '2026-01-14T10:01:58.412Z', messages }, null, 2));
    const healthy = path.join(SAMPLES, 'healthy.jsonl');
    const r = await runCli(['check', healthy, noCall]);
    const rows = r.stdout.split('\n');
    const row = rows.find((l) => l.startsWith(noCall))!;
    expect(row).toMatch(/gemini\s+0\s+0\s+0\s+0\s+no model call in it$/);
    // nothing to look at: below the healthy session, the last row before the totals
    expect(rows[rows.indexOf('') - 1]).toBe(row);
    expect(rows.findIndex((l) => l.startsWith(healthy))).toBe(1);
    expect(r.code).toBe(0);
    // --json: its line is check's, and stderr says why it has no turn
    const j = await runCli(['check', '--json', healthy, noCall]);
    expect(j.stderr).toContain(`${noCall} is a Gemini CLI session with no model call in it: nothing to analyse`);
  }, 60_000);

  it('a folder with no transcript exits 2 saying so; stdin is read alone', async () => {
    const empty = path.join(dir, 'empty');
    fs.mkdirSync(empty, { recursive: true });
    fs.writeFileSync(path.join(empty, 'readme.txt'), 'x');
    const r = await runCli(['check', empty]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`no transcript found in ${empty} (1 other files skipped)`);
    const s = await runCli(['check', '-', path.join(SAMPLES, 'healthy.jsonl')]);
    expect(s.code).toBe(2);
    expect(s.stderr).toContain('check reads stdin (-) alone');
  }, 60_000);
});
