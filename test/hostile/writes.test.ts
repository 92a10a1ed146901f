// Issue 39: `watch` isolates files and writes its state file safely; `report` writes only
// regular files it created (docs/security.md "Files the CLI writes", "watch").
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { startWatch } from '../../src/cli/watch.ts';
import { writeReportFiles } from '../../src/cli/reportFiles.ts';
import { tempDir, testRelay } from '../relay/helpers.ts';
import { ccAssistant, ccToolUseLine, ccUser, nestedArrays } from './attacks/transcripts.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** A Claude Code transcript of one call, session `id`; `poison` puts a record nested 100k deep before the call. */
const transcript = (id: string, poison = false): string =>
  [
    ccUser('u1', null, `task of ${id}`),
    ...(poison ? [ccToolUseLine('p1', 'u1', nestedArrays(100_000))] : []),
    ccAssistant('a1', 'u1', [{ type: 'text', text: 'looking' }]),
    ccUser('u2', 'a1', 'thanks'),
    ccAssistant('a2', 'u2', [{ type: 'text', text: 'done' }]),
  ]
    .join('\n')
    .replaceAll('"sessionId":"hostile"', `"sessionId":"${id}"`) + '\n';

async function watching(): Promise<{ dir: string; poll: () => Promise<void>; logs: string[]; stored: (id: string) => number; statePath: string }> {
  const relay = await testRelay({ analysis: false });
  cleanup.push(() => relay.close());
  const dir = tempDir('ch-watch-');
  fs.mkdirSync(path.join(dir, 'project'));
  const logs: string[] = [];
  const statePath = path.join(dir, 'state.json');
  const watcher = startWatch({ paths: [path.join(dir, 'project')], url: relay.url, statePath, pollMs: 60_000, log: (l) => logs.push(l) });
  cleanup.push(() => watcher.stop());
  const stored = (id: string): number => {
    const f = path.join(relay.dataDir, 'sessions', `${id}.jsonl`);
    return fs.existsSync(f) ? fs.readFileSync(f, 'utf8').trim().split('\n').length : 0;
  };
  return { dir, poll: () => watcher.poll(), logs, stored, statePath };
}

describe('watch', () => {
  it('a poisoned file between two good ones: both good sessions reach the relay, the state file is written, the error is logged once', async () => {
    const { dir, poll, logs, stored, statePath } = await watching();
    fs.writeFileSync(path.join(dir, 'project', 'a.jsonl'), transcript('good-a'));
    fs.writeFileSync(path.join(dir, 'project', 'b.jsonl'), transcript('poisoned', true));
    fs.writeFileSync(path.join(dir, 'project', 'c.jsonl'), transcript('good-c'));
    for (let i = 0; i < 5; i++) await poll();
    expect(stored('good-a')).toBe(3);
    expect(stored('good-c')).toBe(3);
    expect(stored('poisoned')).toBe(3); // its other records are read
    const errors = logs.filter((l) => l.includes('b.jsonl:2:') && l.includes('nests arrays and objects more than 64 levels deep'));
    expect(errors, logs.join('\n')).toHaveLength(1);
    expect(Object.keys(JSON.parse(fs.readFileSync(statePath, 'utf8')) as object)).toHaveLength(3);
  }, 60_000);

  it('a file whose read throws: skipped and logged once per change, not per poll, never holding up the file after it; read again once it changes', async () => {
    const relay = await testRelay({ analysis: false });
    cleanup.push(() => relay.close());
    const dir = tempDir('ch-watch-bad-');
    const bad = path.join(dir, 'bad.jsonl');
    const good = path.join(dir, 'good.jsonl');
    fs.mkdirSync(bad); // a folder where a file is listed: its read throws (EISDIR)
    fs.writeFileSync(good, transcript('good-after'));
    const logs: string[] = [];
    const statePath = path.join(dir, 'state.json');
    const watcher = startWatch({ paths: [], files: () => [bad, good], url: relay.url, statePath, pollMs: 60_000, log: (l) => logs.push(l) });
    cleanup.push(() => watcher.stop());
    const stored = (id: string): number => {
      const f = path.join(relay.dataDir, 'sessions', `${id}.jsonl`);
      return fs.existsSync(f) ? fs.readFileSync(f, 'utf8').trim().split('\n').length : 0;
    };
    const skipped = (): string[] => logs.filter((l) => l.startsWith(`${bad}: `) && l.endsWith('; skipped until it changes'));
    for (let i = 0; i < 5; i++) await watcher.poll();
    expect(skipped(), logs.join('\n')).toHaveLength(1);
    expect(stored('good-after')).toBe(3);
    expect(Object.keys(JSON.parse(fs.readFileSync(statePath, 'utf8')) as object)).toContain(good); // the state file is written
    // it changes and still throws: one more line, then quiet again
    fs.writeFileSync(path.join(bad, 'x'), 'x');
    fs.utimesSync(bad, new Date(), new Date(Date.now() + 5000));
    for (let i = 0; i < 3; i++) await watcher.poll();
    expect(skipped(), logs.join('\n')).toHaveLength(2);
    // it becomes a transcript: read at the next poll
    fs.rmSync(bad, { recursive: true });
    fs.writeFileSync(bad, transcript('bad-mended'));
    await watcher.poll();
    expect(stored('bad-mended')).toBe(3);
    expect(skipped()).toHaveLength(2);
  }, 60_000);

  it('does not write the state file through a planted <state>.tmp link', async () => {
    const { dir, poll, stored, statePath } = await watching();
    const victim = path.join(dir, 'victim');
    fs.writeFileSync(victim, 'precious\n');
    fs.symlinkSync(victim, `${statePath}.tmp`);
    fs.writeFileSync(path.join(dir, 'project', 'a.jsonl'), transcript('linked'));
    await poll();
    expect(stored('linked')).toBe(3);
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(fs.lstatSync(statePath).isFile()).toBe(true);
    expect(Object.keys(JSON.parse(fs.readFileSync(statePath, 'utf8')) as object)).toHaveLength(1);
    // no temporary file is left behind
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.tmp') && n !== 'state.json.tmp')).toEqual([]);
  }, 60_000);
});

describe('report files', () => {
  it('a FIFO at report.md is refused at once (no hang), and nothing is written through it', async () => {
    const out = tempDir('ch-out-');
    execFileSync('mkfifo', [path.join(out, 'report.md')]);
    await expect(writeReportFiles(out, [{ name: 'report.md', bytes: '# r\n' }])).rejects.toThrow(/report\.md: it is not a regular file \(a FIFO/);
    expect(fs.lstatSync(path.join(out, 'report.md')).isFIFO()).toBe(true);
    expect(fs.readdirSync(out)).toEqual(['report.md']);
  });

  it('a planted temporary name does not matter: each file is created under a fresh name and renamed', async () => {
    // the file the link points at is outside the report's folder, in a folder of the test's own
    const out = path.join(tempDir('ch-out-'), 'out');
    fs.mkdirSync(out);
    const victim = path.join(out, '..', 'victim');
    fs.writeFileSync(victim, 'precious\n');
    fs.symlinkSync(victim, path.join(out, 'report.md.tmp'));
    await writeReportFiles(out, [
      { name: 'report.md', bytes: '# r\n' },
      { name: 'figures/a.svg', bytes: new Uint8Array([60, 115, 118, 103, 62]) },
    ]);
    expect(fs.readFileSync(path.join(out, 'report.md'), 'utf8')).toBe('# r\n');
    expect(fs.readFileSync(path.join(out, 'figures/a.svg'), 'utf8')).toBe('<svg>');
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n');
  });

  it('a report in pieces goes to its file piece by piece, through a fresh name renamed over the last one, and is their bytes in order', async () => {
    const out = tempDir('ch-out-');
    const enc = new TextEncoder();
    const pieces = ['# r\n', 'é😀 ', '', 'end\n'].map((p) => enc.encode(p));
    fs.writeFileSync(path.join(out, 'report.html'), 'the last report\n');
    await writeReportFiles(out, [{ name: 'report.html', bytes: pieces }]);
    expect(fs.lstatSync(path.join(out, 'report.html')).isFile()).toBe(true);
    expect(fs.readFileSync(path.join(out, 'report.html'), 'utf8')).toBe('# r\né😀 end\n');
    expect(fs.readdirSync(out)).toEqual(['report.html']);
  });
});

describe('report of a huge compaction', () => {
  it('quotes at most 64 KiB of the summary, says how much it left out, and stays under 10× the input', async () => {
    const { runCli } = await import('../cli/runCli.ts');
    const { ccCompactBoundary } = await import('./attacks/transcripts.ts');
    const dir = tempDir('ch-huge-');
    const summary = 'This session is being continued from a previous conversation. ' + 'The parser was fixed and tested again. '.repeat(50_000);
    const file = path.join(dir, 'huge.jsonl');
    fs.writeFileSync(
      file,
      [
        ccUser('u1', null, 'fix the parser'),
        ccAssistant('a1', 'u1', [{ type: 'text', text: 'reading' }]),
        ccCompactBoundary('c1', 'a1'),
        ccUser('u2', 'c1', summary, { isCompactSummary: true }),
        ccAssistant('a2', 'u2', [{ type: 'text', text: 'continuing' }]),
      ].join('\n') + '\n',
    );
    const out = path.join(dir, 'out');
    const r = await runCli(['report', file, '--compaction', '1', '--out', out]);
    expect(r.code, r.stderr).toBeLessThan(2);
    const md = fs.readFileSync(path.join(out, 'report.md'), 'utf8');
    expect(md).toMatch(
      /_… \([\d,]+ more characters not shown\): a report quotes at most 65,536 characters of a summary; the whole text is in the transcript\._/,
    );
    const left = Number(/… \(([\d,]+) more characters not shown\)/.exec(md)![1]!.replace(/,/g, ''));
    expect(left).toBe(summary.length - 64 * 1024);
    let written = 0;
    for (const f of fs.readdirSync(out, { recursive: true }).map(String))
      if (fs.statSync(path.join(out, f)).isFile()) written += fs.statSync(path.join(out, f)).size;
    expect(written).toBeLessThan(10 * fs.statSync(file).size);
    // report.html: its data carries the summary cut at the same 64 KiB, the rest counted
    const html = path.join(dir, 'html');
    const h = await runCli(['report', file, '--compaction', '1', '--format', 'html', '--out', html]);
    expect(h.code, h.stderr).toBeLessThan(2);
    const page = fs.readFileSync(path.join(html, 'report.html'), 'utf8');
    const json = /<script type="application\/json" id="context-health-report">(.*)<\/script>/s.exec(page)![1]!;
    const data = JSON.parse(json) as { compaction: { summary_text: string; summary_left_out: number } };
    expect(data.compaction.summary_text).toHaveLength(64 * 1024);
    expect(data.compaction.summary_left_out).toBe(summary.length - 64 * 1024);
    expect(page.length).toBeLessThan(64 * 1024 + 200_000);
  }, 120_000);
});
