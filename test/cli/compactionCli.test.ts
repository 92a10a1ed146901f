// contract §8.3 `report --compaction N`: the compaction's audit as Markdown beside the report
// of its turns; a compaction that does not exist is exit 2 with one sentence.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from './runCli.ts';

const FIXTURE = path.join(ROOT, 'test/fixtures/adapters/claude-code.jsonl');

describe('report --compaction N', () => {
  it('the report of its turns holds the compaction: summary, items lost first, Markdown-safe', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-rc-'));
    const r = await runCli(['report', FIXTURE, '--compaction', '2', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const md = fs.readFileSync(path.join(out, 'report.md'), 'utf8');
    expect(md).toMatch(/Compaction at turn 5/);
    expect(md).toMatch(/## The compaction/);
    expect(md).toMatch(/This session is being continued/);
    const items = md.slice(md.indexOf('### Items'));
    const rows = items.split('\n').filter((l) => /^\| (lost|kept|paraphrased) \|/.test(l));
    expect(rows.map((l) => l.split(' | ')[0]!.slice(2))).toEqual(['lost', 'lost', 'lost', 'paraphrased']);
    expect(r.stdout).toMatch(/turns 1–6/);
  });

  it('a compaction that does not exist, or a bad number, is exit 2 naming why', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-rc-'));
    const missing = await runCli(['report', FIXTURE, '--compaction', '3', '--out', out]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/has 2 compactions, not 3/);
    const bad = await runCli(['report', FIXTURE, '--compaction', 'x', '--out', out]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--compaction expects a whole number/);
    const both = await runCli(['report', FIXTURE, '--compaction', '1', '--incident', '1', '--out', out]);
    expect(both.code).toBe(2);
  });
});

describe('an encrypted summary (contract §8.4 unknown) in the report and in diff', () => {
  const ENC = path.join(ROOT, 'test/fixtures/adapters/codex-encrypted-compaction.jsonl');

  it('report --compaction: the summary is said to be encrypted, the items that could not be judged are unknown, never lost', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-rc-'));
    const r = await runCli(['report', ENC, '--compaction', '1', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const md = fs.readFileSync(path.join(out, 'report.md'), 'utf8');
    expect(md).toMatch(/The summary is encrypted \(Codex\): what it kept cannot be read\./i);
    expect(md).not.toMatch(/No summary/);
    expect(md).toMatch(/\| kind \| items \| kept \| paraphrased \| lost \| unknown \| confirmed losses \|/);
    const rows = md
      .slice(md.indexOf('### Items'))
      .split('\n')
      .filter((l) => /^\| (lost|kept|paraphrased|unknown) \|/.test(l));
    expect(rows.map((l) => l.split(' | ')[0]!.slice(2))).toEqual(['unknown', 'unknown', 'unknown', 'kept']);
  });

  it('diff: unknown is summed per side, with a row of its own only then', async () => {
    const json = await runCli(['diff', FIXTURE, ENC, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const d = JSON.parse(json.stdout) as { compactions: { a: { retention: Record<string, object> }; b: { retention: Record<string, object> } } };
    expect(d.compactions.b.retention.file).toEqual({ items: 2, kept: 0, paraphrased: 0, lost: 0, confirmed: 0, unknown: 2 });
    expect(Object.values(d.compactions.a.retention).some((k) => 'unknown' in k)).toBe(false);
    const human = await runCli(['diff', FIXTURE, ENC]);
    expect(human.stdout).toMatch(/unknown \(summary encrypted\)\s+0\s+3/);
  });
});

describe('diff compares two sessions’ compaction audits (contract §8.3)', () => {
  it('totals per side and the k-th compaction against the k-th, in --json and in words', async () => {
    const codex = path.join(ROOT, 'test/fixtures/adapters/codex-rollout.jsonl');
    const json = await runCli(['diff', FIXTURE, codex, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const d = JSON.parse(json.stdout) as {
      compactions: {
        a: { compactions: number; retention: Record<string, { kept: number; items: number }> };
        b: { compactions: number };
        pairs: { a: { turn: number } | null; b: { turn: number } | null }[];
      };
    };
    expect(d.compactions.a.compactions).toBe(2);
    expect(d.compactions.b.compactions).toBe(2);
    expect(d.compactions.a.retention.file).toMatchObject({ items: 1, kept: 0 });
    expect(d.compactions.pairs.map((p) => [p.a?.turn, p.b?.turn])).toEqual([
      [3, 7],
      [5, 8],
    ]);
    const human = await runCli(['diff', FIXTURE, codex]);
    expect(human.stdout).toMatch(/files still named after it\s+0\/1 \(0%\)\s+2\/2 \(100%\)/);
  });

  it('sessions without compactions: diff --json has no compactions key (the version-1 output is unchanged)', async () => {
    const sample = path.join(ROOT, 'public/samples/all-faults.jsonl');
    const d = JSON.parse((await runCli(['diff', sample, sample, '--json'])).stdout) as Record<string, unknown>;
    expect('compactions' in d).toBe(false);
  });
});
