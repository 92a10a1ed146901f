// Issue 8 item 3, the Worker's part: an error inside the analysis must reach the screen.
// A live session whose analysis threw must say so in its connection state, never stay
// 'live'; a file load that threw ends as failed, naming the line.
// eslint-disable-next-line no-restricted-imports -- tests run on Node; the Worker is handed its hash
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Controller } from './controller.ts';
import type { SocketLike } from './liveSource.ts';
import type { ConnectionState, WorkerEvent } from './protocol.ts';

// the engine hashes span texts through the Worker's sha256: one that throws stands for any
// error inside the analysis (an allocation failure, a bug)
const sha256 = (t: string): string => {
  if (t === 'boom') throw new RangeError('Array buffer allocation failed');
  return createHash('sha256').update(t, 'utf8').digest('hex');
};

const snapshot = (turn: number, text = 'fine'): object => ({
  type: 'snapshot',
  session_id: 'run',
  turn,
  spans: [{ span_id: 'a', text, score: 0.5, text_sha256: 'ab'.repeat(32) }],
});

function liveHarness() {
  const events: WorkerEvent[] = [];
  let socket: (SocketLike & { closed: boolean }) | null = null;
  const c = new Controller({
    sha256,
    post: (e) => events.push(e),
    summaryEveryMs: 5,
    createSocket: () => {
      socket = { onopen: null, onmessage: null, onclose: null, onerror: null, closed: false, close: () => void (socket!.closed = true) };
      return socket;
    },
  });
  c.handle({ type: 'open', job: 1, source: { kind: 'live', wsUrl: 'ws://relay/api/sessions/run/subscribe', sessionId: 'run' }, userThresholds: {} });
  const frame = (o: object): void => socket!.onmessage?.({ data: JSON.stringify(o) });
  const states = (): ConnectionState[] => events.flatMap((e) => (e.type === 'connection' ? [e.connection] : []));
  frame({ type: 'hello', session_id: 'run', since: 0, last_seq: 2 });
  frame({ type: 'msg', seq: 1, data: snapshot(1) });
  frame({ type: 'msg', seq: 2, data: snapshot(2) });
  frame({ type: 'caught_up', seq: 2 });
  expect(states().at(-1)).toMatchObject({ state: 'live' });
  return { c, frame, states, socket: () => socket! };
}

describe('Worker errors reach the connection status', () => {
  it('a live session whose analysis throws ends failed with the reason, and stays failed', () => {
    const h = liveHarness();
    expect(() => h.frame({ type: 'msg', seq: 3, data: snapshot(3, 'boom') })).not.toThrow();
    const last = h.states().at(-1)!;
    expect(last).toEqual({ state: 'failed', reason: 'the analysis stopped: at message 3: Array buffer allocation failed' });
    expect(h.socket().closed).toBe(true);
    // nothing the dead subscription might still deliver turns it back to 'live'
    h.frame({ type: 'caught_up', seq: 3 });
    expect(h.states().at(-1)).toEqual(last);
  });

  it('an error caught only by the Worker entry (Controller.fail) stops a live session the same way', () => {
    const h = liveHarness();
    h.c.fail(new TypeError('x is undefined'));
    expect(h.states().at(-1)).toEqual({ state: 'failed', reason: 'the analysis stopped: x is undefined' });
    expect(h.socket().closed).toBe(true);
  });

  it('a file whose analysis throws ends as failed, naming the line, with what came before', async () => {
    const events: WorkerEvent[] = [];
    const c = new Controller({ sha256, post: (e) => events.push(e), summaryEveryMs: 5 });
    const text = [snapshot(1), snapshot(2), snapshot(3, 'boom'), snapshot(4)].map((m) => JSON.stringify(m)).join('\n');
    c.handle({ type: 'open', job: 1, source: { kind: 'file', file: new Blob([text]) as File, name: 'f' }, userThresholds: {} });
    let done: Extract<WorkerEvent, { type: 'done' }> | undefined;
    for (let i = 0; i < 400 && done === undefined; i++) {
      await new Promise((r) => setTimeout(r, 5));
      done = events.find((e): e is Extract<WorkerEvent, { type: 'done' }> => e.type === 'done');
    }
    expect(done?.state).toBe('failed');
    expect(done?.message).toBe('the analysis stopped at line 3: Array buffer allocation failed; everything before that point was analysed');
    expect(done?.summary.sessions[0]?.turns).toBe(2);
  });
});
