// Issue 26, risky: about 25 MiB stayed in memory per session after one 15 MiB snapshot (the
// analysis engine keeps the session's last snapshot, texts included): at --max-sessions
// that is tens of GiB. A session idle for --analysis-idle has its engine parked (dropped
// from the analysis thread) and rebuilt from its log on its next message, with the same
// verdicts as an engine that never stopped.
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { Overview, SessionSummary } from '../../src/protocol/relay.ts';
import { generatedSession, postNdjson, relaysPerTest, ROOT } from '../relay/helpers.ts';

const relay = relaysPerTest();
const MiB = 1024 * 1024;

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

it('the engines of idle sessions leave the analysis thread', async () => {
  // idle long enough that no session parks before all four are held (the posts take seconds on a busy machine)
  const r = await relay({ analysisThreads: 1, analysisIdleMs: 3_000 });
  const threads = r.analysis!.threads!;
  await threads.ready();
  const before = await threads.heapUsedForTest(0);
  // 4 sessions, one snapshot of 40 spans × 100,000 characters (~4 MB) each
  for (let i = 0; i < 4; i++) expect((await postNdjson(r.url, generatedSession(`big-${i}`, 1, 40, 100_000).join('\n') + '\n')).status).toBe(200);
  const held = (await threads.heapUsedForTest(0)) - before;
  expect(held).toBeGreaterThan(8 * MiB);
  await until(() => threads.parkedCount === 4, 'the 4 sessions parked');
  const parked = (await threads.heapUsedForTest(0)) - before;
  expect(parked, `held ${(held / MiB).toFixed(1)} MiB, parked ${(parked / MiB).toFixed(1)} MiB`).toBeLessThan(2 * MiB);
  expect(((await (await fetch(`${r.url}api/health`)).json()) as { analysis: { parked_sessions: number } }).analysis.parked_sessions).toBe(4);
}, 30_000);

it('a parked session goes on with the same verdicts, findings and summary as one never parked', async () => {
  const lines = fs.readFileSync(path.join(ROOT, 'public/samples/collapse.jsonl'), 'utf8').trim().split('\n');
  const half = Math.floor(lines.length / 2);
  const parking = await relay({ analysisThreads: 1, analysisIdleMs: 200 });
  const steady = await relay({ analysisThreads: 1, analysisIdleMs: Number.POSITIVE_INFINITY });
  for (const r of [parking, steady]) expect((await postNdjson(r.url, lines.slice(0, half).join('\n') + '\n')).status).toBe(200);
  await until(() => parking.analysis!.threads!.parkedCount === 1, 'the session parked');
  expect(steady.analysis!.threads!.parkedCount).toBe(0);
  const answers = await Promise.all([parking, steady].map((r) => postNdjson(r.url, lines.slice(half).join('\n') + '\n')));
  expect(answers[0]!.json.accepted.length).toBe(lines.length - half);
  expect(answers[0]!.json.accepted).toEqual(answers[1]!.json.accepted);
  const summary = async (url: string): Promise<Partial<SessionSummary>> => {
    const s = ((await (await fetch(`${url}api/overview`)).json()) as Overview).sessions[0]!;
    const { updated_at: _u, rate_per_min: _r, status: _s, ...rest } = s;
    return rest;
  };
  expect(await summary(parking.url)).toEqual(await summary(steady.url));
}, 30_000);
