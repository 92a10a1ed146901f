// Issue 26 #7: `watch` survives what happens to log files (truncation, rotation, a file
// rewritten from the start, a huge line) and does not follow links out of its folder.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startWatch, type Watcher } from '../../src/cli/watch.ts';
import { tempDir, testRelay } from '../relay/helpers.ts';

const FIXTURE = fs.readFileSync(path.resolve(import.meta.dirname, '../fixtures/adapters/claude-code.jsonl'), 'utf8');
/** the fixture's complete records (its last line is cut off), as session `id` */
const transcript = (id: string): string =>
  FIXTURE.split('\n')
    .slice(0, -1)
    .map((l) => l.replaceAll('"sessionId":"cc-fixture"', `"sessionId":"${id}"`))
    .join('\n') + '\n';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function setUp(options: { maxLineBytes?: number } = {}): Promise<{
  dir: string;
  watcher: Watcher;
  logs: string[];
  stored: (id: string) => number;
}> {
  const relay = await testRelay({ analysis: false });
  cleanup.push(() => relay.close());
  const dir = tempDir('ch-watch-');
  fs.mkdirSync(path.join(dir, 'project'));
  const logs: string[] = [];
  // a long poll interval: the test polls itself
  const watcher = startWatch({
    paths: [path.join(dir, 'project')],
    url: relay.url,
    statePath: path.join(dir, 'state.json'),
    pollMs: 60_000,
    log: (l) => logs.push(l),
    ...options,
  });
  cleanup.push(() => watcher.stop());
  const stored = (id: string): number => {
    const f = path.join(relay.dataDir, 'sessions', `${id}.jsonl`);
    return fs.existsSync(f) ? fs.readFileSync(f, 'utf8').trim().split('\n').length : 0;
  };
  return { dir, watcher, logs, stored };
}

describe('watch and its files', () => {
  it('a truncated file that grows again is read from its start', async () => {
    const { dir, watcher, stored } = await setUp();
    const file = path.join(dir, 'project', 'run.jsonl');
    fs.writeFileSync(file, transcript('first'));
    await watcher.poll();
    expect(stored('first')).toBe(7);
    fs.truncateSync(file, 0);
    await watcher.poll();
    fs.appendFileSync(file, transcript('second'));
    await watcher.poll();
    expect(stored('second')).toBe(7);
  });

  it('a rotated file (renamed away, a new one in its place) and one rewritten in place are read from their start', async () => {
    const { dir, watcher, stored } = await setUp();
    const file = path.join(dir, 'project', 'run.jsonl');
    fs.writeFileSync(file, transcript('first'));
    await watcher.poll();
    // no poll between: the new file is already longer than what was read of the old one
    fs.renameSync(file, path.join(dir, 'rotated.log'));
    fs.writeFileSync(file, transcript('second') + transcript('second').split('\n')[0] + '\n');
    await watcher.poll();
    expect(stored('second')).toBe(7);
    // copy-truncate and regrow between two polls: same inode, larger, different first bytes
    fs.writeFileSync(file, transcript('third-one') + transcript('third-one').split('\n')[0] + '\n');
    expect(fs.statSync(file).size).toBeGreaterThan(transcript('second').length);
    await watcher.poll();
    expect(stored('third-one')).toBe(7);
  });

  it('a line longer than the limit is skipped in bounded reads; the lines after it and other files are read', async () => {
    const { dir, watcher, logs, stored } = await setUp({ maxLineBytes: 64 * 1024 });
    const big = path.join(dir, 'project', 'big.jsonl');
    const small = path.join(dir, 'project', 'small.jsonl');
    fs.writeFileSync(big, 'x'.repeat(1024 * 1024) + '\n' + transcript('after-big'));
    fs.writeFileSync(small, transcript('small'));
    for (let i = 0; i < 20 && stored('after-big') < 7; i++) await watcher.poll();
    expect(stored('small')).toBe(7);
    expect(stored('after-big')).toBe(7);
    expect(logs.filter((l) => l.includes('the line is longer than 65536 bytes; skipped'))).toHaveLength(1);
  });

  it('does not follow a link out of the watched folder', async () => {
    const { dir, watcher, logs, stored } = await setUp();
    const outside = path.join(dir, 'secret.jsonl');
    fs.writeFileSync(outside, transcript('outside'));
    fs.symlinkSync(outside, path.join(dir, 'project', 'link.jsonl'));
    fs.writeFileSync(path.join(dir, 'project', 'inside.jsonl'), transcript('inside'));
    await watcher.poll();
    expect(stored('inside')).toBe(7);
    expect(stored('outside')).toBe(0);
    expect(logs.some((l) => l.includes('a link out of the watched folder'))).toBe(true);
  });

  it("skips Claude Code's auto-compaction calls in a folder, and says so once", async () => {
    const { dir, watcher, logs, stored } = await setUp();
    const sub = path.join(dir, 'project', 'parent', 'subagents');
    fs.mkdirSync(sub, { recursive: true });
    fs.writeFileSync(path.join(sub, 'agent-acompact-1f2e.jsonl'), transcript('compactor'));
    fs.writeFileSync(path.join(dir, 'project', 'parent.jsonl'), transcript('parent'));
    await watcher.poll();
    await watcher.poll();
    expect(stored('parent')).toBe(7);
    expect(stored('compactor')).toBe(0);
    expect(logs.filter((l) => l.includes('agent-acompact-1f2e.jsonl') && l.includes('not a session'))).toHaveLength(1);
  });
});
