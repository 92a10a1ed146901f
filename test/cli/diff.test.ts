// contract §6.4 `context-health diff`: the comparison of two `check --json` reports, as a CI gate.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { runDiff, type DiffJson } from '../../src/cli/diff.ts';
import type { CheckOutput, SessionOutput } from '../../src/core/checkOutput.ts';
import { SEVERITY, SIGNALS } from '../../src/core/signals.ts';
import { ROOT, runCli as run } from './runCli.ts';

const SAMPLES = path.join(ROOT, 'public/samples');
const sampleFiles = fs
  .readdirSync(SAMPLES)
  .filter((f) => /\.jsonl?(\.gz)?$/.test(f))
  .sort();

/** runDiff in this process (the bin runs the same function): a spawn per pair would take minutes on two cores. */
async function diffInProcess(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const sink = (chunks: string[]): Writable =>
    new Writable({
      write(chunk: Buffer, _enc, done) {
        chunks.push(chunk.toString('utf8'));
        done();
      },
    });
  const out: string[] = [];
  const err: string[] = [];
  const code = await runDiff(args, { stdout: sink(out), stderr: sink(err) });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

/** What `diff` must say, worked out from two `check --json` sessions by the contract's own words. */
function expectedFromChecks(a: SessionOutput, b: SessionOutput): Pick<DiffJson, 'signals'> & { divergenceTurn: number | null } {
  const turnsFired = (s: SessionOutput, signal: string): number => new Set(s.findings.filter((f) => f.signal === signal).map((f) => f.turn)).size;
  const signals = SIGNALS.map((signal) => ({
    signal,
    severity: SEVERITY[signal],
    a: turnsFired(a, signal),
    b: turnsFired(b, signal),
    difference: turnsFired(b, signal) - turnsFired(a, signal),
  })).filter((s) => s.a > 0 || s.b > 0);
  // by turn number: the first turn both have whose action or drop differs
  const bByTurn = new Map(b.verdicts.map((v) => [v.turn, v]));
  const first = a.verdicts.find((v) => {
    const w = bByTurn.get(v.turn);
    return w !== undefined && (w.action !== v.action || w.drop.length > 0 !== v.drop.length > 0);
  });
  return { signals, divergenceTurn: first?.turn ?? null };
}

const checks = new Map<string, CheckOutput>();
let dir: string;

beforeAll(async () => {
  for (const f of sampleFiles) {
    const r = await run(['check', '--json', path.join(SAMPLES, f)]);
    checks.set(f, JSON.parse(r.stdout) as CheckOutput);
  }
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-diff-'));
  fs.writeFileSync(path.join(dir, 'nothing.jsonl'), 'not json\n');
}, 180_000);

describe('context-health diff --json', () => {
  it('equals the difference of two check --json outputs, on every pair of the samples', async () => {
    expect(sampleFiles.length).toBeGreaterThanOrEqual(8);
    for (let i = 0; i < sampleFiles.length; i++) {
      for (let j = i; j < sampleFiles.length; j++) {
        const [fa, fb] = [sampleFiles[i]!, sampleFiles[j]!];
        const r = await diffInProcess(['--json', path.join(SAMPLES, fa), path.join(SAMPLES, fb)]);
        const d = JSON.parse(r.stdout) as DiffJson;
        // the first session of each file (two-sessions-interleaved has two)
        const a = checks.get(fa)!.sessions[0]!;
        const b = checks.get(fb)!.sessions[0]!;
        const want = expectedFromChecks(a, b);
        const pair = `${fa} vs ${fb}`;
        expect(d.a, pair).toMatchObject({ session_id: a.session_id, turns: a.turns, input_errors: checks.get(fa)!.input_errors.length });
        expect(d.b, pair).toMatchObject({ session_id: b.session_id, turns: b.turns });
        expect(d.signals, pair).toEqual(want.signals);
        expect(d.first_divergence?.a.turn ?? null, pair).toBe(want.divergenceTurn);
        if (d.first_divergence !== null) expect(d.first_divergence.b.turn, pair).toBe(want.divergenceTurn);
        // exit 1 exactly when an incident only in B reaches fault
        expect(r.code, pair).toBe(d.incidents.only_b.some((x) => x.severity === 'fault') ? 1 : 0);
        if (i === j) {
          expect(d.first_divergence, pair).toBeNull();
          expect(d.incidents.only_a.length + d.incidents.only_b.length, pair).toBe(0);
        }
      }
    }
  }, 300_000);

  it('--session picks a session of each file; given twice, A’s and B’s', async () => {
    const file = path.join(SAMPLES, 'two-sessions-interleaved.jsonl');
    const [s1, s2] = checks.get('two-sessions-interleaved.jsonl')!.sessions as [SessionOutput, SessionOutput];
    const r = await diffInProcess(['--json', '--session', s1.session_id, '--session', s2.session_id, file, file]);
    const d = JSON.parse(r.stdout) as DiffJson;
    expect([d.a.session_id, d.b.session_id]).toEqual([s1.session_id, s2.session_id]);
    expect(d.signals).toEqual(expectedFromChecks(s1, s2).signals);
    const missing = await diffInProcess(['--session', 'nope', file, file]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no session "nope"/);
  });

  it('--set applies to both files, as check --set does', async () => {
    const sets = ['--set', 'spread_floor=0.3', '--set', 'min_scored=1'];
    const [fa, fb] = ['healthy.jsonl', 'stale-scores.jsonl'].map((f) => path.join(SAMPLES, f)) as [string, string];
    const [ca, cb] = await Promise.all([fa, fb].map(async (f) => JSON.parse((await run(['check', '--json', ...sets, f])).stdout) as CheckOutput));
    const d = JSON.parse((await diffInProcess(['--json', ...sets, fa, fb])).stdout) as DiffJson;
    const want = expectedFromChecks(ca!.sessions[0]!, cb!.sessions[0]!);
    expect(d.signals).toEqual(want.signals);
    // the thresholds matter: without them the counts differ
    expect(d.signals).not.toEqual(expectedFromChecks(checks.get('healthy.jsonl')!.sessions[0]!, checks.get('stale-scores.jsonl')!.sessions[0]!).signals);
  }, 120_000);

  it('--fail-on-new warning also fails on a new warning incident', async () => {
    // stale-scores vs collapse: collapse brings new warnings (spread_collapse) and faults
    const healthy = path.join(SAMPLES, 'healthy.jsonl');
    const collapse = path.join(SAMPLES, 'collapse.jsonl');
    const d = JSON.parse((await diffInProcess(['--json', '--fail-on-new', 'warning', healthy, collapse])).stdout) as DiffJson;
    expect(d.new.map((x) => x.signal)).toEqual(expect.arrayContaining(['spread_collapse', 'relevance_collapse']));
    expect(d.new.every((x) => x.severity !== 'info')).toBe(true);
    expect((await diffInProcess(['--fail-on-new', 'never', healthy, collapse])).code).toBe(0);
  });

  it('aligned by relative position, the first divergence carries each side’s share of the run', async () => {
    const r = await diffInProcess(['--json', '--align', 'relative', path.join(SAMPLES, 'healthy.jsonl'), path.join(SAMPLES, 'all-faults.jsonl')]);
    const d = JSON.parse(r.stdout) as DiffJson;
    expect(d.align).toBe('relative');
    // healthy: 60 turns, all-faults: 150; all-faults first recomputes at turn 10 (index 9 of 150)
    expect(d.first_divergence).toMatchObject({ b: { turn: 10, action: 'recompute' }, cause: 'stale_score' });
    expect(d.first_divergence!.a.turn).toBe(4); // index floor((9.5 × 60) / 150) = 3: turn 4
  });
});

describe('context-health diff exit status (the bin, as CI runs it)', () => {
  it('0 when B adds nothing at fault level, 1 when it does, 2 when a file cannot be read', async () => {
    const healthy = path.join(SAMPLES, 'healthy.jsonl');
    const collapse = path.join(SAMPLES, 'collapse.jsonl');
    const worse = await run(['diff', healthy, collapse]);
    expect(worse.code, worse.stderr).toBe(1);
    expect(worse.stdout).toMatch(/first divergence at turn 25: A prune_ok, B freeze, because of relevance_collapse/);
    expect(worse.stdout).toMatch(/relevance_collapse\s+fault\s+turns 25–42/);
    expect((await run(['diff', collapse, healthy])).code).toBe(0);
    const missing = await run(['diff', healthy, path.join(dir, 'absent.jsonl')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read/);
    expect((await run(['diff', healthy, path.join(dir, 'nothing.jsonl')])).code).toBe(2);
    expect((await run(['diff', healthy])).code).toBe(2);
    expect((await run(['diff', '--fail-on-new', 'info', healthy, collapse])).code).toBe(2);
  }, 120_000);
});
