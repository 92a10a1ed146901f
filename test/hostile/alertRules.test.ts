// Issue 26 #10 and #11: an alert rule the relay could not save is answered with an error
// and kept nowhere (not listed, never fires); and the token given as ?token= never reaches
// the relay's log, not even in the line about that failed request.
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { AlertRule } from '../../src/protocol/relay.ts';
import { postNdjson, relaysPerTest, ROOT, tempDir } from '../relay/helpers.ts';

const relay = relaysPerTest();
const TOKEN = 'sekrit-token-26';

it('a rule that could not be saved is an error, not listed, never fires; the ?token= is not logged', async () => {
  const dataDir = tempDir();
  // rules.json is a folder with something in it: the rename that saves the rules fails
  const blocker = path.join(dataDir, 'alerts', 'rules.json');
  fs.mkdirSync(blocker, { recursive: true });
  fs.writeFileSync(path.join(blocker, 'keep'), '');
  const r = await relay({ dataDir, token: TOKEN, analysisThreads: 0 });
  const auth = { authorization: `Bearer ${TOKEN}` };

  const res = await fetch(`${r.url}api/alerts/rules?token=${TOKEN}`, { method: 'POST', body: JSON.stringify({ signal: 'relevance_collapse' }) });
  const body = (await res.json()) as { error?: string };
  expect(res.status).toBe(500);
  expect(body.error).toMatch(/could not be saved, so it was not added/);
  expect(((await (await fetch(`${r.url}api/alerts/rules`, { headers: auth })).json()) as { rules: AlertRule[] }).rules).toEqual([]);
  expect(r.logs.join('\n')).toMatch(/error serving POST \/api\/alerts\/rules: /);
  expect(r.logs.join('\n')).not.toContain(TOKEN);

  // once the rules can be saved, a rule watching the same thing fires: the failed one never does
  fs.rmSync(blocker, { recursive: true });
  const ok = await fetch(`${r.url}api/alerts/rules`, { method: 'POST', headers: auth, body: JSON.stringify({ signal: 'relevance_collapse' }) });
  expect(ok.status).toBe(201);
  const saved = ((await ok.json()) as { rule: AlertRule }).rule;
  const lines = fs.readFileSync(path.join(ROOT, 'public/samples/collapse.jsonl'), 'utf8');
  expect((await postNdjson(r.url, lines, auth)).status).toBe(200);
  const end = Date.now() + 15_000;
  while (r.alerts!.recent().length === 0 && Date.now() < end) await new Promise((res) => setTimeout(res, 50));
  const fired = r.alerts!.recent(500);
  expect(fired.length).toBeGreaterThan(0);
  expect(new Set(fired.map((f) => f.rule_id))).toEqual(new Set([saved.id]));
}, 30_000);
