// `context-health watch` (docs/adapters.md): a Claude Code transcript appended line by line
// (records split across writes too) while a real relay runs on 127.0.0.1; the session the
// relay stored analyses exactly as `check` of the whole file, and a restarted watcher
// resumes where the last one stopped without sending anything twice.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkTranscript } from '../../src/cli/check.ts';
import { startWatch, type Watcher } from '../../src/cli/watch.ts';
import { tempDir, testRelay } from '../relay/helpers.ts';

const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/adapters/claude-code.jsonl');

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe('context-health watch', () => {
  it('streams a growing transcript into a relay, across its compactions; the stored session analyses as check of the whole file', async () => {
    const relay = await testRelay();
    cleanup.push(() => relay.close());
    const dir = tempDir('ch-watch-');
    const file = path.join(dir, 'project', 'cc-fixture.jsonl');
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, '');
    const statePath = path.join(dir, 'state.json');
    const bytes = fs.readFileSync(FIXTURE);
    const lines = bytes.toString('utf8').split('\n');
    const complete = lines.slice(0, -1); // the last one is the truncated record
    const half = Math.floor(complete.length / 2);

    let watcher: Watcher = startWatch({ paths: [dir], url: relay.url, statePath, pollMs: 20 });
    for (const [i, line] of complete.slice(0, half).entries()) {
      // one record in two writes: the first half must wait for its newline
      if (i % 3 === 0) {
        fs.appendFileSync(file, line.slice(0, 10));
        await watcher.poll();
        fs.appendFileSync(file, line.slice(10) + '\n');
      } else fs.appendFileSync(file, line + '\n');
      await watcher.poll();
    }
    await watcher.stop();

    // a restart: the state file says how far the last run went
    expect(JSON.parse(fs.readFileSync(statePath, 'utf8'))[file].offset).toBeGreaterThan(0);
    watcher = startWatch({ paths: [dir], url: relay.url, statePath, pollMs: 20 });
    cleanup.push(() => watcher.stop());
    for (const line of complete.slice(half)) {
      fs.appendFileSync(file, line + '\n');
      await watcher.poll();
    }
    fs.appendFileSync(file, lines[lines.length - 1]!); // being written: not sent
    await watcher.poll();

    const stored = path.join(relay.dataDir, 'sessions', 'cc-fixture.jsonl');
    const storedLines = fs.readFileSync(stored, 'utf8').trim().split('\n');
    // a header and six snapshots, each sent once
    expect(storedLines).toHaveLength(7);
    const viaRelay = await checkTranscript(stored, { userThresholds: {} });
    const whole = await checkTranscript(FIXTURE, { userThresholds: {} });
    expect(viaRelay.report.sessions).toEqual(whole.report.sessions);
    // contract §8: the compactions streamed across (each once, with its audit) and the scope, as check of the file
    expect(viaRelay.report.sessions[0]!.compactions?.map((c) => [c.turn, c.kind, c.items.length])).toEqual([
      [3, 'microcompact', 0],
      [5, 'compact', 4],
    ]);
    expect(viaRelay.report.sessions[0]!.not_applicable).toBeDefined();
    expect(viaRelay.report.input_errors).toEqual([]);
  });
});
