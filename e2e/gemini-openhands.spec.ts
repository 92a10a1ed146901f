// Gemini CLI, OpenHands (V1 and V0) and mini-swe-agent on the dashboard (docs/adapters.md): a
// Gemini session file, OpenHands events arrays and a mini-swe-agent trajectory dropped on the page read as `check --json` reads them (the Worker
// runs the same pipeline), with their charts drawn and each compaction marked where it
// takes effect.
import path from 'node:path';
import { expect, test } from './helpers/test.ts';
import { dropFile, gotoApp, signalCounts, waitLoaded } from './helpers/app.ts';
import { checkJson, countsBySignal, ROOT } from './helpers/relay.ts';

const CHARTS = ['chart-spread', 'chart-canary', 'chart-drift', 'chart-orphans'];

for (const [name, file, label] of [
  ['a Gemini CLI session (.json, pretty-printed)', 'gemini-session.json', 'Gemini CLI transcript'],
  ['a Gemini CLI session (.jsonl, with a compression)', 'gemini-session.jsonl', 'Gemini CLI transcript'],
  ['an OpenHands events array (with a condensation)', 'openhands-events.json', 'OpenHands transcript'],
  ["an OpenHands V0 trajectory (the app's download, two condensations)", 'openhands-v0-trajectory.json', 'OpenHands transcript'],
  ['a mini-swe-agent trajectory (.traj.json)', 'mini-swe-agent.traj.json', 'SWE-agent transcript'],
] as const) {
  test(`${name}: turns, records not mapped, findings as check --json, charts drawn, compactions marked`, async ({ page }) => {
    const fixture = path.join(ROOT, 'test/fixtures/adapters', file);
    const oracle = checkJson(fixture);
    const session = oracle.sessions[0]!;
    await gotoApp(page);
    await dropFile(page, fixture);
    const status = await waitLoaded(page);
    expect(status.state).toBe('done');
    expect(status.turns).toBe(session.turns);
    expect(status.text).toContain(`${label}; records not mapped: `);
    for (const [kind, n] of Object.entries(oracle.adapter!.skipped_records)) expect(status.text).toContain(`${n} ${kind}`);
    await expect.poll(() => signalCounts(page)).toEqual(countsBySignal(session.findings));
    const turns = ((session as { compactions?: { turn: number }[] }).compactions ?? []).map((c) => String(c.turn));
    for (const id of CHARTS) {
      const chart = page.getByTestId(id);
      // drawn, though folded: an imported agent's reference-score charts sit in the folded section (contract §8.1)
      await expect(chart).toHaveAttribute('data-state', 'ready');
      await expect(chart.getByTestId('compaction-marker')).toHaveCount(turns.length);
      expect(await chart.getByTestId('compaction-marker').evaluateAll((els) => els.map((e) => e.getAttribute('data-turn')))).toEqual(turns);
    }
  });
}
