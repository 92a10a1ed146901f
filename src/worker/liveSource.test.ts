// The live subscription against a scripted socket: backlog then live, `since` on every
// reconnect, no message applied twice, backoff growing and resetting once caught up.
import { describe, expect, it } from 'vitest';
import { LiveSubscription, type SocketLike } from './liveSource.ts';
import type { ConnectionState } from './protocol.ts';

class FakeSocket implements SocketLike {
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code: number; reason: string }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  closed = false;
  constructor(readonly url: string) {}
  send(frame: object): void {
    this.onmessage?.({ data: JSON.stringify(frame) });
  }
  drop(code = 1006, reason = ''): void {
    this.onclose?.({ code, reason });
  }
  close(): void {
    this.closed = true;
  }
}

function setup() {
  const sockets: FakeSocket[] = [];
  const timers: { fn: () => void; ms: number }[] = [];
  const got: number[] = [];
  const states: ConnectionState[] = [];
  const sub = new LiveSubscription({
    url: 'ws://relay/api/sessions/s/subscribe',
    onMessage: (seq) => got.push(seq),
    onBadFrame: () => undefined,
    onState: (s) => states.push(s),
    createSocket: (url) => {
      const s = new FakeSocket(url);
      sockets.push(s);
      return s;
    },
    setTimer: (fn, ms) => timers.push({ fn, ms }),
    clearTimer: () => undefined,
    random: () => 0.5,
  });
  return { sub, sockets, timers, got, states };
}

const msg = (seq: number): object => ({ type: 'msg', seq, data: { type: 'snapshot', session_id: 's', turn: seq, spans: [] } });

describe('LiveSubscription', () => {
  it('takes the backlog, reports caught up, and resumes after a drop with since = last seq', () => {
    const { sub, sockets, timers, got, states } = setup();
    sub.start();
    expect(sockets[0]!.url).toBe('ws://relay/api/sessions/s/subscribe?since=0');
    sockets[0]!.send({ type: 'hello', session_id: 's', since: 0, last_seq: 3 });
    expect(states.at(-1)?.state).toBe('catching-up');
    for (const seq of [1, 2, 3]) sockets[0]!.send(msg(seq));
    sockets[0]!.send({ type: 'caught_up', seq: 3 });
    expect(states.at(-1)).toEqual({ state: 'live', lastSeq: 3 });
    sockets[0]!.send(msg(4));
    sockets[0]!.drop();
    expect(states.at(-1)?.state).toBe('reconnecting');
    timers.shift()!.fn();
    expect(sockets[1]!.url).toBe('ws://relay/api/sessions/s/subscribe?since=4');
    // a relay that resends an old message does not get it applied twice
    sockets[1]!.send({ type: 'hello', session_id: 's', since: 4, last_seq: 5 });
    sockets[1]!.send(msg(4));
    sockets[1]!.send(msg(5));
    expect(got).toEqual([1, 2, 3, 4, 5]);
  });

  it('backs off exponentially while the relay is down, and from the bottom once healthy again', () => {
    const { sub, sockets, timers } = setup();
    sub.start();
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      sockets.at(-1)!.drop();
      const t = timers.shift()!;
      delays.push(t.ms);
      t.fn();
    }
    expect(delays).toEqual([250, 500, 1000, 2000, 4000, 8000]);
    sockets.at(-1)!.send({ type: 'hello', session_id: 's', since: 0, last_seq: 0 });
    sockets.at(-1)!.drop();
    expect(timers.shift()!.ms).toBe(250);
  });

  it('stops with a plain reason when since is past the relay log (4009) or the session is gone (4010)', () => {
    for (const [code, words] of [
      [4009, /no longer has this session up to seq 2/],
      [4010, /deleted/],
    ] as const) {
      const { sub, sockets, timers, got, states } = setup();
      sub.start();
      sockets[0]!.send({ type: 'hello', session_id: 's', since: 0, last_seq: 2 });
      for (const seq of [1, 2]) sockets[0]!.send(msg(seq));
      sockets[0]!.drop(code);
      expect(states.at(-1)).toMatchObject({ state: 'closed' });
      expect((states.at(-1) as { reason: string }).reason).toMatch(words);
      expect(timers).toHaveLength(0); // no retry that could never succeed
      expect(got).toEqual([1, 2]);
    }
  });

  it('says why the relay closed it (bye, slow subscriber) and stops for good on stop()', () => {
    const { sub, sockets, timers, states } = setup();
    sub.start();
    sockets[0]!.send({ type: 'bye', reason: 'shutting down' });
    sockets[0]!.drop(1001);
    expect(states.at(-1)).toMatchObject({ state: 'reconnecting', reason: 'the relay said goodbye: shutting down' });
    timers.shift()!.fn();
    sockets[1]!.drop(4008);
    expect(states.at(-1)).toMatchObject({ reason: 'the relay closed a slow subscriber' });
    sub.stop();
    expect(states.at(-1)).toEqual({ state: 'closed', reason: 'closed' });
    expect(sockets[1]!.closed || sockets.length === 2).toBe(true);
  });
});
