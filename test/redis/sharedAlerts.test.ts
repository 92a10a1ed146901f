// The claim that makes an alert fire once across relays (src/server/alerts/sharedAlerts.ts):
// per rule and session, Redis keeps the run's last state, fired or cleared at a turn, and
// moves it only forward, so relays that evaluate the same snapshots, some later than others
// or having learnt of the rule later, grant each run one firing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SharedAlerts } from '../../src/server/alerts/sharedAlerts.ts';
import type { Relay } from '../../src/server/relay.ts';
import { testRelay } from '../relay/helpers.ts';
import { startRedis, type TestRedis } from './redisServer.ts';

let redis: TestRedis;
let relay: Relay;
let shared: SharedAlerts;
beforeAll(async () => {
  redis = await startRedis();
  relay = await testRelay({ store: redis.url, analysis: false });
  shared = new SharedAlerts(relay.redis!);
});
afterAll(async () => {
  await relay.close();
  await redis.stop();
});

describe('the firing claim', () => {
  it('grants one firing per run, whoever asks and in whatever order', async () => {
    // relay A fires the run that starts at turn 5; B, a few snapshots behind (or told of the rule later), asks at 7
    expect(await shared.claimFiring('r1', 's', 5)).toBe(true);
    expect(await shared.claimFiring('r1', 's', 5)).toBe(false);
    expect(await shared.claimFiring('r1', 's', 7)).toBe(false);
    // the run ends at 9 (both relays say so); B, late, says it again
    await shared.clearRun('r1', 's', 9);
    await shared.clearRun('r1', 's', 9);
    // a firing of the old run asked after its end is still refused
    expect(await shared.claimFiring('r1', 's', 8)).toBe(false);
    // the next run fires once
    expect(await shared.claimFiring('r1', 's', 12)).toBe(true);
    expect(await shared.claimFiring('r1', 's', 13)).toBe(false);
    // a late clear of the first run does not reopen the second
    await shared.clearRun('r1', 's', 9);
    expect(await shared.claimFiring('r1', 's', 14)).toBe(false);
    // other rules and sessions are their own
    expect(await shared.claimFiring('r2', 's', 5)).toBe(true);
    expect(await shared.claimFiring('r1', 'other', 5)).toBe(true);
  });

  it('grants each delivery attempt to one relay', async () => {
    expect(await shared.claimAttempt('abc', 1)).toBe(true);
    expect(await shared.claimAttempt('abc', 1)).toBe(false);
    expect(await shared.claimAttempt('abc', 2)).toBe(true);
  });
});
