// Hostile input at the CLI's door (docs/engine.md, "Hostile input"), and the relay's
// inheritance of the engine's nesting limit: each case is an attack, at a small size.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_NESTING } from '../../src/core/nesting.ts';
import type { CheckOutput } from '../../src/core/checkOutput.ts';
import { DEFAULT_RELAY_LIMITS, inspect } from '../../src/server/sessionGate.ts';
import { runCli, type CliInput, type CliRun } from './runCli.ts';

const sha = (t: string): string => crypto.createHash('sha256').update(t, 'utf8').digest('hex');
/** preloaded into the child: prints its peak RSS (MiB) on stderr as it exits */
const PRINT_PEAK_RSS = `data:text/javascript,process.on('exit',()=>process.stderr.write('peak-rss-mib '+(process.resourceUsage().maxRSS/1024)+'\\n'))`;

/** Runs the CLI; `feed` writes its stdin (then it is closed). */
const run = (args: string[], feed?: CliInput['feed'], nodeArgs?: string[]): Promise<CliRun> => runCli(args, { feed, nodeArgs });

async function write(stream: NodeJS.WritableStream, chunk: Uint8Array | string): Promise<void> {
  if (!stream.write(chunk)) await new Promise((r) => stream.once('drain', r));
}

const span = (id: string, text: string): Record<string, unknown> => ({ span_id: id, text, score: 0.5, text_sha256: sha(text), tokens: 3 });
const snapshot = (turn: number, extra: Record<string, unknown> = {}, session = 's'): string =>
  JSON.stringify({ type: 'snapshot', session_id: session, turn, spans: [span('a', 'alpha'), span('b', 'beta')], ...extra });
/** a snapshot line whose unknown field nests `levels` arrays */
const deepLine = (turn: number, levels: number): string => snapshot(turn).slice(0, -1) + `,"meta":${'['.repeat(levels)}${']'.repeat(levels)}}`;

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-hostile-'));
});

describe('nesting', () => {
  it('a line nesting 10,000 arrays is one input error naming the limit; check reads every other line', async () => {
    const file = path.join(dir, 'deep.jsonl');
    fs.writeFileSync(file, [snapshot(1), deepLine(2, 10_000), snapshot(3), deepLine(4, 100_000), snapshot(5)].join('\n') + '\n');
    const r = await run(['check', '--json', file]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as CheckOutput;
    expect(report.sessions[0]!.turns).toBe(3);
    expect(report.input_errors.map((e) => e.line)).toEqual([2, 4]);
    for (const e of report.input_errors) expect(e.message).toContain(`more than ${MAX_NESTING} levels deep`);
  });

  it('the relay refuses such a line with the engine sentence (sessionGate.inspect runs the engine validation)', () => {
    const ins = inspect(Buffer.from(deepLine(1, 100_000)), DEFAULT_RELAY_LIMITS);
    expect(ins).toMatchObject({ kind: 'error', sessionId: 's' });
    expect(ins.kind === 'error' && ins.message).toContain(`more than ${MAX_NESTING} levels deep`);
    expect(inspect(Buffer.from(deepLine(1, MAX_NESTING - 3)), DEFAULT_RELAY_LIMITS).kind).toBe('valid');
  });
});

describe('endless and degenerate input', () => {
  it('a line over --max-line-bytes says so (not "not valid UTF-8"), and the lines after it are read', async () => {
    const r = await run(['check', '--json', '--max-line-bytes', '1K', '-'], async (stdin) => {
      await write(stdin, snapshot(1) + '\n');
      await write(stdin, new Uint8Array(3 << 20)); // NUL bytes
      await write(stdin, '\n' + snapshot(2) + '\n');
    });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as CheckOutput;
    expect(report.sessions[0]!.turns).toBe(2);
    expect(report.input_errors).toEqual([
      { line: 2, message: `the line is ${3 << 20} bytes long, over the limit of 1 KiB per line (--max-line-bytes): it was skipped, not read` },
    ]);
  });

  it('memory stays flat on 320 MiB of NUL bytes with no newline, piped in (it held all of it, twice)', async () => {
    const zeros = new Uint8Array(1 << 20);
    const r = await run(
      ['check', '-'],
      async (stdin) => {
        for (let i = 0; i < 320; i++) await write(stdin, zeros);
      },
      ['--import', PRINT_PEAK_RSS],
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('over the limit of 64 MiB per line');
    const peak = Number(/peak-rss-mib ([\d.]+)/.exec(r.stderr)?.[1]);
    // the 64 MiB line limit plus the runtime; without a limit the line was held and then joined (> 640 MiB)
    expect(peak).toBeLessThan(400);
  });

  it('reads a FIFO as a stream (positional reads failed with ESPIPE)', async () => {
    const fifo = path.join(dir, 'fifo');
    const made = spawnSync('mkfifo', [fifo]);
    if (made.status !== 0) return; // no mkfifo here: nothing to test
    const child = run(['check', '--json', fifo]);
    await fs.promises.writeFile(fifo, [snapshot(1), snapshot(2)].join('\n') + '\n');
    const r = await child;
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as CheckOutput).sessions[0]!.turns).toBe(2);
  });
});

describe('the human output', () => {
  it('shows control characters from titles, ids and bad lines escaped, never raw', async () => {
    const file = path.join(dir, 'escapes.jsonl');
    const evilSession = 'run\u001b]0;pwned\u0007';
    fs.writeFileSync(
      file,
      [
        JSON.stringify({ type: 'session', session_id: evilSession, title: 'title \u001b[2J\u009b31m\u007f' }),
        JSON.stringify({ type: 'snapshot', session_id: evilSession, turn: 1, spans: [{ span_id: 'x\u001b[5m', text: 't', score: 0.5, text_sha256: null }] }),
        '\u001b[31m not json',
      ].join('\n') + '\n',
    );
    const r = await run(['check', file]);
    expect(r.code).toBe(1);
    // nothing but newlines below 0x20, no DEL, no C1
    expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(r.stdout).toContain('title \\x1b[2J\\x9b31m\\x7f');
    expect(r.stdout).toContain('x\\x1b[5m');
    expect(r.stdout).toMatch(/line 3: not valid JSON: .*\\x1b/);
  });

  it('check --help documents the limits', async () => {
    const r = await run(['check', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--max-line-bytes');
    expect(r.stdout).toContain(`${MAX_NESTING} levels`);
  });
});
