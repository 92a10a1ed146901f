// Issue 26 #4: huge session titles (and ids in error messages) once made GET /api/overview
// answer 500 and the webhooks carry 480 MiB. Titles are capped where they enter (the
// gate refuses a header over 1,024 characters) and where they are repeated (lists, the
// overview, alerts: 200 characters), which also covers logs stored before the limit.
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { Overview, RelaySessionList } from '../../src/protocol/relay.ts';
import { MAX_TITLE_CHARS } from '../../src/server/sessionGate.ts';
import { postNdjson, relaysPerTest, ROOT, tempDir } from '../relay/helpers.ts';

const relay = relaysPerTest();

it('a header with a title over the limit is refused, naming it; the overview answers', async () => {
  const r = await relay({ analysisThreads: 0 });
  const big = 'T'.repeat(256 * 1024);
  const headers = Array.from({ length: 30 }, (_, i) => JSON.stringify({ type: 'session', session_id: `huge-${i}`, title: big }));
  const res = await postNdjson(r.url, headers.join('\n') + '\n');
  expect(res.status).toBe(400);
  expect(res.json.errors).toHaveLength(30);
  expect(res.json.errors[0]!.message).toBe(`the session's title is ${big.length} characters; this relay accepts at most ${MAX_TITLE_CHARS}`);
  const ok = await postNdjson(r.url, JSON.stringify({ type: 'session', session_id: 'fits', title: 'x'.repeat(MAX_TITLE_CHARS) }) + '\n');
  expect(ok.status).toBe(200);
  const overview = await fetch(`${r.url}api/overview`);
  expect(overview.status).toBe(200);
  expect(((await overview.json()) as Overview).sessions.map((s) => s.session_id)).toEqual(['fits']);
}, 30_000);

it('a stored log with a 9 MiB title (from before the limit) is listed, summarised and alerted with 200 characters of it', async () => {
  const dataDir = tempDir();
  fs.mkdirSync(path.join(dataDir, 'sessions'), { recursive: true });
  const title = 'ESC'.repeat(3 * 1024 * 1024);
  const lines = fs.readFileSync(path.join(ROOT, 'public/samples/collapse.jsonl'), 'utf8').trim().split('\n');
  lines[0] = JSON.stringify({ ...(JSON.parse(lines[0]!) as object), title });
  fs.writeFileSync(path.join(dataDir, 'sessions', 'collapse.jsonl'), lines.join('\n') + '\n');
  const r = await relay({ dataDir, analysisThreads: 0 });
  await r.analysis!.start();
  const list = (await (await fetch(`${r.url}api/sessions`)).json()) as RelaySessionList;
  expect(list.sessions[0]!.title!.length).toBeLessThanOrEqual(201);
  const overview = (await (await fetch(`${r.url}api/overview`)).json()) as Overview;
  expect(overview.sessions[0]!.title!.length).toBeLessThanOrEqual(201);

  // a new session under a rule: its firing repeats 200 characters of the title, not 1,024
  const rule = await fetch(`${r.url}api/alerts/rules`, { method: 'POST', body: JSON.stringify({ signal: 'relevance_collapse', session_id: 'again' }) });
  expect(rule.status).toBe(201);
  lines[0] = JSON.stringify({ type: 'session', session_id: 'again', title: 'y'.repeat(MAX_TITLE_CHARS) });
  const again = lines.map((l, i) => (i === 0 ? l : l.replace('"session_id":"collapse"', '"session_id":"again"')));
  expect((await postNdjson(r.url, again.join('\n') + '\n')).status).toBe(200);
  const end = Date.now() + 15_000;
  while (r.alerts!.recent().length === 0 && Date.now() < end) await new Promise((res) => setTimeout(res, 50));
  const firing = r.alerts!.recent()[0]!;
  expect(firing.title!.length).toBeLessThanOrEqual(201);
  expect(firing.text.length).toBeLessThan(600);
}, 30_000);
