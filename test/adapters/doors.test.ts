// contract §7 adapters: `check` as a user runs it on a Claude Code transcript. The Worker's
// side is src/worker/adapters.test.ts.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckReport } from '../../src/core/report.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const FIXTURE = path.join(ROOT, 'test/fixtures/adapters/claude-code.jsonl');

function runCli(args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/context-health.mjs'), ...args], { cwd: ROOT });
    const out: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout: Buffer.concat(out).toString('utf8') }));
  });
}

describe('check on a Claude Code transcript', () => {
  it('check recognises it by content, lists the records it left out, and --from forces the format', async () => {
    const human = await runCli(['check', FIXTURE]);
    expect(human.stdout).toMatch(/6 turns, 0 input errors/);
    expect(human.stdout).toMatch(/Read as a Claude Code transcript/);
    expect(human.stdout).toMatch(/Records not mapped: .*1 truncated last line/);
    const json = await runCli(['check', '--json', '--from', 'claude-code', FIXTURE]);
    const report = JSON.parse(json.stdout) as CheckReport & { adapter: { format: string; skipped_records: Record<string, number> } };
    expect(report.adapter.format).toBe('claude-code');
    expect(report.adapter.skipped_records['weird-new-type']).toBe(1);
    // forced as the product's own format, every record is an input error instead
    const asWire = JSON.parse((await runCli(['check', '--json', '--from', 'wire', FIXTURE])).stdout) as CheckReport & { adapter?: unknown };
    expect(asWire.adapter).toBeUndefined();
    expect(asWire.input_errors.length).toBeGreaterThan(20);
    expect((await runCli(['check', '--from', 'bogus', FIXTURE])).code).toBe(2);
  });
});
