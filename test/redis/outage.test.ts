// Issue 26, risky: with Redis down mid-stream, /api/health stayed 200 through the outage.
// It answers 503 naming Redis while the store is unreachable, and 200 again once it is back.
import { afterEach, expect, it } from 'vitest';
import { generatedSession, postNdjson, testRelay } from '../relay/helpers.ts';
import { startRedis, type TestRedis } from './redisServer.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function healthUntil(url: string, status: number, timeoutMs: number): Promise<{ status: number; problem?: string }> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${url}api/health`);
    const body = (await res.json()) as { problem?: string };
    if (res.status === status || Date.now() > end) return { status: res.status, ...body };
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('health is 503 while Redis is down and 200 once it is back', async () => {
  let redis: TestRedis = await startRedis();
  cleanup.push(() => redis.stop());
  const port = Number(new URL(redis.url).port);
  const relay = await testRelay({ store: redis.url, analysis: false });
  cleanup.push(() => relay.close());
  expect((await postNdjson(relay.url, generatedSession('r', 2).join('\n') + '\n')).status).toBe(200);
  expect((await healthUntil(relay.url, 200, 1000)).status).toBe(200);

  await redis.stop();
  const down = await healthUntil(relay.url, 503, 10_000);
  expect(down.status).toBe(503);
  expect(down.problem).toMatch(/^the Redis store is unreachable \(\w+\); messages are not acknowledged until it is back$/);

  redis = await startRedis([], port);
  expect((await healthUntil(relay.url, 200, 20_000)).status).toBe(200);
}, 60_000);
