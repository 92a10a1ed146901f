// docs/adapters.md "mini-swe-agent" through the door a user opens: `check --json` (the real
// executable) on the fixture, and a folder holding it (a .traj.json is a transcript there).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckOutput } from '../../src/core/checkOutput.ts';
import { ROOT, runCli } from '../cli/runCli.ts';
import { tempDir } from '../relay/helpers.ts';

const MINI = path.join(ROOT, 'test/fixtures/adapters/mini-swe-agent.traj.json');
type Output = CheckOutput & { adapter?: { format: string; skipped_records: Record<string, number> } };

describe('check --json on a mini-swe-agent trajectory', () => {
  it('one session named after the file, a turn per model call, in the reference scope', async () => {
    const r = await runCli(['check', '--json', MINI]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Output;
    expect(out.adapter).toEqual({ format: 'swe-agent', skipped_records: {} });
    expect(out.input_errors).toEqual([]);
    const s = out.sessions[0]!;
    expect(s.session_id).toBe('mini-swe-agent');
    expect(s.turns).toBe(4);
    expect(Object.keys(s.not_applicable ?? {})).toContain('stale_score');
  });

  it('a folder: the .traj.json is found and read', async () => {
    const dir = tempDir('ch-mini-');
    fs.copyFileSync(MINI, path.join(dir, 'acme__invoice-42.traj.json'));
    const r = await runCli(['check', '--json', dir]);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Output & { file: string });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.sessions[0]!.session_id).toBe('acme__invoice-42');
    expect(rows[0]!.sessions[0]!.turns).toBe(4);
  });
});
