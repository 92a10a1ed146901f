// The one door from the app to the Worker: replies and events for an old job are dropped.
import { describe, expect, it } from 'vitest';
import { AnalysisClient, StaleReply, type WorkerLike } from './client.ts';
import type { Request, WorkerEvent } from './protocol.ts';

class FakeWorker implements WorkerLike {
  sent: Request[] = [];
  onmessage: ((ev: MessageEvent<WorkerEvent>) => void) | null = null;
  onerror: ((ev: ErrorEvent) => void) | null = null;
  postMessage(m: Request): void {
    this.sent.push(m);
  }
  emit(e: WorkerEvent): void {
    this.onmessage?.({ data: e } as MessageEvent<WorkerEvent>);
  }
  terminate(): void {}
}

describe('AnalysisClient', () => {
  it('resolves a reply for the current job and drops events of a replaced job', async () => {
    const w = new FakeWorker();
    const c = new AnalysisClient(() => w);
    const events: string[] = [];
    c.subscribe((e) => events.push(`${e.type}@${e.job}`));
    const job1 = c.open({ kind: 'url', url: '/a', name: 'a' }, {});
    const p1 = c.query('turn', { sessionId: 's', turn: 1, graph: false });
    const job2 = c.open({ kind: 'url', url: '/b', name: 'b' }, {});
    await expect(p1).rejects.toBeInstanceOf(StaleReply);
    w.emit({ type: 'progress', job: job1, progress: { bytesRead: 1, bytesTotal: 2, elapsedMs: 1 } });
    w.emit({ type: 'progress', job: job2, progress: { bytesRead: 1, bytesTotal: 2, elapsedMs: 1 } });
    expect(events).toEqual([`progress@${job2}`]);
    const p2 = c.query('turn', { sessionId: 's', turn: 1, graph: false });
    const req = (w.sent.at(-1) as Extract<Request, { type: 'query' }>).req;
    w.emit({ type: 'reply', job: job2, req, ok: true, body: null });
    await expect(p2).resolves.toBeNull();
  });

  it('reports an error the Worker could not catch as the failure of the current job', () => {
    const w = new FakeWorker();
    const c = new AnalysisClient(() => w);
    const events: WorkerEvent[] = [];
    c.subscribe((e) => events.push(e));
    const job = c.open({ kind: 'live', wsUrl: 'ws://relay/x', sessionId: 'x' }, {});
    w.onerror!({ message: 'Uncaught RangeError: Array buffer allocation failed', preventDefault: () => undefined } as ErrorEvent);
    expect(events).toEqual([{ type: 'failed', job, reason: 'the analysis Worker failed: Uncaught RangeError: Array buffer allocation failed' }]);
  });

  it('turns a Worker error reply into a rejected promise with its sentence', async () => {
    const w = new FakeWorker();
    const c = new AnalysisClient(() => w);
    const job = c.open({ kind: 'url', url: '/a', name: 'a' }, {});
    const p = c.query('findings', { sessionId: 'nope' });
    const req = (w.sent.at(-1) as Extract<Request, { type: 'query' }>).req;
    w.emit({ type: 'reply', job, req, ok: false, error: 'no session "nope" in this source' });
    await expect(p).rejects.toThrow('no session');
  });
});
