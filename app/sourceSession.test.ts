// A source's wiring (app/sourceSession.ts) with its Worker replaced by a fake: the Worker and
// the store subscriptions start on first use, and dispose() lets go of every one of them.
import { describe, expect, it } from 'vitest';
import { create } from 'zustand';
import { AnalysisClient, type WorkerEvent, type WorkerLike } from '../src/worker/client.ts';
import { SourceSession, type SourceEvent } from './sourceSession.ts';

class FakeWorker implements WorkerLike {
  onmessage: ((ev: MessageEvent<WorkerEvent>) => void) | null = null;
  onerror: ((ev: ErrorEvent) => void) | null = null;
  terminated = 0;
  posted: unknown[] = [];
  postMessage(message: unknown): void {
    this.posted.push(message);
  }
  terminate(): void {
    this.terminated++;
  }
  emit(event: WorkerEvent): void {
    this.onmessage?.({ data: event } as MessageEvent<WorkerEvent>);
  }
}

function setup() {
  const fake = new FakeWorker();
  const store = create<{ n: number }>(() => ({ n: 0 }));
  const events: SourceEvent[] = [];
  const changes: number[] = [];
  const session = new SourceSession(
    { onEvent: (e) => events.push(e), subscribe: () => [store.subscribe((s) => changes.push(s.n))] },
    () => new AnalysisClient(() => fake),
  );
  return { fake, store, events, changes, session };
}

const summary = (job: number): WorkerEvent => ({
  type: 'summary',
  job,
  summary: { sessions: [], inputErrorCount: 0, inputErrors: [], linesRead: 0, format: 'jsonl', gzip: false, scorer: 'auto' },
});

describe('SourceSession', () => {
  it('starts its Worker and its subscriptions on first use, not before', () => {
    const { fake, store, events, changes, session } = setup();
    store.setState({ n: 1 });
    expect(changes).toEqual([]);
    expect(session.started).toBe(false);
    const job = session.client.open({ kind: 'url', url: '/x.jsonl', name: 'x.jsonl' }, {});
    fake.emit(summary(job));
    store.setState({ n: 2 });
    expect(events.map((e) => e.type)).toEqual(['summary']);
    expect(changes).toEqual([2]);
  });

  it('dispose() terminates the Worker and releases its listener and every store subscription', async () => {
    const { fake, store, events, changes, session } = setup();
    const job = session.client.open({ kind: 'url', url: '/x.jsonl', name: 'x.jsonl' }, {});
    let pulls = 0;
    const pull = session.pull(
      async () => {
        pulls++;
      },
      () => undefined,
    );
    pull();
    await Promise.resolve();
    expect(pulls).toBe(1);

    session.dispose();
    expect(fake.terminated).toBe(1);
    fake.emit(summary(job));
    store.setState({ n: 3 });
    pull();
    await Promise.resolve();
    expect(events).toEqual([]);
    expect(changes).toEqual([]);
    expect(pulls).toBe(1);
    expect(session.started).toBe(false);
    expect(() => session.client).toThrow(/disposed/);
    session.dispose(); // twice is harmless
    expect(fake.terminated).toBe(1);
  });

  it('two sessions (a source and its comparison partner) are independent', () => {
    const a = setup();
    const b = setup();
    a.session.client.open({ kind: 'url', url: '/a.jsonl', name: 'a.jsonl' }, {});
    const jb = b.session.client.open({ kind: 'url', url: '/b.jsonl', name: 'b.jsonl' }, {});
    b.session.dispose();
    a.fake.emit(summary(1));
    b.fake.emit(summary(jb));
    expect(a.events).toHaveLength(1);
    expect(b.events).toHaveLength(0);
    expect(a.fake.terminated).toBe(0);
  });
});
