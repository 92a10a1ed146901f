// A fifth hostile round, on `check FILE|DIR …` (docs/contract.md §6.1.1 "Many files and
// folders"): folders and names a hostile agent, or a hostile archive, could leave behind.
// The promise under attack: a file that cannot be read is its own line, with its error; it
// never stops the others; exit 2 only when no file could be read. And names never drive the
// terminal (docs/security.md "Terminal output").
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli } from '../cli/runCli.ts';
import { tempDir } from '../relay/helpers.ts';

const HEALTHY = path.join(ROOT, 'public/samples/healthy.jsonl');

const made: string[] = [];
// rm(1), not fs.rmSync: Node's recursion overflows its stack on the deep chain below
afterAll(() => {
  for (const d of made) execFileSync('rm', ['-rf', d]);
});
function dir(): string {
  const d = tempDir('ch-batch5-');
  made.push(d);
  return d;
}

interface Line {
  file: string;
  error?: string;
  sessions?: unknown[];
}
const jsonLines = (stdout: string): Line[] =>
  stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Line);

/** the CLI, killed after `ms` (a batch that hangs is a defect under test); `uid`: run as that user (root ignores mode bits) */
function cli(args: string[], ms: number, withoutDac = false): { done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  // root reads whatever the mode bits say: the CLI then runs as root without the two
  // capabilities that let it (setpriv, util-linux), so a folder of mode 000 is refused as it
  // is to anyone else, while the clone it runs from stays readable wherever it is (a clone in
  // a 0700 mktemp folder is no one else's to read, so running as another user fails there)
  const [cmd, argv] = withoutDac
    ? ['setpriv', ['--bounding-set=-dac_override,-dac_read_search', '--', process.execPath, BIN, ...args]]
    : [process.execPath, [BIN, ...args]];
  const child = spawn(cmd, argv, { cwd: ROOT });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  return {
    done: new Promise((resolve) =>
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      }),
    ),
  };
}

describe('a folder whose events/ is a symbolic link loop', () => {
  // openHandsFolder looked at <folder>/events with statSync, which throws ELOOP: the whole
  // batch stopped with that one error and exit 2, no file read at all
  it('is a folder skipped, and the other files are read', async () => {
    const d = dir();
    fs.mkdirSync(path.join(d, 'sub'));
    fs.symlinkSync('events', path.join(d, 'sub', 'events'));
    fs.copyFileSync(HEALTHY, path.join(d, 'ok.jsonl'));
    const walked = await runCli(['check', '--json', d]);
    expect(walked.code, walked.stderr).toBe(0);
    expect(jsonLines(walked.stdout).map((l) => l.file)).toEqual([path.join(d, 'ok.jsonl')]);
    expect(walked.stderr).not.toMatch(/ELOOP/);
    // the looping folder named on the command line, beside a good file
    const named = await runCli(['check', '--json', path.join(d, 'sub'), HEALTHY]);
    expect(named.code, named.stderr).toBe(0);
    expect(jsonLines(named.stdout).map((l) => l.file)).toEqual([HEALTHY]);
  }, 60_000);
});

describe('names that would drive the terminal', () => {
  // a name is the agents' (or an archive's): ESC, OSC 8 links, BEL, CR, LF, C1 and bidi controls
  const HOSTILE = 'a\x1b]8;;http:evil\x07x\x1b]8;;\x07\x1b[2J\r\ncontext-health: all files are fine \x9b31m\u202eevil';

  it('stderr: a newline in a name cannot forge a line of its own', async () => {
    const d = dir();
    fs.copyFileSync(HEALTHY, path.join(d, 'good.jsonl'));
    // a transcript's name, so it is listed; a link to nowhere, so it cannot be read and gets a note
    fs.symlinkSync(path.join(d, 'nowhere'), path.join(d, `${HOSTILE}.jsonl`));
    const r = await runCli(['check', '--json', d]);
    expect(r.code, r.stderr).toBe(0);
    const lines = jsonLines(r.stdout);
    // JSON stays exact: the key is the name as found
    expect(lines.map((l) => l.file)).toEqual([path.join(d, `${HOSTILE}.jsonl`), path.join(d, 'good.jsonl')]);
    expect(lines[0]!.error).toMatch(/ENOENT/);
    // every line of stderr is the product's own, and none holds a control character
    const errLines = r.stderr.split('\n').filter((l) => l !== '');
    expect(errLines).toHaveLength(1);
    expect(errLines[0]).toMatch(/^context-health: cannot read .*\\x0d\\x0acontext-health: all files are fine \\x9b31m\\u202eevil\.jsonl: ENOENT/);
    expect(r.stderr.replace(/\n$/, '')).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202e]/);
  }, 60_000);

  it('human rows and the totals line show the name escaped', async () => {
    const d = dir();
    fs.copyFileSync(HEALTHY, path.join(d, `${HOSTILE}.jsonl`));
    fs.symlinkSync(path.join(d, 'nowhere'), path.join(d, `${HOSTILE}-gone.jsonl`));
    const r = await runCli(['check', d]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.replaceAll('\n', '')).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202e]/);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(5); // the header, two rows, a blank line, the totals
    expect(r.stdout).toContain('\\x1b]8;;http:evil\\x07x');
  }, 60_000);

  it('a folder named with escapes and holding no transcript is named escaped', async () => {
    const d = dir();
    const named = path.join(d, `\x1b]0;pwned\x07${HOSTILE}`);
    fs.mkdirSync(named);
    fs.writeFileSync(path.join(named, 'notes.txt'), 'x\n');
    const r = await runCli(['check', named]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^context-health: no transcript found in .*\\x1b\]0;pwned\\x07a.* \(1 other files skipped\)\n$/);
    expect(r.stderr.replace(/\n$/, '')).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202e]/);
  }, 60_000);
});

describe('a very deep folder chain', () => {
  /** `depth` folders named `d`, one in the other, made by relative steps (no path is ever longer than the OS allows) */
  function chain(root: string, depth: number): void {
    const here = process.cwd();
    try {
      process.chdir(root);
      for (let i = 0; i < depth; i++) {
        fs.mkdirSync('d');
        process.chdir('d');
      }
      fs.copyFileSync(HEALTHY, 'deep.jsonl');
    } finally {
      process.chdir(here);
    }
  }

  // each folder's real path was asked of the OS (realpath(3) looks at every component, each
  // looked up from the root): cubic in the depth, 24 s of system time for 1,500 levels; and a
  // folder past PATH_MAX (4,096 bytes) could not be listed and was left out silently
  it('is walked in linear time; a folder past PATH_MAX is a line saying so, and the rest is read', async () => {
    const d = dir();
    const readable = path.join(d, 'a');
    const tooDeep = path.join(d, 'b');
    fs.mkdirSync(readable);
    fs.mkdirSync(tooDeep);
    chain(readable, 1000); // 2,000 bytes of path: listed and read
    chain(tooDeep, 2100); // 4,200 bytes: past PATH_MAX
    fs.copyFileSync(HEALTHY, path.join(d, 'c.jsonl'));
    const started = Date.now();
    const r = await runCli(['check', '--json', d]);
    const took = Date.now() - started;
    expect(r.code, r.stderr).toBe(0);
    const lines = jsonLines(r.stdout);
    expect(lines).toHaveLength(3);
    expect(lines[0]!.file).toBe(path.join(readable, ...Array<string>(1000).fill('d'), 'deep.jsonl'));
    expect(lines[0]!.sessions).toHaveLength(1);
    // the first folder that cannot be listed, with its reason; nothing below it is looked for
    expect(lines[1]!.file.startsWith(path.join(tooDeep, 'd', 'd'))).toBe(true);
    expect(lines[1]!.error).toMatch(/^the folder could not be listed \(ENAMETOOLONG/);
    expect(lines[2]!.file).toBe(path.join(d, 'c.jsonl'));
    expect(r.stderr).toMatch(/cannot read .*: the folder could not be listed \(ENAMETOOLONG/);
    // 1-2 s here at a load of 3; the cubic walk took over 20 s
    expect(took).toBeLessThan(15_000);
  }, 90_000);
});

describe('a file replaced between the listing and the reading', () => {
  /** the CLI, killed after `ms` (a batch that hangs is the defect under test) */
  // A FIFO named first on the command line holds the one thread until the test writes it: by
  // then the folder has been listed (the listing comes before any reading), and the test
  // swaps a listed transcript for a FIFO, a folder, or removes it. The FIFO was opened for
  // reading plainly: it waited for a writer for ever, and so did the whole batch.
  it("a FIFO, a folder or nothing in its place is that file's line; the batch ends", async () => {
    const d = dir();
    const gate = path.join(d, 'gate.jsonl');
    execFileSync('mkfifo', [gate]);
    const folder = path.join(d, 'runs');
    fs.mkdirSync(folder);
    for (const n of ['a', 'b', 'c', 'd']) fs.copyFileSync(HEALTHY, path.join(folder, `${n}.jsonl`));
    const run = cli(['check', '--json', '--threads', '1', gate, folder], 30_000);
    const writer = await fs.promises.open(gate, 'w'); // returns once the batch opened it to read
    fs.rmSync(path.join(folder, 'a.jsonl'));
    execFileSync('mkfifo', [path.join(folder, 'a.jsonl')]);
    fs.rmSync(path.join(folder, 'b.jsonl'));
    fs.mkdirSync(path.join(folder, 'b.jsonl'));
    fs.rmSync(path.join(folder, 'c.jsonl'));
    await writer.writeFile(fs.readFileSync(HEALTHY));
    await writer.close();
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    const lines = jsonLines(r.stdout);
    expect(lines.map((l) => l.file)).toEqual([gate, ...['a', 'b', 'c', 'd'].map((n) => path.join(folder, `${n}.jsonl`))]);
    expect(lines[0]!.sessions).toHaveLength(1);
    expect(lines[1]!.error).toMatch(/not a regular file/);
    expect(lines[2]!.error).toMatch(/not a regular file/);
    expect(lines[3]!.error).toMatch(/ENOENT/);
    expect(lines[4]!.sessions).toHaveLength(1);
  }, 60_000);
});

describe('an OpenHands conversation replaced between the listing and the reading', () => {
  // a conversation's folder is one transcript (docs/adapters.md); check read whatever its name
  // was by then, and a FIFO it read as a stream: the batch waited for a writer for ever
  it('a FIFO or a file in its place is that line; the batch ends', async () => {
    const d = dir();
    const gate = path.join(d, 'gate.jsonl');
    execFileSync('mkfifo', [gate]);
    const folder = path.join(d, 'runs');
    const fixture = path.join(ROOT, 'test/fixtures/adapters/openhands-conversation/7d1e9f20a3b44c5d8e6f7a8b9c0d1e2f');
    for (const n of ['conv-a', 'conv-b', 'conv-c']) fs.cpSync(fixture, path.join(folder, n), { recursive: true });
    const run = cli(['check', '--json', '--threads', '1', gate, folder], 30_000);
    const writer = await fs.promises.open(gate, 'w'); // the folder has been listed
    fs.rmSync(path.join(folder, 'conv-a'), { recursive: true });
    execFileSync('mkfifo', [path.join(folder, 'conv-a')]);
    fs.rmSync(path.join(folder, 'conv-b'), { recursive: true });
    fs.copyFileSync(HEALTHY, path.join(folder, 'conv-b'));
    await writer.writeFile(fs.readFileSync(HEALTHY));
    await writer.close();
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    const lines = jsonLines(r.stdout);
    expect(lines.map((l) => l.file)).toEqual([gate, ...['conv-a', 'conv-b', 'conv-c'].map((n) => path.join(folder, n))]);
    expect(lines[1]!.error).toMatch(/not a folder any more/);
    expect(lines[2]!.error).toMatch(/not a folder any more/);
    expect(lines[3]!.error, lines[3]!.error).toBeUndefined();
    expect(lines[3]!.sessions).toHaveLength(1);
  }, 60_000);
});

describe('a gzipped file that is not a transcript', () => {
  // its head was inflated with maxOutputLength 1 MiB, which throws (it does not cut) when the
  // first MiB of the file inflates to more: such a file "could not be read", so it was kept,
  // then read whole by a thread only to say it is not a transcript. A rotated .jsonl.gz log was
  // a row of its own and decompressed in full, where the same log uncompressed is skipped
  it('is skipped as the same file uncompressed is', async () => {
    const d = dir();
    const log = Array.from({ length: 60_000 }, (_, i) => JSON.stringify({ level: 'info', msg: `request ${i}`, at: i * 7919 })).join('\n') + '\n';
    fs.writeFileSync(path.join(d, 'app-log.jsonl'), log);
    fs.writeFileSync(path.join(d, 'app-log.jsonl.gz'), zlib.gzipSync(log));
    expect(log.length).toBeGreaterThan(2 << 20); // its head inflates past the MiB read to recognise it
    fs.copyFileSync(HEALTHY, path.join(d, 'ok.jsonl'));
    fs.writeFileSync(path.join(d, 'ok-gz.jsonl.gz'), zlib.gzipSync(Buffer.concat(Array.from({ length: 8 }, () => fs.readFileSync(HEALTHY)))));
    const r = await runCli(['check', '--json', d]);
    expect(r.code, r.stderr).toBe(0);
    expect(jsonLines(r.stdout).map((l) => l.file)).toEqual([path.join(d, 'ok-gz.jsonl.gz'), path.join(d, 'ok.jsonl')]);
    expect(r.stderr).toContain('2 other files in the folders skipped (not transcripts)');
  }, 60_000);
});

describe('names that are not UTF-8', () => {
  // Node decodes a name read from a folder as UTF-8, a byte that is not becoming U+FFFD: the
  // name no longer named the file, and a transcript called `caf\xe9.jsonl` (Latin-1) was its
  // line `ENOENT: no such file or directory`; below a folder so named nothing was found at all
  it('a file or folder so named is read; its line shows the name with U+FFFD', async () => {
    const d = dir();
    const raw = (p: string, ...bytes: Buffer[]): Buffer => Buffer.concat([Buffer.from(p), ...bytes]);
    const healthy = fs.readFileSync(HEALTHY);
    fs.writeFileSync(raw(`${d}/caf`, Buffer.from([0xe9]), Buffer.from('.jsonl')), healthy);
    fs.mkdirSync(raw(`${d}/dossier-`, Buffer.from([0xff])));
    fs.writeFileSync(raw(`${d}/dossier-`, Buffer.from([0xff]), Buffer.from('/inner.jsonl')), healthy);
    const r = await runCli(['check', '--json', d]);
    expect(r.code, r.stderr).toBe(0);
    const lines = jsonLines(r.stdout);
    expect(lines.map((l) => l.file)).toEqual([path.join(d, 'caf\ufffd.jsonl'), path.join(d, 'dossier-\ufffd', 'inner.jsonl')]);
    for (const l of lines) expect(l.error, l.file).toBeUndefined();
    // named after the file, as `check FILE` names a transcript that names no session
    expect(lines.map((l) => (l.sessions as { session_id: string }[])[0]!.session_id)).toEqual(['healthy', 'healthy']);
  }, 60_000);
});

describe('one very long name among many files', () => {
  // the human table padded every row's file column to the longest name: one path of 15
  // folders of 250 control bytes (16,000 characters once escaped) made each of n rows 16,000
  // wide, 48 MB for 3,000 files, and past ~33,000 files the table was longer than a string
  // can be (V8's RangeError) and the whole batch printed nothing
  it('does not widen every row: the file column is padded to at most 512 characters', async () => {
    const d = dir();
    const deep = path.join(d, ...Array<string>(15).fill('\x01'.repeat(250)));
    fs.mkdirSync(deep, { recursive: true });
    fs.copyFileSync(HEALTHY, path.join(deep, 'long.jsonl'));
    const many = path.join(d, 'many');
    fs.mkdirSync(many);
    // rows that cost nothing to read: links to nowhere with a transcript's name
    for (let i = 0; i < 3000; i++) fs.symlinkSync('nowhere', path.join(many, `${i}.jsonl`));
    const r = await runCli(['check', d]);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.split('\n');
    expect(rows).toHaveLength(3001 + 4); // the header, 3,001 rows, a blank line, the totals, the final newline
    const long = rows.find((l) => l.includes('long.jsonl'))!;
    expect(long).toContain(`${'\\x01'.repeat(250)}/long.jsonl  context-health`);
    for (const row of rows) if (row !== long) expect(row.length, row.slice(0, 80)).toBeLessThan(1000);
    expect(r.stdout.length).toBeLessThan(3_000_000);
  }, 60_000);
});

describe('files and folders without read permission', () => {
  const asRoot = process.getuid?.() === 0;

  // a folder whose listing failed (EACCES) was left out silently: its transcripts were not
  // read and nothing said so
  it('a folder that cannot be listed and a file that cannot be read are each a line; the others are read', async () => {
    const d = dir();
    const open = path.join(d, 'open');
    const locked = path.join(d, 'locked');
    fs.mkdirSync(open);
    fs.mkdirSync(locked);
    const secret = path.join(open, 'secret.jsonl');
    for (const f of [path.join(open, 'ok.jsonl'), secret, path.join(locked, 'hidden.jsonl')]) fs.copyFileSync(HEALTHY, f);
    fs.chmodSync(secret, 0o000);
    fs.chmodSync(locked, 0o000);
    try {
      const r = await cli(['check', '--json', d], 30_000, asRoot).done;
      expect(r.code, r.stderr).toBe(0);
      const lines = jsonLines(r.stdout);
      expect(lines.map((l) => l.file)).toEqual([locked, path.join(open, 'ok.jsonl'), secret]);
      expect(lines[0]!.error).toMatch(/^the folder could not be listed \(EACCES/);
      expect(lines[1]!.sessions).toHaveLength(1);
      expect(lines[2]!.error).toMatch(/^EACCES/);
    } finally {
      // the run's folder is removed after: a folder of mode 000 could not be by its owner
      fs.chmodSync(locked, 0o700);
      fs.chmodSync(secret, 0o600);
    }
  }, 60_000);
});
