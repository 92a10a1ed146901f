// docs/adapters.md "SWE-agent": a `.traj` whose `history` member is written twice (a key
// repeated, which SWE-agent's json.dump never writes) is read by its first one, the second
// counted. The second restarted the calls' turns at 1, so every turn after was an input error.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkTranscript } from '../../src/cli/check.ts';
import { tempDir } from '../relay/helpers.ts';

const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/adapters/swe-agent-history.traj');

describe('SWE-agent: a history member written twice', () => {
  it('reads the first, counts the second, and no turn is an input error', async () => {
    const doc = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as { history: unknown[] } & Record<string, unknown>;
    const alone = await checkTranscript(FIXTURE, { userThresholds: {} });
    expect(alone.report.input_errors).toEqual([]);
    const turns = alone.report.sessions[0]!.turns;
    expect(turns).toBeGreaterThan(2);
    // the history again after it: JSON.parse would keep the last, a reader in file order must pick one
    const text = JSON.stringify(doc, null, 2);
    const twice = text.replace(/\n {2}"info":/, `\n  "history": ${JSON.stringify(doc.history, null, 2)},\n  "info":`);
    expect(twice).not.toBe(text);
    const file = path.join(tempDir('ch-swe-twice-'), 'twice.traj');
    fs.writeFileSync(file, twice);
    const r = await checkTranscript(file, { userThresholds: {} });
    expect(r.report.input_errors).toEqual([]);
    expect(r.report.sessions[0]!.turns).toBe(turns);
    expect(r.adapter.skipped['history (a second one, not read)']).toBe(1);
  });
});
