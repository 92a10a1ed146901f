// Several relays on one Redis (docs/scale-out.md): a harness ingests on relay A while a
// dashboard follows on relay B, and one on A; A is killed (SIGKILL) mid-stream and the
// harness resumes on B. Every acknowledged message is stored exactly once, every
// subscriber sees every seq once and in order, and the stored session analyses as `check`
// of what the harness sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HarnessClient, type Ack } from '../../src/client/harness.ts';
import type { Overview } from '../../src/protocol/relay.ts';
import { Engine } from '../../src/core/engine.ts';
import { CheckOutputBuilder } from '../../src/core/checkOutput.ts';
import { nodeSha256 } from '../../src/node/platform.ts';
import type { Relay } from '../../src/server/relay.ts';
import { exited, postNdjson, Recorder, run, spawnServe, testRelay, transcriptLines } from '../relay/helpers.ts';
import { startRedis, startRedisCluster, type TestRedis } from './redisServer.ts';

let redis: TestRedis;
const relays: Relay[] = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await Promise.all(relays.splice(0).map((r) => r.close()));
  await redis.stop();
});

/** Span i is rewritten every i + 2 turns (so the compact wire leaves most texts out); scores bound. */
function snapshot(sid: string, turn: number, spans = 10): Record<string, unknown> {
  const list = [];
  for (let i = 0; i < spans; i++) {
    const text = `span ${i} v${Math.floor(turn / (i + 2))} ` + 'z'.repeat(100);
    list.push({ span_id: `s${i}`, text, score: ((i * 31 + turn) % 97) / 97, text_sha256: nodeSha256(text), pinned: i === 0 });
  }
  return { type: 'snapshot', session_id: sid, turn, spans: list };
}

function analyse(lines: readonly string[]): ReturnType<CheckOutputBuilder['build']> {
  const engine = new Engine({ sha256: nodeSha256 });
  const report = new CheckOutputBuilder();
  lines.forEach((l, i) => report.add(engine.ingestLine(l, i + 1)));
  return report.build();
}

const msgSeqs = (r: Recorder): number[] => r.frames.filter((f) => f.type === 'msg').map((f) => f.seq!);

describe('two relays on one Redis', () => {
  it('ingest on A, watch on B and A: no gap, no duplicate, in order; A killed mid-stream, resumed on B: every ack stored once', async () => {
    const a = await spawnServe(['--port', '0', '--no-static', '--store', redis.url]);
    const b = await testRelay({ store: redis.url });
    relays.push(b);
    const sid = 'fleet-1';
    const onB = new Recorder(b.url, sid);
    const clientA = new HarnessClient({ url: a.url, initialBackoffMs: 20, maxBackoffMs: 50, giveUpAfterMs: 1500 });
    const whole: string[] = [JSON.stringify({ type: 'session', session_id: sid, title: 'fleet', wire: '1.1' })];
    for (let t = 1; t <= 300; t++) whole.push(JSON.stringify(snapshot(sid, t)));
    const acked = new Map<number, Ack>();
    const sends: Promise<void>[] = [];
    let onA: Recorder | null = null;
    for (let i = 0; i < 200; i++) {
      sends.push(
        clientA.send(whole[i]!).then(
          (ack) => void acked.set(i, ack),
          () => undefined,
        ),
      );
      if (i === 60) {
        await Promise.all(sends);
        onA = new Recorder(a.url, sid, 30); // a late subscriber on A, from seq 30
        const late = onA;
        await late.until(() => late.frames.some((f) => f.type === 'caught_up'));
      }
      if (i % 25 === 0) await new Promise((r) => setTimeout(r, 5));
    }
    // kill A while messages are in flight
    a.child.kill('SIGKILL');
    await exited(a.child);
    await Promise.all(sends);
    await clientA.close(0);
    const firstUnacked = [...Array(200).keys()].find((i) => !acked.has(i)) ?? 200;
    expect(acked.size).toBeGreaterThan(60);
    expect(firstUnacked).toBeLessThan(200); // A died with messages in flight

    // the harness resumes on B from its first unacknowledged message: stored ones come back as duplicates
    const clientB = new HarnessClient({ url: b.url });
    const rest = await Promise.all(whole.slice(firstUnacked).map((line) => clientB.send(line)));
    await clientB.close();
    rest.forEach((ack, k) => acked.set(firstUnacked + k, ack));

    // every acknowledged message exactly once, seq = position, in order
    const stored = await transcriptLines(b.url, sid);
    expect(stored).toHaveLength(whole.length);
    for (const [i, ack] of acked) expect(ack.seq).toBe(i + 1);
    const turns = stored.slice(1).map((l) => (JSON.parse(l) as { turn: number }).turn);
    expect(turns).toEqual(whole.slice(1).map((_, k) => k + 1));
    // the log keeps the compact form and analyses as the whole session
    expect(stored.some((l) => l.includes('"base_turn"'))).toBe(true);
    expect(analyse(stored).sessions).toEqual(analyse(whole).sessions);

    // the dashboard on B saw every seq once, in order
    await onB.untilSeq(whole.length);
    expect(msgSeqs(onB)).toEqual(whole.map((_, i) => i + 1));
    expect(onB.frames.filter((f) => f.type === 'caught_up')).toHaveLength(1);
    // the one on A saw 31… in order until A died
    const seenOnA = msgSeqs(onA!);
    expect(seenOnA[0]).toBe(31);
    expect(seenOnA).toEqual(seenOnA.map((_, k) => 31 + k));
    await onB.close();
  });

  it('the session list, info and delete are shared; a relay restarted on the same Redis serves everything', async () => {
    const a = await testRelay({ store: redis.url });
    const b = await testRelay({ store: redis.url });
    relays.push(b);
    const lines = [JSON.stringify({ type: 'session', session_id: 'shared', title: 'shared one' })];
    for (let t = 1; t <= 5; t++) lines.push(JSON.stringify(snapshot('shared', t)));
    let r = await postNdjson(a.url, lines.join('\n'));
    expect(r.status).toBe(200);
    const list = (await (await fetch(`${b.url}api/sessions`)).json()) as { sessions: { session_id: string; last_seq: number; title: string }[] };
    expect(list.sessions.find((s) => s.session_id === 'shared')).toMatchObject({ last_seq: 6, title: 'shared one' });
    // a retry through the other relay is recognised; a turn that does not increase is refused on both
    r = await postNdjson(b.url, lines[3]!);
    expect(r.json.accepted[0]).toMatchObject({ seq: 4, duplicate: true });
    r = await postNdjson(b.url, JSON.stringify({ ...snapshot('shared', 2), spans: [] }));
    expect(r.json.errors[0]!.message).toMatch(/turn 2 of session "shared" does not increase/);
    await a.close();
    const a2 = await testRelay({ store: redis.url });
    relays.push(a2);
    expect((await transcriptLines(a2.url, 'shared')).map((l) => JSON.parse(l) as unknown)).toEqual(lines.map((l) => JSON.parse(l) as unknown));
    const watcher = new Recorder(b.url, 'shared', 6);
    await watcher.until(() => watcher.frames.some((f) => f.type === 'caught_up'));
    expect((await fetch(`${a2.url}api/sessions/shared`, { method: 'DELETE' })).status).toBe(200);
    expect((await fetch(`${b.url}api/sessions/shared`)).status).toBe(404);
    await watcher.untilClosed();
    expect(watcher.closeCode).toBe(4010);
  });

  it('two relays ingesting the same session at once never store two messages under one seq', async () => {
    const a = await testRelay({ store: redis.url });
    const b = await testRelay({ store: redis.url });
    relays.push(a, b);
    const sid = 'race';
    // both relays get every turn (two harness copies racing): each turn is stored once
    const msgs = Array.from({ length: 60 }, (_, k) => JSON.stringify(snapshot(sid, k + 1, 3)));
    const [ra, rb] = await Promise.all([Promise.all(msgs.map((m) => postNdjson(a.url, m))), Promise.all(msgs.map((m) => postNdjson(b.url, m)))]);
    const stored = await transcriptLines(a.url, sid);
    const turns = stored.map((l) => (JSON.parse(l) as { turn: number }).turn);
    // strictly increasing, no turn twice; whatever a relay acknowledged is in the log at its seq
    for (let k = 1; k < turns.length; k++) expect(turns[k]!).toBeGreaterThan(turns[k - 1]!);
    for (const r of [...ra, ...rb]) {
      for (const ack of r.json.accepted) expect((JSON.parse(stored[ack.seq - 1]!) as { turn: number }).turn).toBe(ack.turn);
    }
  });
});

describe('serve --store', () => {
  it('refuses what is not a Redis URL, and says why when Redis cannot be reached', async () => {
    const bad = await run(process.execPath, ['bin/context-health.mjs', 'serve', '--port', '0', '--store', 'postgres://x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--store must be redis:\/\/host:port/);
    const down = await run(process.execPath, ['bin/context-health.mjs', 'serve', '--port', '0', '--store', 'redis://127.0.0.1:1']);
    expect(down.code).toBe(2);
    expect(down.stderr).toMatch(/cannot connect to Redis at redis:\/\/127\.0\.0\.1:1: connect ECONNREFUSED/);
  });
});

describe('two relays on a Redis Cluster (sessions sharded by hash tag)', () => {
  it('ingest on A, watch on B: every session complete, in order, whichever shard holds it', async () => {
    const cluster = await startRedisCluster(3);
    try {
      const a = await testRelay({ store: cluster.url });
      const b = await testRelay({ store: cluster.url });
      relays.push(a, b);
      const ids = Array.from({ length: 8 }, (_, k) => `shard-${k}`);
      const watchers = ids.map((id) => new Recorder(b.url, id));
      const lines = ids.flatMap((id) => [
        JSON.stringify({ type: 'session', session_id: id, wire: '1.1' }),
        ...Array.from({ length: 20 }, (_, t) => JSON.stringify(snapshot(id, t + 1, 4))),
      ]);
      const r = await postNdjson(a.url, lines.join('\n'));
      expect(r.status).toBe(200);
      for (const w of watchers) await w.untilSeq(21);
      for (const w of watchers) expect(msgSeqs(w)).toEqual(Array.from({ length: 21 }, (_, k) => k + 1));
      const list = (await (await fetch(`${b.url}api/sessions`)).json()) as { sessions: { session_id: string; last_seq: number }[] };
      expect(list.sessions.filter((s) => s.session_id.startsWith('shard-')).map((s) => s.last_seq)).toEqual(ids.map(() => 21));
      for (const id of ids) expect(await transcriptLines(b.url, id)).toHaveLength(21);
      // the analysis follows every shard too: B's overview has every session written through A, all 20 turns
      const turnsOnB = async (): Promise<number[]> => {
        const o = (await (await fetch(`${b.url}api/overview`)).json()) as Overview;
        return ids.map((id) => o.sessions.find((x) => x.session_id === id)?.turns ?? 0);
      };
      for (let i = 0; i < 400 && (await turnsOnB()).some((n) => n !== 20); i++) await new Promise((r) => setTimeout(r, 50));
      expect(await turnsOnB()).toEqual(ids.map(() => 20));
      await Promise.all(watchers.map((w) => w.close()));
    } finally {
      await Promise.all(relays.splice(0).map((r) => r.close()));
      await cluster.stop();
    }
  });
});
