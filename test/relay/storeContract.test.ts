// The session-store contract (src/server/sessionStore.ts), held by the same cases against
// both stores: the JSONL files and Redis Streams (a redis-server of the test's own on a
// loopback port). The rules live once (the gate, the ingest path, the fan-out); these cases
// prove that neither store bends them: ordering, retries (one window for both,
// docs/relay-protocol.md "Retries"), subscriber cut-off and backpressure.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RelayOptions } from '../../src/server/relay.ts';
import { startRedis, type TestRedis } from '../redis/redisServer.ts';
import { generatedSession, postNdjson, Recorder, relaysPerTest, snapshot, transcriptLines } from './helpers.ts';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});

const started = relaysPerTest();
const recorders: Recorder[] = [];
afterAll(async () => {
  await Promise.all(recorders.map((r) => r.close()));
});

let n = 0;
/** a session id no other case (nor the other store's run) uses: the Redis server is shared by the file's cases */
const fresh = (name: string): string => `${name}-${++n}`;
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe.each([
  { store: 'files', options: (): Partial<RelayOptions> => ({}) },
  { store: 'redis', options: (): Partial<RelayOptions> => ({ store: redis.url }) },
])('the $store store', ({ options }) => {
  const relay = (more: Partial<RelayOptions> = {}): ReturnType<typeof started> => started({ analysis: false, ...options(), ...more });
  const record = (url: string, sid: string, since = 0): Recorder => {
    const r = new Recorder(url, sid, since);
    recorders.push(r);
    return r;
  };

  describe('ordering', () => {
    it('stores a header and increasing turns under seqs 1, 2, …; refuses a turn that does not increase, a late header and a second header', async () => {
      const r = await relay();
      const sid = fresh('order');
      const lines = generatedSession(sid, 3, 2);
      const first = await postNdjson(r.url, lines.join('\n'));
      expect(first.json.accepted.map((a) => [a.seq, a.turn, a.duplicate])).toEqual([
        [1, null, false],
        [2, 1, false],
        [3, 2, false],
        [4, 3, false],
      ]);
      const { json } = await postNdjson(
        r.url,
        [
          JSON.stringify(snapshot(sid, 2, 3)),
          JSON.stringify({ type: 'session', session_id: sid, title: 'another' }),
          lines[0]!,
          JSON.stringify(snapshot(sid, 9, 2)),
        ].join('\n'),
      );
      expect(json.errors).toEqual([
        {
          line: 1,
          session_id: sid,
          message: `turn 2 of session "${sid}" does not increase (the last stored snapshot is turn 3), and it is not a copy of a stored snapshot`,
        },
        { line: 2, session_id: sid, message: `a second, different session header for "${sid}": a session has one header` },
      ]);
      expect(json.accepted.map((a) => [a.line, a.seq, a.duplicate])).toEqual([
        [3, 1, true],
        [4, 5, false],
      ]);
      const late = fresh('late');
      await postNdjson(r.url, JSON.stringify(snapshot(late, 1, 1)));
      expect((await postNdjson(r.url, JSON.stringify({ type: 'session', session_id: late }))).json.errors[0]!.message).toBe(
        `a session header for "${late}" must come before its first snapshot`,
      );
      expect(await transcriptLines(r.url, sid)).toEqual([...lines, JSON.stringify(snapshot(sid, 9, 2))]);
    });

    it('keeps each session in arrival order when large messages are validated on a worker thread and small ones inline', async () => {
      const r = await relay({ validatorThreads: 2 });
      const sid = fresh('mix');
      const lines: string[] = [];
      for (let t = 1; t <= 40; t++) lines.push(JSON.stringify(snapshot(sid, t, t % 2 === 0 ? 40 : 1, t % 2 === 0 ? 1000 : 10)));
      const { json } = await postNdjson(r.url, lines.join('\n'));
      expect(json.errors).toEqual([]);
      expect(json.accepted.map((a) => a.seq)).toEqual(range(1, 40));
      expect((await transcriptLines(r.url, sid)).map((l) => (JSON.parse(l) as { turn: number }).turn)).toEqual(range(1, 40));
    });
  });

  describe('retries', () => {
    it('acknowledges a resent message (keys in any order) with its original seq, and stores it once', async () => {
      const r = await relay();
      const sid = fresh('resend');
      const body = generatedSession(sid, 5).join('\n');
      const first = await postNdjson(r.url, body);
      const again = await postNdjson(r.url, body);
      expect(again.status).toBe(200);
      expect(again.json.accepted.map((a) => [a.seq, a.duplicate])).toEqual(first.json.accepted.map((a) => [a.seq, true]));
      const snap = snapshot(sid, 3, 20);
      const reordered = JSON.stringify(Object.fromEntries(Object.entries(snap).reverse()));
      expect((await postNdjson(r.url, reordered)).json.accepted[0]).toMatchObject({ seq: 4, turn: 3, duplicate: true });
      expect(await transcriptLines(r.url, sid)).toHaveLength(6);
    });

    it('recognises a resent transcript while a dashboard follows the session (the store keeps the last line for it)', async () => {
      const r = await relay();
      const sid = fresh('followed');
      const lines = generatedSession(sid, 6, 3);
      await postNdjson(r.url, lines.slice(0, -1).join('\n'));
      const viewer = record(r.url, sid);
      await viewer.until(() => viewer.frames.some((f) => f.type === 'caught_up'));
      // stored while the viewer waits for it: the line a follower reads next
      await postNdjson(r.url, lines.at(-1)!);
      await viewer.untilSeq(lines.length);
      const again = await postNdjson(r.url, lines.join('\n'));
      expect(again.json.errors).toEqual([]);
      expect(again.json.accepted.map((a) => [a.seq, a.duplicate])).toEqual(lines.map((_, i) => [i + 1, true]));
      expect(await transcriptLines(r.url, sid)).toEqual(lines);
    });

    it('recognises a retry among the last 1024 messages and refuses one of a turn older than that, naming the window', async () => {
      const r = await relay();
      const sid = fresh('window');
      const lines = generatedSession(sid, 1500, 1, 20);
      expect((await postNdjson(r.url, lines.join('\n'))).status).toBe(200);
      const resend = async (turn: number): ReturnType<typeof postNdjson> => postNdjson(r.url, lines[turn]!);
      // seq = turn + 1 (the header is seq 1): the window is seqs 478..1501
      for (const turn of [1500, 1400, 477]) expect((await resend(turn)).json.accepted[0]).toMatchObject({ seq: turn + 1, turn, duplicate: true });
      for (const turn of [476, 100]) {
        const old = await resend(turn);
        expect(old.status).toBe(400);
        expect(old.json.errors[0]!.message).toBe(
          `turn ${turn} of session "${sid}" does not increase (the last stored snapshot is turn 1500), and it is not a copy of a stored snapshot (retries are recognised among the last 1024 messages)`,
        );
      }
      // a changed copy of a turn in the window is no retry
      const changed = JSON.stringify({ ...(JSON.parse(lines[1490]!) as object), pruned: ['x'] });
      expect((await postNdjson(r.url, changed)).json.errors[0]!.message).toMatch(/turn 1490 .* does not increase/);
      expect(await transcriptLines(r.url, sid)).toHaveLength(1501);
    });
  });

  describe('subscribers', () => {
    it('sends hello, the backlog, caught_up and the live stream with no gap; a deleted session closes its subscribers with 4010', async () => {
      const r = await relay();
      const sid = fresh('sub');
      const lines = generatedSession(sid, 20, 3);
      await postNdjson(r.url, lines.slice(0, 11).join('\n'));
      const rec = record(r.url, sid, 4);
      await rec.until(() => rec.frames.some((f) => f.type === 'caught_up'));
      expect(rec.frames[0]).toEqual({ type: 'hello', session_id: sid, since: 4, last_seq: 11 });
      expect(rec.frames[rec.frames.length - 1]).toEqual({ type: 'caught_up', seq: 11 });
      for (const line of lines.slice(11)) await postNdjson(r.url, line);
      await rec.untilSeq(21);
      expect(rec.seqs).toEqual(range(5, 21));
      const past = record(r.url, sid, 99);
      await past.untilClosed();
      expect(past.closeCode).toBe(4009);
      await fetch(`${r.url}api/sessions/${sid}`, { method: 'DELETE' });
      await rec.untilClosed();
      expect(rec.closeCode).toBe(4010);
      expect(rec.frames[rec.frames.length - 1]).toEqual({ type: 'bye', reason: 'the session was deleted' });
    });

    it('cuts off a live subscriber that falls more than its limit behind (4008), and goes on serving the others', async () => {
      const limit = 256 * 1024;
      const r = await relay({ fanout: { maxBufferedBytes: limit } });
      const sid = fresh('slow');
      const slow = record(r.url, sid);
      const fast = record(r.url, sid);
      await Promise.all([slow, fast].map((x) => x.until(() => x.frames.some((f) => f.type === 'caught_up'))));
      slow.ws.pause(); // reads nothing from now on
      let t = 0;
      // until the relay gives up on the slow one (kernel socket buffers absorb the first MBs)
      while (r.fanout.stats().cutSlow === 0 && t < 3000) await postNdjson(r.url, JSON.stringify(snapshot(sid, ++t, 20, 1000)));
      expect(r.fanout.stats().cutSlow).toBe(1);
      await fast.untilSeq(t);
      expect(fast.seqs).toEqual(range(1, t));
      slow.ws.resume();
      await slow.untilClosed();
      expect(slow.closeCode).toBe(4008);
      expect(slow.frames[slow.frames.length - 1]).toMatchObject({ type: 'bye', reason: expect.stringMatching(/^too slow: more than 262144 bytes/) });
      expect(slow.seqs).toEqual(range(1, slow.lastSeq));
    });

    it('cuts off a subscriber that reads nothing of its backlog for stallMs (4008, stalled), holding at most the high-water mark for it', async () => {
      const r = await relay({ fanout: { stallMs: 600 } });
      const sid = fresh('stall');
      // ~24 MB of backlog: more than the kernel's socket buffers and the 1 MiB high-water mark
      const lines = generatedSession(sid, 120, 20, 10_000);
      for (let i = 0; i < lines.length; i += 20) expect((await postNdjson(r.url, lines.slice(i, i + 20).join('\n'))).status).toBe(200);
      const stalled = record(r.url, sid);
      // never reads (a socket still connecting cannot be paused)
      await new Promise<void>((res) => stalled.ws.once('open', () => res()));
      stalled.ws.pause();
      const deadline = Date.now() + 20_000;
      while (r.fanout.count() > 0 && Date.now() < deadline) {
        expect(r.fanout.stats().bufferedBytes).toBeLessThan(2 * 1024 * 1024 + 300_000);
        await new Promise((res) => setTimeout(res, 50));
      }
      expect(r.fanout.count()).toBe(0);
      stalled.ws.resume();
      await stalled.untilClosed();
      expect(stalled.closeCode).toBe(4008);
      expect(stalled.frames[stalled.frames.length - 1]).toEqual({
        type: 'bye',
        reason: 'stalled: the subscriber read nothing for 1 s while its backlog was being sent',
      });
      expect(stalled.seqs.length).toBeLessThan(lines.length);
      expect(stalled.seqs).toEqual(range(1, stalled.lastSeq));
      // a reader that keeps up gets the whole backlog
      const reader = record(r.url, sid);
      await reader.untilSeq(lines.length);
      expect(reader.seqs).toEqual(range(1, lines.length));
    });
  });
});
