import { describe, expect, it } from 'vitest';
import { coalesced } from './pulls.ts';
import { StaleReply } from '../src/worker/client.ts';

/** A run whose end the test decides: each call records the state it read and waits. */
function gatedRun(read: () => number) {
  const seen: number[] = [];
  const gates: (() => void)[] = [];
  const run = (): Promise<void> => {
    seen.push(read());
    return new Promise<void>((resolve) => gates.push(resolve));
  };
  return { run, seen, release: () => gates.shift()?.() };
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe('coalesced pulls', () => {
  it('calls in the same task are one run, which reads the state the last of them left', async () => {
    let selected = 1;
    const g = gatedRun(() => selected);
    const pull = coalesced(g.run, () => undefined);
    // a finished load: the default turn is selected (its subscription pulls), then every panel refreshes
    pull();
    selected = 7;
    pull();
    pull();
    await settle();
    expect(g.seen).toEqual([7]);
    g.release();
    await settle();
    expect(g.seen).toEqual([7]);
  });

  it('a call while a run is in flight queues one more run after it (not one per call)', async () => {
    let selected = 1;
    const g = gatedRun(() => selected);
    const pull = coalesced(g.run, () => undefined);
    pull();
    await settle();
    expect(g.seen).toEqual([1]);
    selected = 2;
    pull();
    selected = 3;
    pull();
    await settle();
    expect(g.seen).toEqual([1]); // still one at a time
    g.release();
    await settle();
    expect(g.seen).toEqual([1, 3]);
    g.release();
    await settle();
    pull(); // idle again: a new call runs
    await settle();
    expect(g.seen).toEqual([1, 3, 3]);
  });

  it('a run that throws at once is reported like a rejection, and the next call runs', async () => {
    const errors: unknown[] = [];
    let runs = 0;
    const boom = new Error('no client');
    const pull = coalesced(
      (): Promise<void> => {
        runs++;
        throw boom;
      },
      (e) => errors.push(e),
    );
    pull();
    await settle();
    pull();
    await settle();
    expect(runs).toBe(2);
    expect(errors).toEqual([boom, boom]);
  });

  it('a failed run is reported and the next call runs; a stale reply is dropped silently', async () => {
    const errors: unknown[] = [];
    let fail: Error = new Error('the Worker stopped');
    let runs = 0;
    const pull = coalesced(
      async () => {
        runs++;
        throw fail;
      },
      (e) => errors.push(e),
    );
    pull();
    await settle();
    expect(errors).toEqual([fail]);
    fail = new StaleReply();
    pull();
    await settle();
    expect(runs).toBe(2);
    expect(errors).toHaveLength(1);
  });
});
