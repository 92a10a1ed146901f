// The relay-side analysis and alerts over the Redis store (docs/scale-out.md "Analysis and
// alerts on several relays"): with two relays on one Redis, whichever relay acknowledges a
// snapshot gives `check --json`'s verdict of that turn (a load balancer alternating between
// them, the harness's relay SIGKILLed and the harness resuming on the other), every relay's
// overview shows every session as `check` does, a session deleted on one leaves both, and an
// alert rule added on one relay fires exactly once across both, through a restart of both.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HarnessClient, type Ack } from '../../src/client/harness.ts';
import type { AckVerdict, AlertDelivery, AlertFiring, AlertRule, AlertRuleInput, Overview, SessionSummary } from '../../src/protocol/relay.ts';
import type { CheckOutput } from '../../src/core/checkOutput.ts';
import type { Relay } from '../../src/server/relay.ts';
import { runCli } from '../cli/runCli.ts';
import { exited, postNdjson, ROOT, spawnServe, testRelay, type IngestReply } from '../relay/helpers.ts';
import { checkVerdicts, firings, WebhookReceiver } from '../relay/expectations.ts';
import { startRedis, type TestRedis } from './redisServer.ts';

const SAMPLES = path.join(ROOT, 'public/samples');
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function redisForTest(): Promise<TestRedis> {
  const r = await startRedis();
  cleanup.push(() => r.stop());
  return r;
}

async function relayOn(redis: TestRedis, options: Parameters<typeof testRelay>[0] = {}): Promise<Relay> {
  const r = await testRelay({ store: redis.url, ...options });
  cleanup.push(() => r.close());
  return r;
}

function sampleLines(name: string): string[] {
  return fs
    .readFileSync(path.join(SAMPLES, name), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
}

async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function overviewOf(url: string): Promise<Overview> {
  return (await (await fetch(`${url}api/overview`)).json()) as Overview;
}

/** What the analysis concluded of a session, whatever relay holds it and whenever it was asked. */
function analysed(s: SessionSummary): Partial<SessionSummary> {
  const { status: _s, updated_at: _u, rate_per_min: _r, ...rest } = s;
  return rest;
}

describe('the relay-side analysis on two relays sharing one Redis', () => {
  it('acks carry check --json’s verdict whichever relay gets each snapshot, through a SIGKILL; every overview agrees; delete works on either', async () => {
    const redis = await redisForTest();
    const file = path.join(SAMPLES, 'all-faults.jsonl');
    const { byTurn: expected, report } = await checkVerdicts(file);
    const lines = sampleLines('all-faults.jsonl');
    const a = await spawnServe(['--port', '0', '--no-static', '--store', redis.url]);
    cleanup.push(async () => {
      a.child.kill('SIGKILL');
      await exited(a.child);
    });
    const b = await relayOn(redis);
    const checkAck = (ack: { sessionId: string; turn: number | null; verdict?: AckVerdict | null }, where: string): void => {
      const want = ack.turn === null ? null : expected.get(`${ack.sessionId}\u0000${ack.turn}`);
      expect({ where, turn: ack.turn, verdict: ack.verdict }).toEqual({ where, turn: ack.turn, verdict: want });
    };

    // a load balancer alternating between the relays, one message at a time
    const third = Math.floor(lines.length / 3);
    for (let i = 0; i < third; i++) {
      const via = i % 2 === 0 ? a.url : b.url;
      const r = await postNdjson(via, lines[i]!);
      const ack = r.json.accepted[0]! as { session_id: string; turn: number | null; verdict?: AckVerdict | null };
      checkAck({ sessionId: ack.session_id, turn: ack.turn, verdict: ack.verdict }, `line ${i + 1} through ${i % 2 === 0 ? 'A' : 'B'}`);
    }
    // then the harness streams to A, which is killed with messages in flight
    const clientA = new HarnessClient({ url: a.url, initialBackoffMs: 20, maxBackoffMs: 50, giveUpAfterMs: 1500 });
    const acked = new Map<number, Ack>();
    const sends: Promise<void>[] = [];
    for (let i = third; i < lines.length; i++) {
      sends.push(
        clientA.send(lines[i]!).then(
          (ack) => void acked.set(i, ack),
          () => undefined,
        ),
      );
      if (i === 2 * third) {
        await Promise.all(sends);
        a.child.kill('SIGKILL');
      }
    }
    await exited(a.child);
    await Promise.all(sends);
    await clientA.close(0);
    for (const [i, ack] of acked) checkAck(ack, `line ${i + 1} through A`);
    const firstUnacked = [...Array(lines.length).keys()].find((i) => i >= third && !acked.has(i))!;
    expect(firstUnacked).toBeGreaterThan(2 * third - 1);

    // the harness resumes on B from its first unacknowledged message
    const clientB = new HarnessClient({ url: b.url });
    const rest = await Promise.all(lines.slice(firstUnacked).map((l) => clientB.send(l)));
    await clientB.close();
    rest.forEach((ack, k) => checkAck(ack, `line ${firstUnacked + k + 1} through B after A died`));
    expect(rest.some((ack) => !ack.duplicate)).toBe(true);

    // B's overview has the session A ingested most of, as check sees it
    const onB = (await overviewOf(b.url)).sessions.find((s) => s.session_id === 'all-faults')!;
    const checked = report.sessions[0]!;
    expect(onB.turns).toBe(checked.verdicts.length);
    expect(onB.verdict).toEqual(expected.get(`all-faults\u0000${checked.verdicts[checked.verdicts.length - 1]!.turn}`));
    const counts: Record<string, number> = {};
    for (const f of checked.findings) counts[f.signal] = (counts[f.signal] ?? 0) + 1;
    expect(onB.counts).toEqual(counts);
    expect(onB.analysed).toBe(true);

    // a relay started now rebuilds the same from the stream
    const c = await relayOn(redis);
    await c.analysis!.whenRebuilt();
    const onC = (await overviewOf(c.url)).sessions.find((s) => s.session_id === 'all-faults')!;
    expect(analysed(onC)).toEqual(analysed(onB));

    // deleted through C: gone from B's overview too
    expect((await fetch(`${c.url}api/sessions/all-faults`, { method: 'DELETE' })).status).toBe(200);
    await until(async () => !(await overviewOf(b.url)).sessions.some((s) => s.session_id === 'all-faults'), 'B to forget the session');
    expect((await overviewOf(c.url)).sessions.some((s) => s.session_id === 'all-faults')).toBe(false);
  });

  it.each(fs.readdirSync(SAMPLES).filter((f) => f.endsWith('.jsonl')))(
    '%s sent to A and B in turn, one line at a time: every ack has check --json’s verdict of its turn',
    async (name) => {
      const redis = await redisForTest();
      const relays = [await relayOn(redis), await relayOn(redis)];
      const { byTurn } = await checkVerdicts(path.join(SAMPLES, name));
      let snapshots = 0;
      const lines = sampleLines(name);
      for (let i = 0; i < lines.length; i++) {
        const r = await postNdjson(relays[i % 2]!.url, lines[i]!);
        for (const ack of r.json.accepted as (IngestReply['accepted'][number] & { verdict?: AckVerdict | null })[]) {
          const want = ack.turn === null ? null : byTurn.get(`${ack.session_id}\u0000${ack.turn}`);
          expect({ line: i + 1, verdict: ack.verdict }).toEqual({ line: i + 1, verdict: want });
          if (ack.turn !== null) snapshots++;
        }
      }
      expect(snapshots).toBe(byTurn.size);
    },
  );

  it('the overview on one relay follows sessions ingested on the other, live, over its WebSocket', async () => {
    const redis = await redisForTest();
    const a = await relayOn(redis);
    const b = await relayOn(redis);
    const file = path.join(SAMPLES, 'two-sessions-interleaved.jsonl');
    const { report } = await checkVerdicts(file);
    const { WebSocket } = await import('ws');
    const ws = new WebSocket(`${b.url.replace('http', 'ws')}api/overview/subscribe`);
    const latest = new Map<string, SessionSummary>();
    ws.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString()) as { type: string; sessions?: SessionSummary[] };
      for (const s of frame.sessions ?? []) latest.set(s.session_id, s);
    });
    await new Promise((r) => ws.once('open', r));
    expect((await postNdjson(a.url, fs.readFileSync(file, 'utf8'))).status).toBe(200);
    for (const s of report.sessions) {
      await until(() => latest.get(s.session_id)?.turns === s.verdicts.length, `B's overview to show ${s.session_id}'s ${s.verdicts.length} turns`);
      expect(latest.get(s.session_id)!.verdict!.action).toBe(s.verdicts[s.verdicts.length - 1]!.action);
    }
    ws.close();
  });
});

async function addRule(url: string, rule: AlertRuleInput): Promise<AlertRule> {
  const res = await fetch(`${url}api/alerts/rules`, { method: 'POST', body: JSON.stringify(rule) });
  const body = (await res.json()) as { rule: AlertRule; error?: string };
  expect(res.status, body.error).toBe(201);
  return body.rule;
}

const rulesOf = async (url: string): Promise<AlertRule[]> => ((await (await fetch(`${url}api/alerts/rules`)).json()) as { rules: AlertRule[] }).rules;
const historyOf = async (url: string): Promise<AlertFiring[]> =>
  ((await (await fetch(`${url}api/alerts/history?limit=500`)).json()) as { alerts: AlertFiring[] }).alerts;

describe('alerts on two relays sharing one Redis', () => {
  it('a rule added on A fires exactly once across A and B, through receiver downtime and a restart of both; rules are shared, CLI too', async () => {
    const redis = await redisForTest();
    // two copies of the collapsing session under different ids: the second is streamed after the last restart
    const collapse = sampleLines('collapse.jsonl');
    const again = collapse.map((l) => l.replace('"session_id":"collapse"', '"session_id":"collapse-again"'));
    expect(again.every((l) => l.includes('"collapse-again"'))).toBe(true);
    const report = JSON.parse((await runCli(['check', '--json', '--fail-on', 'never', path.join(SAMPLES, 'collapse.jsonl')])).stdout) as CheckOutput;
    const s = report.sessions[0]!;
    const turns = s.metrics.map((m) => m.turn);
    const fault = (i: number): boolean => s.findings.some((x) => x.turn === turns[i] && x.signal === 'relevance_collapse' && x.severity === 'fault');
    const expectedTurns = firings(turns, fault, 3);
    expect(expectedTurns.length).toBeGreaterThan(0);

    const receiver = new WebhookReceiver();
    cleanup.push(() => receiver.stop());
    await receiver.start();
    await receiver.stop(); // down at first: the relays retry

    const retry = { initialMs: 100, maxMs: 400, attempts: 200 };
    let a = await relayOn(redis, { alertRetry: retry, allowWebhookHosts: ['127.0.0.1'] });
    let b = await relayOn(redis, { alertRetry: retry, allowWebhookHosts: ['127.0.0.1'] });
    const rule = await addRule(a.url, { signal: 'relevance_collapse', min_severity: 'fault', for_turns: 3, webhook: receiver.url });
    // and one added with the CLI through B that must not fire: the collapse never freezes a session named so
    const cli = await runCli(['alerts', 'add', '--action', 'freeze', '--session', 'no-such-session', '--webhook', receiver.url, '--url', b.url, '--json']);
    expect(cli.code, cli.stderr).toBe(0);
    const never = JSON.parse(cli.stdout) as AlertRule;
    for (const r of [a, b]) await until(async () => (await rulesOf(r.url)).length === 2, 'both rules on both relays');
    expect((await runCli(['alerts', 'list', '--url', a.url])).stdout).toContain(never.id);

    // alternate relays per message; stop both in the middle of the first run (after its first faulted turn)
    const firstRun = turns[turns.findIndex((_, i) => fault(i))]!;
    const cut = collapse.findIndex((l) => (JSON.parse(l) as { turn?: number }).turn === firstRun + 1);
    for (let i = 0; i < cut; i++) expect((await postNdjson(i % 2 === 0 ? a.url : b.url, collapse[i]!)).status).toBe(200);
    await a.close();
    await b.close();
    a = await relayOn(redis, { alertRetry: retry, allowWebhookHosts: ['127.0.0.1'] });
    b = await relayOn(redis, { alertRetry: retry, allowWebhookHosts: ['127.0.0.1'] });
    for (let i = cut; i < collapse.length; i++) expect((await postNdjson(i % 2 === 0 ? a.url : b.url, collapse[i]!)).status).toBe(200);
    const want = expectedTurns.map((t) => `collapse ${t}`);
    for (const r of [a, b]) await until(async () => (await historyOf(r.url)).length === want.length, `${want.length} firings in each relay's history`);

    await receiver.start(); // back: each firing is delivered by one relay
    await until(() => receiver.bodies.length >= want.length, `${want.length} webhook deliveries`);
    const delivered = async (url: string): Promise<number> =>
      ((await (await fetch(`${url}api/alerts/deliveries?limit=500`)).json()) as { deliveries: AlertDelivery[] }).deliveries.filter(
        (d) => d.outcome === 'delivered',
      ).length;
    // a delivery not yet recorded when its relay stops is made again after the restart (at least once): wait for the records
    await until(async () => (await delivered(a.url)) === want.length, 'the deliveries recorded');

    // restart both again; what they re-read never fires, and the second session's firings are all that come
    await a.close();
    await b.close();
    a = await relayOn(redis, { alertRetry: retry, allowWebhookHosts: ['127.0.0.1'] });
    b = await relayOn(redis, { alertRetry: retry, allowWebhookHosts: ['127.0.0.1'] });
    await Promise.all([a.analysis!.whenRebuilt(), b.analysis!.whenRebuilt()]);
    for (let i = 0; i < again.length; i++) expect((await postNdjson(i % 2 === 0 ? b.url : a.url, again[i]!)).status).toBe(200);
    want.push(...expectedTurns.map((t) => `collapse-again ${t}`));
    await until(() => receiver.bodies.length >= want.length, `${want.length} webhook deliveries`);

    const got = receiver.bodies.map((f) => `${f.session_id} ${f.turn}`);
    expect(got.sort()).toEqual([...want].sort());
    expect(receiver.bodies.every((f) => f.rule_id === rule.id)).toBe(true);
    for (const r of [a, b]) {
      const h = await historyOf(r.url);
      expect(h.map((f) => f.id).sort()).toEqual(receiver.bodies.map((f) => f.id).sort());
      const deliveries = ((await (await fetch(`${r.url}api/alerts/deliveries?limit=500`)).json()) as { deliveries: AlertDelivery[] }).deliveries;
      expect(
        deliveries
          .filter((d) => d.outcome === 'delivered')
          .map((d) => d.alert_id)
          .sort(),
      ).toEqual(h.map((f) => f.id).sort());
      expect(deliveries.some((d) => d.outcome === 'retrying' && d.error !== null)).toBe(true);
    }
    // removed through B: gone on A
    expect((await runCli(['alerts', 'rm', never.id, '--url', b.url])).code).toBe(0);
    await until(async () => (await rulesOf(a.url)).length === 1, 'A to see the rule removed');
  });
});

describe('retention on the Redis store', () => {
  it('--retain on one relay deletes an expired session for every relay; --retain-bytes counts the bytes stored in Redis', async () => {
    const redis = await redisForTest();
    const b = await relayOn(redis);
    const lines = sampleLines('healthy.jsonl');
    expect((await postNdjson(b.url, lines.slice(0, 5).join('\n'))).status).toBe(200);
    await until(async () => (await overviewOf(b.url)).sessions.some((s) => s.session_id === 'healthy'), 'the session in B’s overview');
    const a = await relayOn(redis, { retainMs: 1500, retention: { everyMs: 100 } });
    await until(async () => (await fetch(`${b.url}api/sessions/healthy`)).status === 404, 'the session to expire');
    await until(async () => !(await overviewOf(b.url)).sessions.some((s) => s.session_id === 'healthy'), 'B’s overview to drop it');
    expect((await overviewOf(a.url)).sessions.some((s) => s.session_id === 'healthy')).toBe(false);
    await a.close(); // its --retain would expire what follows too

    for (const id of ['r1', 'r2', 'r3']) {
      const own = lines.map((l) => l.replace('"session_id":"healthy"', `"session_id":"${id}"`));
      expect((await postNdjson(b.url, own.slice(0, 4).join('\n'))).status).toBe(200);
    }
    const sizes = new Map((await b.store.list()).map((s) => [s.id, s.bytes]));
    const transcript = async (id: string): Promise<number> => (await (await fetch(`${b.url}api/sessions/${id}/transcript`)).arrayBuffer()).byteLength;
    for (const id of ['r1', 'r2', 'r3']) expect(sizes.get(id)).toBe(await transcript(id));
    // a budget that fits the two most recent: the least recently updated goes, on every relay
    await relayOn(redis, { retainBytes: sizes.get('r2')! + sizes.get('r3')! + 10, retention: { everyMs: 60_000, liveMs: 0 } });
    await until(async () => (await fetch(`${b.url}api/sessions/r1`)).status === 404, 'r1 to be deleted');
    expect((await fetch(`${b.url}api/sessions/r2`)).status).toBe(200);
    expect((await fetch(`${b.url}api/sessions/r3`)).status).toBe(200);
  });
});
