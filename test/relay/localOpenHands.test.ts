// OpenHands conversations among serve's local sessions (docs/relay.md "Local sessions"): a
// conversation folder (V1 ~/.openhands/conversations/<id>/, V0 ~/.openhands/sessions/<id>/) is
// one row, scanned again when it changes, sent as one JSON Lines body that `check` reads as it
// reads the folder, and analysed in the background by check on the folder.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LocalSessionList, LocalSessionRow } from '../../src/protocol/localSessions.ts';
import { checkTranscript } from '../../src/cli/check.ts';
import { openLocalIndex } from '../../src/cli/localSessions.ts';
import { defaultAgentFolders } from '../../src/server/localSessions/agentFolders.ts';
import type { LocalSessionIndex } from '../../src/server/localSessions/localIndex.ts';
import { localRoutes } from '../../src/server/localSessions/localRoutes.ts';
import { relaysPerTest, tempDir } from './helpers.ts';

const V1_FIXTURE = path.resolve('test/fixtures/adapters/openhands-conversation/7d1e9f20a3b44c5d8e6f7a8b9c0d1e2f');
const V1_ID = '7d1e9f20a3b44c5d8e6f7a8b9c0d1e2f';
const V1_EVENTS = fs.readdirSync(path.join(V1_FIXTURE, 'events')).sort();
/** the V0 app's events of one evaluation row, as its file store writes them: events/<id>.json */
const V0_EVENTS = (JSON.parse(fs.readFileSync('test/fixtures/adapters/openhands-v0-output.jsonl', 'utf8').split('\n')[0]!) as { history: unknown[] }).history;

const choice = { off: false, extra: [], host: '127.0.0.1', tokenForReads: false };

/** A V1 conversation under `dir` with the fixture's first `n` events (all by default). */
function writeV1(dir: string, n = V1_EVENTS.length): string {
  fs.mkdirSync(path.join(dir, 'events'), { recursive: true });
  fs.copyFileSync(path.join(V1_FIXTURE, 'base_state.json'), path.join(dir, 'base_state.json'));
  for (const name of V1_EVENTS.slice(0, n)) fs.copyFileSync(path.join(V1_FIXTURE, 'events', name), path.join(dir, 'events', name));
  // the SDK's lock file and a stray note: not events
  fs.writeFileSync(path.join(dir, 'events', '.eventlog.lock'), '');
  fs.writeFileSync(path.join(dir, 'events', 'notes.txt'), 'not an event\n');
  return dir;
}

function writeV0(dir: string): string {
  fs.mkdirSync(path.join(dir, 'events'), { recursive: true });
  // V0 writes json.dumps: one line; pretty-printed here, so the body's one-line rule is seen
  V0_EVENTS.forEach((e, i) => fs.writeFileSync(path.join(dir, 'events', `${i}.json`), JSON.stringify(e, null, 2)));
  fs.writeFileSync(
    path.join(dir, 'metadata.json'),
    JSON.stringify({ conversation_id: path.basename(dir), title: 'Slugify digits', selected_repository: null }),
  );
  return dir;
}

async function indexed(home: string, extra: string[] = []): Promise<{ index: LocalSessionIndex; list: LocalSessionList }> {
  const index = openLocalIndex({ ...choice, extra }, home);
  await index.update();
  return { index, list: index.list() };
}

const openhandsRows = (list: LocalSessionList): LocalSessionRow[] => list.sessions.filter((s) => s.agent === 'openhands');

async function analysed(index: LocalSessionIndex, id: string): Promise<LocalSessionRow> {
  await expect.poll(() => index.list().sessions.find((s) => s.id === id)?.analysis !== null, { timeout: 20_000 }).toBe(true);
  return index.list().sessions.find((s) => s.id === id)!;
}

describe('OpenHands conversations in the index', () => {
  it('lists a V1 and a V0 conversation from ~/.openhands, one row a folder, and nothing else there', async () => {
    const home = tempDir('ch-oh-');
    writeV1(path.join(home, '.openhands', 'conversations', V1_ID));
    writeV0(path.join(home, '.openhands', 'sessions', 'a0b1c2'));
    // unrelated: a folder without events/, settings files, a folder outside the layout
    fs.mkdirSync(path.join(home, '.openhands', 'conversations', 'scratch'), { recursive: true });
    fs.writeFileSync(path.join(home, '.openhands', 'agent_settings.json'), '{}');
    writeV1(path.join(home, '.openhands', 'skills', 'x'));
    const { index, list } = await indexed(home);
    const rows = openhandsRows(list);
    expect(rows).toHaveLength(2);
    const v1 = rows.find((r) => r.file_name === `${V1_ID}.jsonl`)!;
    const stateBytes = fs.statSync(path.join(V1_FIXTURE, 'base_state.json')).size;
    const eventBytes = V1_EVENTS.reduce((n, e) => n + fs.statSync(path.join(V1_FIXTURE, 'events', e)).size, 0);
    expect(v1).toMatchObject({
      project: '/workspace',
      session_id: '7d1e9f20-a3b4-4c5d-8e6f-7a8b9c0d1e2f',
      title: 'The /workspace/app/utils.py slugify() keeps trailing dashes; fix it and run the tests',
      bytes: stateBytes + eventBytes,
      problem: null,
    });
    expect(rows.find((r) => r.file_name === 'a0b1c2.jsonl')).toMatchObject({ session_id: 'a0b1c2', title: 'Slugify digits', project: null, problem: null });
    expect(list.folders.find((f) => f.agent === 'openhands')).toMatchObject({ path: path.join(home, '.openhands'), problem: null, files: 2 });
    // analysed by check's engine, on the folder
    expect((await analysed(index, v1.id)).analysis).toEqual({ turns: 8, compactions: 1, confirmed_losses: 0, peak_fill: expect.any(Number) });
    expect((await analysed(index, rows.find((r) => r.session_id === 'a0b1c2')!.id)).analysis?.turns).toBe(2);
    expect(index.recent(60 * 60_000).some((r) => r.agent === 'openhands')).toBe(false); // not tailed as a file
    index.close();
  });

  it('a growing conversation is seen as changed: an event file added, and a last one finished after the look saw it half-written', async () => {
    const home = tempDir('ch-oh-');
    const dir = writeV1(path.join(home, '.openhands', 'conversations', V1_ID), 12);
    const { index, list } = await indexed(home);
    const id = openhandsRows(list)[0]!.id;
    const first = await analysed(index, id);
    // the rest of the events, the last one as OpenHands leaves it between its open and its write
    for (const name of V1_EVENTS.slice(12, -1)) fs.copyFileSync(path.join(V1_FIXTURE, 'events', name), path.join(dir, 'events', name));
    const lastName = V1_EVENTS[V1_EVENTS.length - 1]!;
    const last = fs.readFileSync(path.join(V1_FIXTURE, 'events', lastName));
    fs.writeFileSync(path.join(dir, 'events', lastName), last.subarray(0, 20));
    // a whole second, so that setting it again gives the very same mtime
    const eventsMtime = Math.floor(Date.now() / 1000);
    fs.utimesSync(path.join(dir, 'events'), eventsMtime, eventsMtime);
    await index.update();
    const grown = index.list().sessions.find((s) => s.id === id)!;
    expect(grown.bytes).toBeGreaterThan(first.bytes);
    await expect.poll(async () => (await analysed(index, id)).analysis!.turns, { timeout: 20_000 }).toBe(8);
    // finished in place: no file created, the events folder's mtime unchanged; the row was unsettled, so it is read again
    fs.writeFileSync(path.join(dir, 'events', lastName), last);
    fs.utimesSync(path.join(dir, 'events'), eventsMtime, eventsMtime);
    await index.update();
    expect(index.list().sessions.find((s) => s.id === id)!.bytes).toBe(grown.bytes - 20 + last.length);
    index.close();
  });

  it('a --sessions folder holding conversations lists each as one row, not its event files', async () => {
    const extra = tempDir('ch-oh-extra-');
    writeV1(path.join(extra, 'runs', 'one'));
    writeV0(path.join(extra, 'two'));
    const { index, list } = await indexed(tempDir('ch-oh-home-'), [extra]);
    const extraLine = list.folders.find((f) => f.path === extra)!;
    expect(extraLine).toMatchObject({ files: 2, problem: null });
    expect(list.sessions.map((s) => [s.agent, s.file_name]).sort()).toEqual([
      ['openhands', 'one.jsonl'],
      ['openhands', 'two.jsonl'],
    ]);
    index.close();
  });

  it('OPENHANDS_CONVERSATIONS_DIR, OPENHANDS_PERSISTENCE_DIR and FILE_STORE_PATH move the folders searched', () => {
    const home = '/home/u';
    const roots = (env: Record<string, string>) =>
      defaultAgentFolders(home, env)
        .filter((f) => f.agent === 'openhands')
        .map((f) => `${f.root}${f.optional === true ? ' (optional)' : ''}`);
    // ~/.openhands-state, where the V0 app's Docker command kept it before 0.44, is searched when it exists (an optional folder)
    expect(roots({})).toEqual(['/home/u/.openhands', '/home/u/.openhands-state (optional)']);
    expect(roots({ OPENHANDS_PERSISTENCE_DIR: '/data/oh', OPENHANDS_CONVERSATIONS_DIR: '/data/convs', FILE_STORE_PATH: '~/store' })).toEqual([
      '/data/oh',
      '/home/u/store',
      '/home/u/.openhands-state (optional)',
      '/data/convs',
    ]);
  });

  it('does not follow links out: a conversation, its events/ or an event file that leads out of the folder', async () => {
    const home = tempDir('ch-oh-');
    const convs = path.join(home, '.openhands', 'conversations');
    const outside = tempDir('ch-oh-outside-');
    fs.mkdirSync(convs, { recursive: true });
    // a conversation folder that is a link out: counted, not listed
    writeV1(path.join(outside, 'away'));
    fs.symlinkSync(path.join(outside, 'away'), path.join(convs, 'linked'));
    // a conversation whose events/ is a link out: counted, not listed
    fs.mkdirSync(path.join(convs, 'evlink'));
    fs.symlinkSync(path.join(outside, 'away', 'events'), path.join(convs, 'evlink', 'events'));
    // an event file that is a link out, and one that is a FIFO: the row says why, its route refuses it
    const withLink = writeV1(path.join(convs, 'withlink'));
    fs.writeFileSync(path.join(outside, 'secret.json'), '{"secret":true}');
    fs.symlinkSync(path.join(outside, 'secret.json'), path.join(withLink, 'events', 'event-00099-ffffffff-0000.json'));
    const withFifo = writeV1(path.join(convs, 'withfifo'));
    execFileSync('mkfifo', [path.join(withFifo, 'events', 'event-00099-ffffffff-0000.json')]);
    const { index, list } = await indexed(home);
    const rows = openhandsRows(list);
    expect(rows.map((r) => r.file_name).sort()).toEqual(['withfifo.jsonl', 'withlink.jsonl']);
    expect(rows.find((r) => r.file_name === 'withlink.jsonl')!.problem).toBe(
      'is a conversation whose events/event-00099-ffffffff-0000.json is a symbolic link: not read',
    );
    expect(rows.find((r) => r.file_name === 'withfifo.jsonl')!.problem).toMatch(/events\/event-00099-ffffffff-0000\.json is not a regular file/);
    expect(list.folders.find((f) => f.agent === 'openhands')!.problem).toBe('2 links out of the folder not followed');
    index.close();
  });
});

describe('GET /api/local/<id>/file of an OpenHands conversation', () => {
  const relay = relaysPerTest();

  async function body(url: string, id: string): Promise<string> {
    const res = await fetch(`${url}api/local/${id}/file`);
    expect(res.status).toBe(200);
    return res.text();
  }

  /** check over the served body, as the page reads it: a file named as the row names it */
  async function checkBody(text: string, name: string) {
    const f = path.join(tempDir('ch-oh-body-'), name);
    fs.writeFileSync(f, text);
    return (await checkTranscript(f, { userThresholds: {}, threads: 1 })).report;
  }

  it('sends the folder as JSON Lines that check reads to the same turns and findings as the folder; V1 and V0', async () => {
    const home = tempDir('ch-oh-');
    const v1 = writeV1(path.join(home, '.openhands', 'conversations', V1_ID));
    const v0 = writeV0(path.join(home, '.openhands', 'sessions', 'a0b1c2'));
    const { index, list } = await indexed(home);
    const r = await relay({ extraRoutes: localRoutes(index, null) });
    for (const [dir, row] of [
      [v1, openhandsRows(list).find((s) => s.session_id !== 'a0b1c2')!],
      [v0, openhandsRows(list).find((s) => s.session_id === 'a0b1c2')!],
    ] as const) {
      const text = await body(r.url, row.id);
      const lines = text.split('\n');
      expect(lines.pop()).toBe('');
      // the format first (as check <folder> forces it), then the state (V1) and each event
      expect(lines.shift()).toBe('{"$format":"openhands"}');
      expect(lines).toHaveLength(fs.readdirSync(path.join(dir, 'events')).filter((n) => n.endsWith('.json')).length + (dir === v1 ? 1 : 0));
      for (const line of lines) JSON.parse(line); // each file's JSON on one line
      const fromBody = await checkBody(text, row.file_name);
      const fromFolder = (await checkTranscript(dir, { userThresholds: {}, threads: 1 })).report;
      expect(fromBody.sessions.length).toBe(1);
      expect(fromBody.sessions[0]!.turns).toBeGreaterThan(0);
      expect(fromBody.sessions).toEqual(fromFolder.sessions);
      expect(fromBody.input_errors).toEqual([]);
    }
    expect((await fetch(`${r.url}api/local/${openhandsRows(list)[0]!.id}/file`, { method: 'HEAD' })).status).toBe(200);
    index.close();
  });

  it('an event that is not JSON is one input error either way; a last one being written is left out of the body', async () => {
    const home = tempDir('ch-oh-');
    const dir = writeV1(path.join(home, '.openhands', 'conversations', V1_ID));
    fs.writeFileSync(path.join(dir, 'events', V1_EVENTS[5]!), 'not json\n{at all');
    const { index, list } = await indexed(home);
    const row = openhandsRows(list)[0]!;
    expect(row.problem).toBe(null);
    const r = await relay({ extraRoutes: localRoutes(index, null) });
    const fromBody = await checkBody(await body(r.url, row.id), row.file_name);
    const fromFolder = (await checkTranscript(dir, { userThresholds: {}, threads: 1 })).report;
    expect(fromBody.input_errors).toHaveLength(1);
    expect(fromFolder.input_errors).toHaveLength(1);
    expect(fromBody.sessions).toEqual(fromFolder.sessions);
    // a new last event, half-written (OpenHands opens the name, then writes): not sent until it parses
    const whole = fs.readFileSync(path.join(dir, 'events', V1_EVENTS[22]!), 'utf8');
    const next = path.join(dir, 'events', 'event-00023-e23-0000-4000-8000-000000000003.json');
    fs.writeFileSync(next, whole.slice(0, 30));
    const partial = await body(r.url, row.id);
    expect(partial.split('\n')).toHaveLength(2 + V1_EVENTS.length + 1);
    fs.writeFileSync(next, whole.replace(/"e22-0000-4000-8000-000000000002"/, '"e23-0000-4000-8000-000000000003"'));
    expect((await body(r.url, row.id)).split('\n')).toHaveLength(2 + V1_EVENTS.length + 2);
    index.close();
  });

  it('refuses a conversation whose event file became a link out after it was listed', async () => {
    const home = tempDir('ch-oh-');
    const dir = writeV1(path.join(home, '.openhands', 'conversations', V1_ID));
    const { index, list } = await indexed(home);
    const row = openhandsRows(list)[0]!;
    const r = await relay({ extraRoutes: localRoutes(index, null) });
    const outside = path.join(tempDir('ch-oh-outside-'), 'secret.json');
    fs.writeFileSync(outside, '{"secret":true}');
    const victim = path.join(dir, 'events', V1_EVENTS[3]!);
    fs.rmSync(victim);
    fs.symlinkSync(outside, victim);
    const res = await fetch(`${r.url}api/local/${row.id}/file`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toBe(`${V1_ID}.jsonl is a conversation whose events/${V1_EVENTS[3]} is a symbolic link: not read`);
    index.close();
  });
});
