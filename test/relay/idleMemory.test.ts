// Issue 39: idle sessions give their memory back. A parked session's engine is dropped from
// its analysis thread; the thread then runs a full collection itself (collectAfterDrop.ts),
// so the snapshots those engines held leave the thread's heap without anyone forcing a gc.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CollectAfterDrop } from '../../src/server/analysis/collectAfterDrop.ts';
import { generatedSession, postNdjson, relaysPerTest } from './helpers.ts';

const relay = relaysPerTest();
const MiB = 1024 * 1024;

async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('CollectAfterDrop', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('collects once the engines dropped held enough, once for drops that come together', () => {
    let collected = 0;
    const c = new CollectAfterDrop(() => collected++, 10, 100);
    c.analysed('a', 4);
    c.analysed('b', 4);
    c.analysed('c', 4);
    c.dropped('a');
    c.dropped('b');
    vi.advanceTimersByTime(1000);
    expect(collected).toBe(0); // 8 bytes dropped: under the threshold
    c.dropped('c');
    c.dropped('c'); // dropped twice (parked, then deleted): counted once
    c.dropped('never-analysed');
    expect(c.pendingBytes).toBe(12);
    vi.advanceTimersByTime(99);
    expect(collected).toBe(0);
    vi.advanceTimersByTime(1);
    expect(collected).toBe(1);
    expect(c.collections).toBe(1);
    expect(c.pendingBytes).toBe(0);
  });

  it('counts what an engine holds now: its last line, not the sum of them', () => {
    let collected = 0;
    const c = new CollectAfterDrop(() => collected++, 10, 0);
    for (let i = 0; i < 5; i++) c.analysed('a', 4);
    c.dropped('a');
    vi.advanceTimersByTime(10);
    expect(collected).toBe(0);
  });
});

it('an analysis thread collects after parking: the parked engines leave its heap with no gc forced', async () => {
  const r = await relay({ analysisThreads: 1, analysisIdleMs: 1_500 });
  const threads = r.analysis!.threads!;
  await threads.ready();
  const before = await threads.memoryOf(0);
  expect(before.collections).toBe(0);
  // 4 sessions, one snapshot of 20 spans × 100,000 characters (~2 MB) each
  for (let i = 0; i < 4; i++) expect((await postNdjson(r.url, generatedSession(`idle-${i}`, 1, 20, 100_000).join('\n') + '\n')).status).toBe(200);
  const held = await threads.memoryOf(0);
  expect(held.engines).toBe(4);
  expect(held.heap - before.heap).toBeGreaterThan(4 * MiB);
  await until(() => threads.parkedCount === 4, 'the 4 sessions parked');
  // the thread's own collection follows its drops within its delay (these queries force none)
  await until(async () => (await threads.memoryOf(0, false)).collections >= 1, 'a collection after parking', 5_000);
  // what the thread's collection left, a generous margin
  const parked = await threads.memoryOf(0, false);
  expect(parked.engines).toBe(0);
  expect(parked.heap - before.heap, `held ${((held.heap - before.heap) / MiB).toFixed(1)} MiB`).toBeLessThan((held.heap - before.heap) / 2);
}, 30_000);
