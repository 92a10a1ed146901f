// contract §7 adapters: `check` as a user runs it on a Claude Code transcript. The Worker's
// side is src/worker/adapters.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckOutput } from '../../src/core/checkOutput.ts';
import { ROOT, runCli } from '../cli/runCli.ts';

const FIXTURE = path.join(ROOT, 'test/fixtures/adapters/claude-code.jsonl');

describe('check on a Claude Code transcript', () => {
  it('check recognises it by content, lists the records it left out, and --from forces the format', async () => {
    const human = await runCli(['check', FIXTURE]);
    expect(human.stdout).toMatch(/6 turns, 0 input errors/);
    expect(human.stdout).toMatch(/Read as a Claude Code transcript/);
    expect(human.stdout).toMatch(/Records not mapped: .*1 truncated last line/);
    const json = await runCli(['check', '--json', '--from', 'claude-code', FIXTURE]);
    const report = JSON.parse(json.stdout) as CheckOutput & { adapter: { format: string; skipped_records: Record<string, number> } };
    expect(report.adapter.format).toBe('claude-code');
    expect(report.adapter.skipped_records['weird-new-type']).toBe(1);
    // forced as the product's own format, every record is an input error instead
    const asWire = JSON.parse((await runCli(['check', '--json', '--from', 'wire', FIXTURE])).stdout) as CheckOutput & { adapter?: unknown };
    expect(asWire.adapter).toBeUndefined();
    expect(asWire.input_errors.length).toBeGreaterThan(20);
    expect((await runCli(['check', '--from', 'bogus', FIXTURE])).code).toBe(2);
  });
});

describe('check --scorer (contract §7 reference scorer)', () => {
  it('a transcript whose sessions carry harness scores analyses with the default scorer exactly as with --scorer harness (as before)', async () => {
    const { checkTranscript } = await import('../../src/cli/check.ts');
    const samples = fs.readdirSync(path.join(ROOT, 'public/samples')).filter((f) => /\.jsonl(\.gz)?$|\.json$/.test(f));
    expect(samples.length).toBeGreaterThan(3);
    for (const f of samples) {
      const file = path.join(ROOT, 'public/samples', f);
      const harness = await checkTranscript(file, { userThresholds: {}, scorer: 'harness' });
      const auto = await checkTranscript(file, { userThresholds: {}, scorer: 'auto' });
      expect(auto.report, f).toEqual(harness.report);
    }
  });

  it('scores a Claude Code transcript with the reference by default, and not with --scorer harness', async () => {
    const auto = JSON.parse((await runCli(['check', '--json', FIXTURE])).stdout) as CheckOutput;
    const harness = JSON.parse((await runCli(['check', '--json', '--scorer', 'harness', FIXTURE])).stdout) as CheckOutput;
    expect(auto.sessions[0]!.metrics.every((m) => m.n_scored > 0)).toBe(true);
    expect(harness.sessions[0]!.metrics.every((m) => m.n_scored === 0)).toBe(true);
    expect(auto.sessions[0]!.findings.some((f) => f.signal === 'unscored_span')).toBe(false);
    expect((await runCli(['check', '--scorer', 'bogus', FIXTURE])).code).toBe(2);
  });
});

describe('watch', () => {
  it('--help says what it watches and how it resumes, instead of failing on an unknown option', async () => {
    const r = await runCli(['watch', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/usage: context-health watch/);
    expect(r.stdout).toMatch(/--state FILE/);
  });
});
