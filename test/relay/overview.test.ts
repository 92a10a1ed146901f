// The sessions overview (GET /api/overview and its WebSocket channel), retention, and the
// bounds on what the analysis keeps per session.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Overview, OverviewFrame, SessionSummary } from '../../src/protocol/relay.ts';
import type { CheckOutput } from '../../src/core/checkOutput.ts';
import { SERIES, VERDICT_MEMORY } from '../../src/server/analysis/sessionHealth.ts';
import { runCli } from '../cli/runCli.ts';
import { generatedSession, postNdjson, relaysPerTest, ROOT } from './helpers.ts';

const relay = relaysPerTest();
const COLLAPSE = path.join(ROOT, 'public/samples/collapse.jsonl');

class OverviewClient {
  readonly frames: OverviewFrame[] = [];
  readonly ws: WebSocket;
  readonly opened: Promise<void>;

  constructor(url: string, headers: Record<string, string> = {}) {
    this.ws = new WebSocket(`${url.replace(/^http/, 'ws')}api/overview/subscribe`, { headers });
    this.ws.on('message', (d) => this.frames.push(JSON.parse(String(d)) as OverviewFrame));
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('unexpected-response', (_req, res) => reject(new Error(`status ${res.statusCode}`)));
    });
  }

  /** The latest summary of each session, as a dashboard would hold them. */
  state(): Map<string, SessionSummary> {
    const m = new Map<string, SessionSummary>();
    for (const f of this.frames) {
      if (f.type === 'hello' || f.type === 'summaries') for (const s of f.sessions) m.set(s.session_id, s);
      if (f.type === 'summaries') for (const id of f.removed) m.delete(id);
    }
    return m;
  }
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('the sessions overview', () => {
  it('pushes batched summaries that agree with check --json, and says when a session is deleted', async () => {
    const r = await relay();
    await postNdjson(r.url, generatedSession('early', 3).join('\n'));
    const client = new OverviewClient(r.url);
    await client.opened;
    await until(() => client.frames.length > 0, 'hello');
    const hello = client.frames[0]!;
    expect(hello.type).toBe('hello');
    expect(hello.type === 'hello' && hello.sessions.map((s) => [s.session_id, s.turns, s.title])).toEqual([['early', 3, 'generated early']]);

    // one snapshot per request: 61 messages, far fewer frames (at most one per 250 ms)
    const lines = fs.readFileSync(COLLAPSE, 'utf8').trim().split('\n');
    for (const l of lines) expect((await postNdjson(r.url, l)).status).toBe(200);
    const report = JSON.parse((await runCli(['check', '--json', '--fail-on', 'never', COLLAPSE])).stdout) as CheckOutput;
    const s = report.sessions[0]!;
    await until(() => client.state().get('collapse')?.turns === s.turns, 'the last summary');
    const summaries = client.frames.filter((f) => f.type === 'summaries');
    expect(summaries.length).toBeLessThan(lines.length);
    const got = client.state().get('collapse')!;
    const counts: Record<string, number> = {};
    for (const f of s.findings) counts[f.signal] = (counts[f.signal] ?? 0) + 1;
    const lastFault = s.findings.filter((f) => f.severity === 'fault').at(-1)!;
    const lastVerdict = s.verdicts.at(-1)!;
    expect(got).toMatchObject({
      title: (JSON.parse(lines[0]!) as { title: string }).title,
      status: 'live',
      turns: s.turns,
      last_turn: lastVerdict.turn,
      counts,
      last_fault: { signal: lastFault.signal, turn: lastFault.turn },
      verdict: { ...lastVerdict, signals: expect.any(Array) },
      analysed: true,
    });
    expect(got.spread).toEqual(s.metrics.slice(-SERIES).map((m) => (m.stdev_score === null ? null : Math.round(m.stdev_score * 1e4) / 1e4)));
    expect(got.canary_rank.length).toBe(Math.min(SERIES, s.turns));
    // the snapshot route says the same
    const snap = (await (await fetch(`${r.url}api/overview`)).json()) as Overview;
    expect(snap.sessions.find((x) => x.session_id === 'collapse')).toEqual(got);

    expect((await fetch(`${r.url}api/sessions/early`, { method: 'DELETE' })).status).toBe(200);
    await until(() => !client.state().has('early'), 'the removal');
    expect(client.frames.some((f) => f.type === 'summaries' && f.removed.includes('early'))).toBe(true);
    client.ws.close();
  });

  it('is a read: with --token-for-reads it needs the token', async () => {
    const r = await relay({ token: 'rt', tokenForReads: true });
    expect((await fetch(`${r.url}api/overview`)).status).toBe(401);
    await expect(new OverviewClient(r.url).opened).rejects.toThrow(/status 401/);
    const ok = new OverviewClient(r.url, { authorization: 'Bearer rt' });
    await ok.opened;
    ok.ws.close();
  });

  it('keeps per session a bounded series and verdict memory, however many turns', async () => {
    const r = await relay();
    const turns = SERIES * 3;
    const reply = await postNdjson(r.url, generatedSession('long', turns, 12, 30).join('\n'));
    expect(reply.status).toBe(200);
    const health = r.analysis!.health('long')!;
    const summary = health.summary(Date.now());
    expect(summary.turns).toBe(turns);
    expect(summary.spread.length).toBe(SERIES);
    expect(summary.canary_rank.length).toBe(SERIES);
    const lastSeq = turns + 1;
    expect(health.verdictOf(lastSeq)).toMatchObject({ turn: turns });
    expect(health.verdictOf(lastSeq - VERDICT_MEMORY + 1)).not.toBeNull();
    expect(health.verdictOf(lastSeq - VERDICT_MEMORY)).toBeNull();
  });
});

describe('retention', () => {
  it('--retain deletes sessions with no message for longer than the age', async () => {
    const r = await relay({ retainMs: 1500, retention: { everyMs: 100 } });
    // subscribed first: on a slow machine a hello asked for after the post could come after
    // the session expired, and never name it
    const client = new OverviewClient(r.url);
    await client.opened;
    const posted = Date.now();
    await postNdjson(r.url, generatedSession('old', 2).join('\n'));
    // shown, or (a batch held back past the age on a loaded machine) shown and removed in one frame
    await until(
      () => client.frames.some((f) => f.type === 'summaries' && (f.sessions.some((x) => x.session_id === 'old') || f.removed.includes('old'))),
      'the overview to show it',
    );
    await until(async () => (await fetch(`${r.url}api/sessions/old`)).status === 404, 'the session to expire');
    // kept while it was younger than the age: never deleted sooner (its last message came after `posted`)
    expect(Date.now() - posted).toBeGreaterThanOrEqual(1500);
    expect(fs.existsSync(path.join(r.dataDir, 'sessions', 'old.jsonl'))).toBe(false);
    await until(() => !client.state().has('old'), 'the overview to drop it');
    expect(r.logs.some((l) => /deleted session "old": no message for longer than --retain/.test(l))).toBe(true);
    client.ws.close();
  });

  it('--retain-bytes deletes the least recently updated sessions until the logs fit, never a live one', async () => {
    const r = await relay({ retainBytes: 1, retention: { everyMs: 60_000, liveMs: 60_000 } });
    for (const id of ['a', 'b', 'c']) await postNdjson(r.url, generatedSession(id, 5).join('\n'));
    const sizes = r.files.byRecency().map((s) => s.size);
    await r.close();
    // restarted with a budget that fits two of the three, and nothing counted live
    const r2 = await relay({ dataDir: r.dataDir, retainBytes: sizes[0]! + sizes[1]! + 10, retention: { everyMs: 60_000, liveMs: 0 } });
    const ids = r2.files.byRecency().map((s) => s.id);
    expect(ids.sort()).toEqual(['b', 'c']);
    // a live session is kept whatever the budget
    const r3Dir = r2.dataDir;
    await r2.close();
    const r3 = await relay({ dataDir: r3Dir, retainBytes: 1, retention: { everyMs: 60_000, liveMs: 3_600_000 } });
    expect(r3.files.count()).toBe(2);
    expect(r3.logs.some((l) => /over --retain-bytes 1, but what is left is live/.test(l))).toBe(true);
  });
});
