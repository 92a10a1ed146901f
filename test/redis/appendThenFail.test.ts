// Issue 26, risky: with Redis failing mid-stream, one message was answered "could not store"
// although Redis had stored it: the append succeeded and a command after it (adding the
// session to the session list) failed. A message that is stored is acknowledged.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { key } from '../../src/server/redisStore.ts';
import { generatedSession, postNdjson, testRelay } from '../relay/helpers.ts';
import { redisServerPath, startRedis } from './redisServer.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

it('a message whose append succeeded is acknowledged even when the session list cannot be updated', async () => {
  const redis = await startRedis();
  cleanup.push(() => redis.stop());
  // a relay whose Redis user may not ZADD: the command after the append (adding the session
  // to the session list) fails, as it would if Redis went away right after the append
  const cli = path.join(path.dirname(redisServerPath()!), 'redis-cli');
  const port = new URL(redis.url).port;
  const acl = spawnSync(cli, ['-p', port, 'ACL', 'SETUSER', 'relay', 'on', '>pw', '~*', '&*', '+@all', '-zadd'], { encoding: 'utf8' });
  expect(acl.stdout.trim()).toBe('OK');
  const relay = await testRelay({ store: `redis://relay:pw@127.0.0.1:${port}`, analysis: false });
  cleanup.push(() => relay.close());
  const res = await postNdjson(relay.url, generatedSession('after-fail', 1).join('\n') + '\n');
  expect(res.json.errors, JSON.stringify(res.json.errors)).toEqual([]);
  expect(res.json.accepted.map((a) => a.seq)).toEqual([1, 2]);
  const xlen = spawnSync(cli, ['-p', port, 'XLEN', key('after-fail', 'log')], { encoding: 'utf8' });
  expect(xlen.stdout.trim()).toBe('2');
  expect(relay.logs.join('\n')).toMatch(/could not add session "after-fail" to the session list/);
}, 30_000);
