// Dashboard side of the relay: backlog then live with no gap and no duplicate, resuming
// with `since`, and the bound on slow subscribers.
import { afterEach, describe, expect, it } from 'vitest';
import { HarnessClient } from '../../src/client/harness.ts';
import type { Relay } from '../../src/server/relay.ts';
import { generatedSession, postNdjson, Recorder, snapshot, testRelay, transcriptLines } from './helpers.ts';

const relays: Relay[] = [];
const recorders: Recorder[] = [];
async function relay(options: Parameters<typeof testRelay>[0] = {}): Promise<Awaited<ReturnType<typeof testRelay>>> {
  const r = await testRelay(options);
  relays.push(r);
  return r;
}
function record(url: string, sid: string, since = 0): Recorder {
  const rec = new Recorder(url, sid, since);
  recorders.push(rec);
  return rec;
}
afterEach(async () => {
  await Promise.all(recorders.splice(0).map((r) => r.close()));
  await Promise.all(relays.splice(0).map((r) => r.close()));
});

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('subscribe', () => {
  it('sends hello, the backlog, caught_up, then the live stream', async () => {
    const r = await relay();
    const lines = generatedSession('s', 30, 5);
    await postNdjson(r.url, lines.join('\n'));
    const rec = record(r.url, 's');
    await rec.until(() => rec.frames.some((f) => f.type === 'caught_up'));
    expect(rec.frames[0]).toEqual({ type: 'hello', session_id: 's', since: 0, last_seq: 31 });
    expect(rec.frames[32]).toEqual({ type: 'caught_up', seq: 31 });
    expect(rec.frames.slice(1, 32).map((f) => JSON.stringify(f.data))).toEqual(lines);
    await postNdjson(r.url, generatedSession('s', 5, 5, 80, 31).slice(1).join('\n'));
    await rec.untilSeq(36);
    expect(rec.seqs).toEqual(range(1, 36));
  });

  it('late join with since: only what was missed, then live', async () => {
    const r = await relay();
    await postNdjson(r.url, generatedSession('s', 20).join('\n'));
    const rec = record(r.url, 's', 15);
    await rec.until(() => rec.frames.some((f) => f.type === 'caught_up'));
    expect(rec.frames[0]).toMatchObject({ type: 'hello', since: 15, last_seq: 21 });
    expect(rec.seqs).toEqual(range(16, 21));
  });

  it('waits on a session that does not exist yet', async () => {
    const r = await relay();
    const rec = record(r.url, 'later');
    await rec.until(() => rec.frames.length >= 2);
    expect(rec.frames).toEqual([
      { type: 'hello', session_id: 'later', since: 0, last_seq: 0 },
      { type: 'caught_up', seq: 0 },
    ]);
    await postNdjson(r.url, generatedSession('later', 3).join('\n'));
    await rec.untilSeq(4);
    expect(rec.seqs).toEqual([1, 2, 3, 4]);
  });

  it('refuses since beyond the last seq with a reason (the relay is not the one the dashboard saw)', async () => {
    const r = await relay();
    await postNdjson(r.url, generatedSession('s', 2).join('\n'));
    const rec = record(r.url, 's', 10);
    await rec.untilClosed();
    expect(rec.closeCode).toBe(4009);
    expect(rec.frames[0]).toMatchObject({ type: 'bye', reason: expect.stringMatching(/since=10 is past the last seq/) });
  });

  it('a subscriber that disconnects mid-stream and resumes with since ends with exactly the sent sequence', async () => {
    const r = await relay();
    const client = new HarnessClient({ url: r.url, maxInFlight: 8 });
    const total = 600;
    const sending = (async () => {
      await client.session('live', { title: 'live' });
      for (let t = 1; t <= total; t++) await client.snapshot(snapshot('live', t, 10, 60) as never);
    })();
    // a viewer that keeps dropping and resuming, processing each message once
    const processed: { seq: number; turn: number }[] = [];
    let since = 0;
    let rounds = 0;
    while (since < total + 1) {
      const rec = record(r.url, 'live', since);
      const stopAt = since + 37 + (rounds % 5) * 11;
      await rec.until(() => rec.lastSeq >= stopAt || (rec.lastSeq >= total + 1 && rec.frames.some((f) => f.type === 'caught_up')), 30_000, `seq ${stopAt}`);
      rec.ws.terminate(); // an abrupt drop, mid-stream
      for (const f of rec.frames) if (f.type === 'msg') processed.push({ seq: f.seq!, turn: f.data!.turn ?? 0 });
      since = processed.length === 0 ? 0 : processed[processed.length - 1]!.seq;
      rounds++;
    }
    await sending;
    await client.close();
    expect(rounds).toBeGreaterThan(5);
    expect(processed.map((p) => p.seq)).toEqual(range(1, total + 1));
    expect(processed.map((p) => p.turn)).toEqual([0, ...range(1, total)]);
    expect(await transcriptLines(r.url, 'live')).toHaveLength(total + 1);
  });

  it('subscribers joining during a fast stream each see every message once, in order', async () => {
    const r = await relay();
    const total = 400;
    const client = new HarnessClient({ url: r.url, maxInFlight: 32 });
    const recs: Recorder[] = [];
    const sending = (async () => {
      for (let t = 1; t <= total; t++) {
        const ack = client.snapshot(snapshot('fast', t, 5, 40) as never);
        if (t % 40 === 0) recs.push(record(r.url, 'fast', t % 80 === 0 ? 0 : Math.floor(t / 2)));
        await ack;
      }
    })();
    await sending;
    await client.close();
    for (const rec of recs) {
      await rec.untilSeq(total);
      const first = (rec.frames[0] as { since: number }).since;
      expect(rec.seqs).toEqual(range(first + 1, total));
    }
  });

  it('cuts off a slow subscriber with a reason, without buffering more than its limit', async () => {
    const limit = 256 * 1024;
    const r = await relay({ fanout: { maxBufferedBytes: limit } });
    const slow = record(r.url, 'big');
    const fast = record(r.url, 'big');
    await slow.until(() => slow.frames.some((f) => f.type === 'caught_up'));
    slow.ws.pause(); // reads nothing from now on
    const rssBefore = process.memoryUsage().rss;
    let maxBuffered = 0;
    let t = 0;
    const frameBytes = JSON.stringify(snapshot('big', 1, 20, 1000)).length + 40;
    // send until the relay gives up on the slow one (kernel socket buffers absorb the first MBs)
    while (r.fanout.stats().cutSlow === 0 && t < 3000) {
      t++;
      await postNdjson(r.url, JSON.stringify(snapshot('big', t, 20, 1000)));
      maxBuffered = Math.max(maxBuffered, r.fanout.stats().bufferedBytes);
    }
    expect(r.fanout.stats().cutSlow).toBe(1);
    expect(maxBuffered).toBeLessThanOrEqual(2 * (limit + frameBytes)); // the fast one's few frames in flight, and the slow one's limit
    // the relay keeps serving the other subscriber and goes on storing
    await fast.untilSeq(t);
    expect(fast.seqs).toEqual(range(1, t));
    for (let k = 0; k < 50; k++) await postNdjson(r.url, JSON.stringify(snapshot('big', ++t, 20, 1000)));
    await fast.untilSeq(t);
    expect(r.fanout.stats().bufferedBytes).toBeLessThan(limit);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 * 1024);
    // once it reads again it finds what was queued for it, then the reason, then the close
    slow.ws.resume();
    await slow.untilClosed();
    expect(slow.closeCode).toBe(4008);
    const bye = slow.frames[slow.frames.length - 1]!;
    expect(bye).toMatchObject({ type: 'bye', reason: expect.stringMatching(/^too slow: more than 262144 bytes/) });
    expect(slow.seqs).toEqual(range(1, slow.lastSeq));
    // and it can resume where it stopped
    const again = record(r.url, 'big', slow.lastSeq);
    await again.untilSeq(t);
    expect(again.seqs).toEqual(range(slow.lastSeq + 1, t));
  });

  it('drops a subscriber that stopped answering pings (a vanished peer)', async () => {
    const r = await relay({ heartbeatMs: 100 });
    const alive = record(r.url, 'hb');
    const gone = record(r.url, 'hb');
    await Promise.all([alive, gone].map((x) => x.until(() => x.frames.some((f) => f.type === 'caught_up'))));
    gone.ws.pause(); // reads nothing, so answers no ping
    await new Promise((res) => setTimeout(res, 500));
    expect(r.fanout.count()).toBe(1);
    await postNdjson(r.url, generatedSession('hb', 1).join('\n'));
    await alive.untilSeq(2);
    gone.ws.resume();
    await gone.untilClosed();
    expect(gone.closeCode).toBe(1006); // terminated, not closed politely: it was not listening
  });

  it('tells subscribers of a deleted session why they were closed', async () => {
    const r = await relay();
    await postNdjson(r.url, generatedSession('gone', 2).join('\n'));
    const rec = record(r.url, 'gone');
    await rec.untilSeq(3);
    await fetch(`${r.url}api/sessions/gone`, { method: 'DELETE' });
    await rec.untilClosed();
    expect(rec.closeCode).toBe(4010);
    expect(rec.frames[rec.frames.length - 1]).toEqual({ type: 'bye', reason: 'the session was deleted' });
  });
});
