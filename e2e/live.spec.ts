// Live sessions through the real relay: `replay` streams a saved transcript, the dashboard
// follows it over its WebSocket, and what it shows must equal `check --json` on the file,
// signal by signal and turn by turn, also when the relay dies and comes back mid-stream.
import { expect, test } from './helpers/test.ts';
import { fixture } from './helpers/app.ts';
import { expectMatchesCheck, followSession } from './helpers/live.ts';
import { freePort, replay, startRelay } from './helpers/relay.ts';

test('a live session streamed by replay shows the findings of check --json, turn by turn', async ({ page, baseURL }) => {
  const file = fixture('all-faults.jsonl');
  const sessionId = `e2e-live-${Date.now()}`;
  await page.goto('/');
  // about 25 turns a second: the dashboard subscribes while the session is still streaming
  const streaming = replay(file, baseURL!, { session: sessionId, speed: '25' });
  await followSession(page, sessionId);
  await expect(page.getByTestId('follow-toggle')).toHaveAttribute('aria-pressed', 'true');
  expect(await streaming.done).toBe(0);
  await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'live');
  await expectMatchesCheck(page, file);
  // following: the cursor is on the newest turn
  await expect(page.getByTestId('verdict')).toHaveAttribute('data-turn', '150');
});

test('a reconnect mid-stream loses nothing', async ({ page, allowPageErrors }) => {
  test.slow(); // two relays started, a crash, a full replay and the whole findings list read
  // the page sees the relay go away: its session-list poll is refused (or, in flight when the
  // relay is killed, reset or left unanswered), and so may be the Worker's reconnect attempts.
  // Those errors are this test's subject; no other is allowed.
  allowPageErrors(
    /^Failed to load resource: net::ERR_(CONNECTION_REFUSED|CONNECTION_RESET|EMPTY_RESPONSE) \(http:\/\/127\.0\.0\.1:\d+\/api\/sessions[:)?]/,
    /^WebSocket connection to 'ws:\/\/127\.0\.0\.1:\d+\/api\/sessions\/[^']+\/subscribe[^']*' failed/,
  );
  const file = fixture('all-faults.jsonl');
  const sessionId = `e2e-reconnect-${Date.now()}`;
  const port = await freePort();
  let relay = await startRelay({ port });
  try {
    await page.goto(`${relay.url}/`);
    const first = replay(file, relay.url, { session: sessionId, speed: '5' });
    await followSession(page, sessionId);
    await expect.poll(async () => Number(await page.getByTestId('session-turns').getAttribute('data-turns')), { timeout: 30_000 }).toBeGreaterThanOrEqual(25);
    // the relay crashes mid-stream
    await relay.kill();
    first.kill('SIGKILL');
    await first.done;
    await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', /reconnecting|connecting/);
    const before = Number(await page.getByTestId('session-turns').getAttribute('data-turns'));
    expect(before).toBeLessThan(150);
    // it comes back on the same port with its logs; the harness resends everything
    relay = await startRelay({ port, dataDir: relay.dataDir });
    const second = replay(file, relay.url, { session: sessionId, speed: 'max' });
    expect(await second.done).toBe(0);
    await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'live', { timeout: 30_000 });
    await expectMatchesCheck(page, file);
    // nothing was seen twice: no input errors (a duplicate turn would be one)
    await expect(page.getByRole('button', { name: /input error/ })).toHaveCount(0);
  } finally {
    await relay.stop();
  }
});

test('pause freezes the view while the session goes on; following again catches up', async ({ page, baseURL }) => {
  const file = fixture('all-faults.jsonl');
  const sessionId = `e2e-pause-${Date.now()}`;
  await page.goto('/');
  // 150 turns at about 5 a second: most of the session arrives after the pause, even on a busy machine
  const streaming = replay(file, baseURL!, { session: sessionId, speed: '5' });
  await followSession(page, sessionId);
  await expect.poll(async () => Number(await page.getByTestId('session-turns').getAttribute('data-turns'))).toBeGreaterThanOrEqual(5);
  await page.getByTestId('follow-toggle').click();
  await expect(page.getByTestId('follow-toggle')).toHaveAttribute('aria-pressed', 'false');
  const frozen = await page.getByTestId('session-turns').getAttribute('data-turns');
  expect(Number(frozen)).toBeLessThan(150);
  expect(await streaming.done).toBe(0);
  await expect(page.getByTestId('follow-toggle')).toContainText('new');
  expect(await page.getByTestId('session-turns').getAttribute('data-turns')).toBe(frozen);
  await page.keyboard.press('f');
  await expectMatchesCheck(page, file);
});
