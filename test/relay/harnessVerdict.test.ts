// The examples' harness loops act on the verdict in each ack: with injected faults they
// rescore on `recompute`, drop on `drop` and stop pruning on `freeze`, so the stored
// session (checked by `check --json`) shows the faults but never a prune the verdict
// forbade. The Python client returns the verdict from send and calls on_verdict.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckOutput } from '../../src/core/checkOutput.ts';
import { runCli } from '../cli/runCli.ts';
import { relaysPerTest, run, tempDir } from './helpers.ts';

const relay = relaysPerTest();

async function checkStored(url: string, sessionId: string): Promise<CheckOutput> {
  const file = path.join(tempDir(), 'stored.jsonl');
  fs.writeFileSync(file, await (await fetch(`${url}api/sessions/${sessionId}/transcript`)).text());
  return JSON.parse((await runCli(['check', '--json', '--fail-on', 'never', file])).stdout) as CheckOutput;
}

describe.each([
  ['TypeScript', process.execPath, ['--import', 'tsx', 'examples/ts-harness.ts', '--interval-ms', '0']],
  ['Python', 'python3', ['examples/python_harness.py', '--interval', '0']],
])('the %s example harness', (_name, cmd, args) => {
  it('with --faults: rescores, drops and freezes as told, and never prunes against the verdict', async () => {
    const r = await relay();
    const out = await run(cmd, [...args, '--url', r.url, '--session', 'obeys', '--turns', '32', '--faults']);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/turn 7: .* verdict recompute \(stale_score/);
    expect(out.stdout).toMatch(/turn 8: .* rescored 3/);
    expect(out.stdout).toMatch(/turn 15: .* dropped p/);
    expect(out.stdout).toMatch(/turn 20: 13 spans, .* froze pruning/);
    expect(out.stdout).toMatch(/turn 27: 12 spans, .* pruning again/);
    const report = await checkStored(r.url, 'obeys');
    const signals = new Set(report.sessions[0]!.findings.map((f) => f.signal));
    // the faults happened and were seen…
    for (const s of ['stale_score', 'poisoned_span', 'relevance_collapse']) expect(signals).toContain(s);
    // …and the loop obeyed: nothing pruned during a freeze or on a stale score, the poisoned span gone the next turn, rescoring fixed the stale score at once
    expect(signals).not.toContain('pruned_during_freeze');
    expect(signals).not.toContain('pruned_on_stale_score');
    const turnsOf = (sig: string): number[] => report.sessions[0]!.findings.filter((f) => f.signal === sig).map((f) => f.turn);
    expect(turnsOf('poisoned_span')).toEqual([14]);
    expect(turnsOf('stale_score')).toEqual([7]);
  });
});

describe('Python client verdicts', () => {
  it('send returns the verdict, and on_verdict sees each one', async () => {
    const r = await relay();
    const code = `
import json, sys; sys.path.insert(0, "clients/python")
from context_health_client import RelayClient, scored
seen = []
c = RelayClient(sys.argv[1], on_verdict=lambda v, ack: seen.append((ack.seq, v["action"])))
h = c.send({"type": "session", "session_id": "v"})
spans = [dict(span_id="a", text="x", **scored("x", 0.5)), dict(span_id="b", text="y", score=0.4, text_sha256="0" * 64)]
a = c.snapshot("v", 1, spans)
print(json.dumps({"header": h.verdict, "verdict": a.verdict, "seen": seen}))
`;
    const out = await run('python3', ['-c', code, r.url]);
    expect(out.stderr).toBe('');
    expect(JSON.parse(out.stdout)).toEqual({
      header: null,
      verdict: { turn: 1, action: 'recompute', prune_safe: false, recompute: ['a', 'b'], drop: [], signals: ['stale_score', 'no_canary'] },
      seen: [[2, 'recompute']],
    });
  });
});
