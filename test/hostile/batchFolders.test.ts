// A fifth hostile round, on `check FILE|DIR …` (docs/contract.md §6.1.1 "Many files and
// folders"): folders and names a hostile agent, or a hostile archive, could leave behind.
// The promise under attack: a file that cannot be read is its own line, with its error; it
// never stops the others; exit 2 only when no file could be read. And names never drive the
// terminal (docs/security.md "Terminal output").
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../cli/runCli.ts';
import { tempDir } from '../relay/helpers.ts';

const HEALTHY = path.join(ROOT, 'public/samples/healthy.jsonl');

const made: string[] = [];
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
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
