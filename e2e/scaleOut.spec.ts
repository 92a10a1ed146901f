// Scale-out on Redis Streams (docs/scale-out.md) in a real browser: two relays share one
// redis-server; a harness streams into relay A while the dashboard follows the session on
// relay B. A is SIGKILLed mid-stream and the harness resends the whole file to B: the page
// must end up equal to `check --json` of the file, with nothing seen twice or missed.
import { expect, test } from './helpers/test.ts';
import { fixture } from './helpers/app.ts';
import { expectMatchesCheck, followSession } from './helpers/live.ts';
import { startRedis } from './helpers/redis.ts';
import { replay, startRelay } from './helpers/relay.ts';

test('a dashboard on relay B follows a session ingested on relay A, through A crashing and ingest resuming on B', async ({ page }) => {
  test.slow(); // a redis-server, two relays, a crash, a full replay and the whole findings list read
  const redis = await startRedis();
  const a = await startRelay({ store: redis.url });
  const b = await startRelay({ store: redis.url });
  try {
    const file = fixture('all-faults.jsonl');
    const sessionId = `e2e-redis-${Date.now()}`;
    await page.goto(`${b.url}/`);
    // about 5 turns a second into A: the page on B subscribes while the session is streaming
    const intoA = replay(file, a.url, { session: sessionId, speed: '5' });
    await followSession(page, sessionId);
    await expect(page.getByTestId('follow-toggle')).toHaveAttribute('aria-pressed', 'true');
    // B's page sees A's turns as they are appended to the stream
    await expect.poll(async () => Number(await page.getByTestId('session-turns').getAttribute('data-turns')), { timeout: 30_000 }).toBeGreaterThanOrEqual(20);
    await a.kill();
    intoA.kill('SIGKILL');
    await intoA.done;
    const beforeResume = Number(await page.getByTestId('session-turns').getAttribute('data-turns'));
    expect(beforeResume).toBeLessThan(150);
    // B never went away: its page stays connected
    await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'live');
    // the harness resumes on B and resends everything; what A acknowledged is answered as a retry
    const intoB = replay(file, b.url, { session: sessionId, speed: 'max' });
    expect(await intoB.done).toBe(0);
    await expectMatchesCheck(page, file);
    // nothing was seen twice: no input errors (a duplicate turn would be one)
    await expect(page.getByRole('button', { name: /input error/ })).toHaveCount(0);
  } finally {
    // leave the page before its relay goes: a poll of the stopped relay would be a console error
    await page.goto('about:blank');
    await Promise.all([a.stop(), b.stop()]);
    await redis.stop();
  }
});
