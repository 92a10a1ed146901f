// issue 25: `check` with parsing threads gives byte for byte the report of one thread, for
// every input: the samples, the real-agent fixtures, a corpus of edge and fuzzed lines, gzip
// and JSON-array input, and batches of 1, 7, 4096 bytes and the whole file (docs/contributing.md, "Tests":
// the tests choose the chunk size; with 1 and 7 every line is at a batch's edge). And a thread
// that dies mid-file fails the command with one sentence, never a partial report.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { adapterJson } from '../../src/cli/adapterNote.ts';
import { checkTranscript, type CheckOptions } from '../../src/cli/check.ts';
import { humanOutput } from '../../src/cli/humanOutput.ts';
import { allFaults, simulateSession } from '../../src/sim/scenario.ts';
import { nodeSha256 } from '../../src/node/platform.ts';
import { LinePool } from '../../src/node/linePool.ts';
import { edgeLines } from './edgeLines.ts';
import { ROOT, runCli } from './runCli.ts';

const BATCHES = [1, 7, 4096, Number.POSITIVE_INFINITY];

/** What `check --json` and the human output print, from one run. */
async function printed(file: string, options: Partial<CheckOptions>): Promise<string> {
  const r = await checkTranscript(file, { userThresholds: {}, threadMinBytes: 0, ...options });
  return JSON.stringify({ ...r.report, ...adapterJson(r.adapter) }) + '\n' + humanOutput(r.report, file, r.titles);
}

/**
 * The ordinary way (every line parsed and validated on one thread, no scanner) against one
 * thread with the snapshot scanner, and three threads at each batch size, every batch they
 * have room for given to them (and once with the share as a run judges it).
 */
async function expectSameAsOneThread(file: string, extra: Partial<CheckOptions> = {}): Promise<void> {
  const ordinary = await printed(file, { ...extra, threads: 1, scan: false });
  expect(await printed(file, { ...extra, threads: 1 }), `${path.basename(file)}, one thread with the scanner`).toBe(ordinary);
  for (const threadBatchBytes of BATCHES) {
    const many = await printed(file, { ...extra, threads: 3, threadBatchBytes, threadFixedShare: true });
    expect(many, `${path.basename(file)}, batches of ${threadBatchBytes} bytes`).toBe(ordinary);
  }
  expect(await printed(file, { ...extra, threads: 3, threadBatchBytes: 4096 }), `${path.basename(file)}, the threads' share judged`).toBe(ordinary);
}

/** The edge lines, each seeded mutation of them too: bytes dropped, flipped or doubled (deterministic). */
function fuzzedLines(seed: number, count: number): string[] {
  let s = seed;
  const next = (): number => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 2 ** 32;
  };
  const source = edgeLines();
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let line = source[Math.floor(next() * source.length)]!;
    const at = Math.floor(next() * line.length);
    const r = next();
    if (r < 0.25) line = line.slice(0, at) + line.slice(at + 1);
    else if (r < 0.5) line = line.slice(0, at) + String.fromCharCode(32 + Math.floor(next() * 95)) + line.slice(at + 1);
    else if (r < 0.6) line = line.slice(0, at) + line.slice(at, at + 8) + line.slice(at);
    out.push(line);
  }
  return out;
}

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-threads-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: string | Buffer): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
}

describe('check with parsing threads: the report of one thread, byte for byte', () => {
  // the files of every folder (public/samples/agents too); an OpenHands conversation's folder is read whole and is its own case
  const filesIn = (dir: string): string[] =>
    fs
      .readdirSync(path.join(ROOT, dir), { recursive: true })
      .map(String)
      .filter((f) => !f.endsWith('.md') && fs.statSync(path.join(ROOT, dir, f)).isFile() && !f.includes('openhands-conversation'));
  const samples = filesIn('public/samples');
  const fixtures = filesIn('test/fixtures/adapters');

  it.each(samples)('public/samples/%s', async (f) => {
    await expectSameAsOneThread(path.join(ROOT, 'public/samples', f));
  });

  it.each(fixtures)('test/fixtures/adapters/%s', async (f) => {
    await expectSameAsOneThread(path.join(ROOT, 'test/fixtures/adapters', f));
  });

  it('edge lines: bad lines among good ones at every batch edge, CRLF, a line over --max-line-bytes, bytes that are not UTF-8', async () => {
    const lines = edgeLines();
    const text = lines.join('\n');
    const bytes = Buffer.concat([
      Buffer.from(lines.slice(0, 5).join('\r\n') + '\r\n'),
      Buffer.from([0xff, 0xfe, 0x0a]), // not UTF-8
      Buffer.from('x'.repeat(3000) + '\n'), // over the limit below
      Buffer.from(lines.slice(5).join('\n')), // no newline at the end
    ]);
    await expectSameAsOneThread(write('edges.jsonl', text));
    await expectSameAsOneThread(write('edges-bytes.jsonl', bytes), { maxLineBytes: 2048 });
    await expectSameAsOneThread(write('edges.jsonl.gz', zlib.gzipSync(bytes)), { maxLineBytes: 2048 });
  });

  it('edge lines as a .json array (elements over several lines, a structure error at the end)', async () => {
    const elements = edgeLines().filter((l) => l.startsWith('{') && !l.includes('not json'));
    await expectSameAsOneThread(write('edges.json', '[\n' + elements.join(',\n') + '\n]\n'));
    await expectSameAsOneThread(write('edges-open.json', '[\n' + elements.map((e) => JSON.stringify(JSON.parse(e), null, 2)).join(',\n')));
  });

  it('a fuzzed-line corpus (seeded)', async () => {
    for (const seed of [1, 2, 3]) await expectSameAsOneThread(write(`fuzz-${seed}.jsonl`, fuzzedLines(seed, 300).join('\n')));
  });

  it('a simulated session with every fault (many spans, texts mostly repeated, some non-ASCII)', async () => {
    const out: string[] = [];
    for (const m of simulateSession(
      { seed: 7, sessionId: 'sim', turns: 60, spans: 40, textChars: 120, nonAscii: true, pinned: 2, faults: allFaults(60) },
      nodeSha256,
    )) {
      out.push(JSON.stringify(m));
    }
    await expectSameAsOneThread(write('sim.jsonl', out.join('\n') + '\n'));
  });

  it('with the share judged, threads start only once the scanner declines lines: not for a plain transcript, and for one whose spans carry fields it does not read', async () => {
    const started = vi.spyOn(LinePool.prototype, 'start');
    try {
      const plain = path.join(ROOT, 'public/samples/healthy.jsonl');
      await printed(plain, { threads: 3, threadBatchBytes: 4096 });
      expect(started).not.toHaveBeenCalled();
      // every span with a field the wire format does not name: the scanner declines each line
      const lines = fs
        .readFileSync(plain, 'utf8')
        .split('\n')
        .filter((l) => l !== '');
      const extra = lines.map((l) => {
        const m = JSON.parse(l) as { spans?: Record<string, unknown>[] };
        for (const sp of m.spans ?? []) sp.x_note = 1;
        return JSON.stringify(m);
      });
      const file = write('unknown-fields.jsonl', extra.join('\n') + '\n');
      await printed(file, { threads: 3, threadBatchBytes: 4096 });
      // (whether a batch reaches them before the file is read depends on the machine's load)
      expect(started).toHaveBeenCalled();
      await expectSameAsOneThread(file);
    } finally {
      started.mockRestore();
    }
  });

  it("another agent's transcript or --scorer reference: read on one thread, the same report", async () => {
    const file = path.join(ROOT, 'public/samples/all-faults.jsonl');
    await expectSameAsOneThread(file, { scorer: 'reference' });
    await expectSameAsOneThread(file, { from: 'wire' });
  });
});

/** Over the 8 MiB under which the commands read on one thread; faults, so reports have incidents. */
let big: string | undefined;
function bigFile(): string {
  if (big !== undefined) return big;
  const out: string[] = [];
  for (const m of simulateSession(
    { seed: 3, sessionId: 'big', turns: 120, spans: 200, textChars: 400, nonAscii: false, pinned: 2, faults: allFaults(120) },
    nodeSha256,
  )) {
    out.push(JSON.stringify(m));
  }
  big = write('big.jsonl', out.join('\n') + '\n');
  expect(fs.statSync(big).size).toBeGreaterThan(8 << 20);
  return big;
}

describe('diff and report read with threads too', () => {
  it('diff --json is the same bytes with 1 and 3 threads', async () => {
    const file = bigFile();
    const healthy = path.join(ROOT, 'public/samples/healthy.jsonl');
    const one = await runCli(['diff', '--json', '--fail-on-new', 'never', '--threads', '1', healthy, file]);
    const three = await runCli(['diff', '--json', '--fail-on-new', 'never', '--threads', '3', healthy, file]);
    expect(one.code, one.stderr).toBe(0);
    expect(three.stdout).toBe(one.stdout);
    expect(Object.keys(JSON.parse(one.stdout) as object)).toEqual(expect.arrayContaining(['a', 'b']));
  }, 60_000);

  it('report writes the same files with 1 and 3 threads, and fails whole when a thread stops', async () => {
    const file = bigFile();
    const out = (n: string): string => path.join(dir, n);
    const one = await runCli(['report', '--incident', '1', '--threads', '1', '--out', out('r1'), file]);
    const three = await runCli(['report', '--incident', '1', '--threads', '3', '--out', out('r3'), file]);
    expect(one.code, one.stderr).toBe(1); // the faults reach --fail-on fault, as check says
    expect(three.code, three.stderr).toBe(1);
    const files = (d: string): string[] => fs.readdirSync(d, { recursive: true }).map(String).sort();
    expect(files(out('r3'))).toEqual(files(out('r1')));
    for (const f of files(out('r1')).filter((f) => fs.statSync(path.join(out('r1'), f)).isFile())) {
      expect(fs.readFileSync(path.join(out('r3'), f)).equals(fs.readFileSync(path.join(out('r1'), f))), f).toBe(true);
    }
    const stopped = await runCli(['report', '--incident', '1', '--threads', '3', '--out', out('rx'), file], {
      env: { CONTEXT_HEALTH_TEST_STOP_THREAD_AT: '1' },
    });
    expect(stopped.code).toBe(2);
    expect(stopped.stderr).toContain('a parsing thread stopped');
    expect(fs.existsSync(out('rx'))).toBe(false);
  }, 120_000);

  it('refuses a --threads that is not a whole number from 1 to 256', async () => {
    for (const cmd of [
      ['report', '--incident', '1'],
      ['diff', 'public/samples/healthy.jsonl'],
    ]) {
      const r = await runCli([...cmd, '--threads', '0', 'public/samples/healthy.jsonl']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--threads must be a whole number from 1 to 256, got "0"');
    }
  });
});

describe('a parsing thread that stops mid-file', () => {
  it('fails the command with one sentence and exit 2, and prints no report', async () => {
    const file = bigFile();
    const whole = await runCli(['check', '--json', '--threads', '3', file]);
    expect(whole.code, whole.stderr).toBe(1); // read whole: its faults reach --fail-on fault
    const r = await runCli(['check', '--json', '--threads', '3', file], { env: { CONTEXT_HEALTH_TEST_STOP_THREAD_AT: '1' } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    // on fewer than 3 cores --threads is capped first, and says so (docs/security.md "Hostile transcripts")
    expect(r.stderr.replace(/^context-health: --threads 3 capped to \d+ \([^)]*\)\n/, '')).toBe(
      `context-health: cannot read ${file}: a parsing thread stopped (exit code 70) before every line was read\n`,
    );
  }, 60_000);
});
