// contract §6 `context-health check`, run the way a user runs it: plain node on the bin.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './runCli.ts';

const run = (args: string[], stdin?: string | Buffer): ReturnType<typeof runCli> => runCli(args, { stdin });
import type { CheckOutput } from '../../src/core/checkOutput.ts';

const sha = (t: string): string => crypto.createHash('sha256').update(t, 'utf8').digest('hex');

function span(id: string, text: string, score: number | null, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { span_id: id, text, score, text_sha256: sha(text), tokens: 10, ...extra };
}

/** turn 1 healthy; turn 2 a stale score on b; turn 3 healthy again */
const lines = [
  { type: 'session', session_id: 'run-1', title: 'fixture' },
  { type: 'snapshot', session_id: 'run-1', turn: 1, spans: [span('a', 'alpha', 0.9, { pinned: true }), span('b', 'beta é', 0.4), span('c', 'gamma', 0.2)] },
  {
    type: 'snapshot',
    session_id: 'run-1',
    turn: 2,
    spans: [span('a', 'alpha', 0.9, { pinned: true }), { ...span('b', 'beta é', 0.4), text: 'beta rewritten' }, span('c', 'gamma', 0.2)],
    rewrite: { spans_modified: 1, scores_invalidated: 1 },
  },
  {
    type: 'snapshot',
    session_id: 'run-1',
    turn: 3,
    spans: [span('a', 'alpha', 0.9, { pinned: true }), span('b', 'beta again', 0.5), span('c', 'gamma', 0.2)],
    rewrite: { spans_modified: 1, scores_invalidated: 1 },
  },
].map((m) => JSON.stringify(m));

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-cli-'));
  fs.writeFileSync(path.join(dir, 't.jsonl'), lines.join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 't.jsonl.gz'), zlib.gzipSync(lines.join('\n') + '\n'));
  fs.writeFileSync(path.join(dir, 't.json'), '[\n' + lines.join(',\n') + '\n]\n');
  fs.writeFileSync(
    path.join(dir, 'bad.jsonl'),
    [
      lines[0],
      'garbage',
      lines[1],
      '{"type":"snapshot","session_id":"run-1","turn":2,"spans":[{"span_id":"x","text":"t","score":NaN,"text_sha256":null}]}',
      lines[2],
      lines[3],
    ].join('\n'),
  );
  fs.writeFileSync(path.join(dir, 'healthy.jsonl'), [lines[0], lines[1]].join('\n'));
  fs.writeFileSync(path.join(dir, 'nothing.jsonl'), 'not json\n{"type":"session","session_id":"x"}\n');
});

describe('context-health check', () => {
  it('reads .jsonl, .jsonl.gz, .json and stdin to the same --json output', async () => {
    const reports: CheckOutput[] = [];
    for (const f of ['t.jsonl', 't.jsonl.gz', 't.json']) {
      const r = await run(['check', '--json', path.join(dir, f)]);
      expect(r.code, `${f}: ${r.stderr}`).toBe(1);
      reports.push(JSON.parse(r.stdout) as CheckOutput);
    }
    const fromStdin = await run(['check', '--json', '-'], fs.readFileSync(path.join(dir, 't.jsonl.gz')));
    reports.push(JSON.parse(fromStdin.stdout) as CheckOutput);
    for (const r of reports.slice(1)) expect(r).toEqual(reports[0]);
    const s = reports[0]!.sessions[0]!;
    expect(s.session_id).toBe('run-1');
    expect(s.turns).toBe(3);
    expect(s.findings.map((f) => [f.turn, f.signal, f.span_ids])).toEqual([[2, 'stale_score', ['b']]]);
    expect(s.verdicts.map((v) => v.action)).toEqual(['prune_ok', 'recompute', 'prune_ok']);
    expect(s.verdicts[1]).toMatchObject({ turn: 2, prune_safe: false, recompute: ['a', 'b', 'c'], drop: [] });
    expect(s.metrics[0]).toMatchObject({ turn: 1, tokens_total: 30, n_scored: 3, orphan_edges: 0, median_score: 0.4 });
    expect(reports[0]!.input_errors).toEqual([]);
  });

  it('reports bad lines by number and analyses every other line', async () => {
    const r = await run(['check', '--json', path.join(dir, 'bad.jsonl')]);
    const report = JSON.parse(r.stdout) as CheckOutput;
    expect(report.input_errors.map((e) => e.line)).toEqual([2, 4]);
    expect(report.input_errors[1]!.message).toMatch(/NaN/);
    expect(report.sessions[0]!.turns).toBe(3);
    const human = await run(['check', path.join(dir, 'bad.jsonl')]);
    expect(human.stdout).toMatch(/line 2: not valid JSON/);
    expect(human.stdout).toMatch(/stale_score\s+fault\s+1\s+2/);
  });

  it('exit status follows --fail-on (contract §6)', async () => {
    expect((await run(['check', path.join(dir, 'healthy.jsonl')])).code).toBe(0);
    expect((await run(['check', path.join(dir, 't.jsonl')])).code).toBe(1);
    expect((await run(['check', '--fail-on', 'never', path.join(dir, 't.jsonl')])).code).toBe(0);
    // canary a is pinned and above the median: no warnings in the healthy file
    expect((await run(['check', '--fail-on', 'warning', path.join(dir, 'healthy.jsonl')])).code).toBe(0);
    expect((await run(['check', '--fail-on', 'bogus', path.join(dir, 't.jsonl')])).code).toBe(2);
  });

  it('exits 2 when the input cannot be read or holds no valid snapshot', async () => {
    const missing = await run(['check', path.join(dir, 'absent.jsonl')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read/);
    const nothing = await run(['check', '--json', path.join(dir, 'nothing.jsonl')]);
    expect(nothing.code).toBe(2);
    expect((JSON.parse(nothing.stdout) as CheckOutput).input_errors).toHaveLength(1);
  });

  it('--set overrides thresholds and rejects unknown keys', async () => {
    // tokens fall 30 → … no: make canary a sink below median with a huge floor and min_scored 1
    const r = await run(['check', '--json', '--set', 'spread_floor=10', '--set', 'min_scored=1', '--set', 'collapse_turns=1', path.join(dir, 'healthy.jsonl')]);
    const s = (JSON.parse(r.stdout) as CheckOutput).sessions[0]!;
    expect(s.findings.filter((f) => f.signal === 'spread_collapse').map((f) => f.turn)).toEqual([1]);
    const bad = await run(['check', '--set', 'nope=1', path.join(dir, 't.jsonl')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown threshold "nope"/);
  });

  it('delivers a report of tens of MB whole through a pipe', async () => {
    const big = path.join(dir, 'big.jsonl');
    const fd = fs.openSync(big, 'w');
    for (let t = 1; t <= 10_000; t++) {
      const spans = Array.from({ length: 60 }, (_, i) => ({ span_id: `s${i}`, text: `t${i}`, score: i / 60, text_sha256: null }));
      fs.writeSync(fd, JSON.stringify({ type: 'snapshot', session_id: 'big', turn: t, spans }) + '\n');
    }
    fs.closeSync(fd);
    const r = await run(['check', '--json', big]);
    expect(r.stdout.length).toBeGreaterThan(10_000_000);
    const report = JSON.parse(r.stdout) as CheckOutput;
    expect(report.sessions[0]!.turns).toBe(10_000);
    expect(report.sessions[0]!.verdicts).toHaveLength(10_000);
  });
});
