// `npm run bench -- stream-json`: issue 39's "2.5M tiny calls": check --json of a wire transcript
// of 2.5M one-span turns (~255 MB; CONTEXT_HEALTH_BENCH_TURNS to change), once, through the
// real executable, its output piped into a counter that checks the JSON's brackets balance
// outside strings and that it ends in one newline (the text is ~0.5 GB: more than one string
// may hold, which is the point). Prints time, output bytes and the process's peak RSS.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeManyTurns } from '../test/cli/manyTurns.ts';
import { loadAverage } from './cpu.ts';

const BIN = path.resolve(import.meta.dirname, '../bin/context-health.mjs');

/** A streaming check of JSON structure: depth never below 0, 0 at the end, strings closed. */
class JsonShape {
  depth = 0;
  inString = false;
  escaped = false;
  bytes = 0;
  broken = false;
  last = 0;
  feed(b: Buffer): void {
    this.bytes += b.length;
    for (let i = 0; i < b.length; i++) {
      const c = b[i]!;
      this.last = c;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 0x5c) this.escaped = true;
        else if (c === 0x22) this.inString = false;
      } else if (c === 0x22) this.inString = true;
      else if (c === 0x7b || c === 0x5b) this.depth++;
      else if (c === 0x7d || c === 0x5d) {
        this.depth--;
        if (this.depth < 0) this.broken = true;
      }
    }
  }
  valid(): boolean {
    return !this.broken && !this.inString && this.depth === 0 && this.last === 0x0a;
  }
}

export async function benchStreamJson(): Promise<void> {
  const turns = Number(process.env.CONTEXT_HEALTH_BENCH_TURNS ?? 2_500_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-stream-json-'));
  try {
    const file = path.join(dir, 'many.jsonl');
    writeManyTurns(file, turns);
    const size = fs.statSync(file).size;
    const shape = new JsonShape();
    const start = performance.now();
    const { code, stderr, rss } = await new Promise<{ code: number | null; stderr: string; rss: number }>((resolve, reject) => {
      // /usr/bin/time is not everywhere: the child reports its own peak RSS at exit
      const child = spawn(process.execPath, ['--import', path.resolve(import.meta.dirname, 'peakRss.mjs'), BIN, 'check', '--json', '--fail-on', 'never', file]);
      const err: Buffer[] = [];
      child.stdout.on('data', (b: Buffer) => shape.feed(b));
      child.stderr.on('data', (b: Buffer) => err.push(b));
      child.on('error', reject);
      child.on('close', (c) => {
        const text = Buffer.concat(err).toString('utf8');
        const m = /peak-rss-bytes (\d+)/.exec(text);
        resolve({ code: c, stderr: text.replace(/peak-rss-bytes \d+\n?/, ''), rss: m ? Number(m[1]) : Number.NaN });
      });
    });
    const s = (performance.now() - start) / 1000;
    console.log(`stream-json: ${turns} turns, ${(size / 2 ** 20).toFixed(0)} MiB in, exit ${code}, ${s.toFixed(1)} s`);
    console.log(
      `  output ${(shape.bytes / 2 ** 20).toFixed(0)} MiB, ${shape.valid() ? 'one valid JSON document (brackets balance, strings close, one newline at the end)' : 'NOT a valid JSON document'}`,
    );
    console.log(`  peak RSS ${(rss / 2 ** 20).toFixed(0)} MiB; load average ${loadAverage()}`);
    if (stderr.trim() !== '') console.log(`  stderr: ${stderr.trim().slice(0, 500)}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
