// Issue 26, risky: the data directory moved (mv) while the relay runs: its open logs stay
// linked under the new name, so up to a second of acknowledged messages landed in the
// moved files (the directory is checked once a second). Each append now checks the path.
import fs from 'node:fs';
import { expect, it } from 'vitest';
import { generatedSession, postNdjson, relaysPerTest, snapshot } from '../relay/helpers.ts';

const relay = relaysPerTest();

it('a message after the data directory was moved is not acknowledged; health says why', async () => {
  // the once-a-second check is pushed out of the way: the append itself must notice
  const r = await relay({ analysis: false, dataCheckMs: 600_000 });
  expect((await postNdjson(r.url, generatedSession('moved', 2).join('\n') + '\n')).status).toBe(200);
  fs.renameSync(r.dataDir, `${r.dataDir}-moved`);
  const after = await postNdjson(r.url, JSON.stringify(snapshot('moved', 3, 20)) + '\n');
  expect(after.json.accepted).toEqual([]);
  expect(after.json.errors[0]!.message).toMatch(/was moved or replaced while the relay ran; nothing more is acknowledged/);
  const health = await fetch(`${r.url}api/health`);
  expect(health.status).toBe(503);
  // nothing of the refused message is left in the moved log
  expect(fs.readFileSync(`${r.dataDir}-moved/sessions/moved.jsonl`, 'utf8').trim().split('\n')).toHaveLength(3);
  fs.renameSync(`${r.dataDir}-moved`, r.dataDir);
});
