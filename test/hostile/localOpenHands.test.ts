// The third hostile round, on serve's OpenHands conversations (docs/security.md "Local
// sessions"): a conversation folder whose files are broken or hostile. Opening its row must
// give the page exactly the events `check <folder>` reads, and one input error naming the file
// where check has one; the relay's memory stays bounded per request (one event at a time).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { LocalSessionRow } from '../../src/protocol/localSessions.ts';
import { checkTranscript } from '../../src/cli/check.ts';
import { openLocalIndex } from '../../src/cli/localSessions.ts';
import { localRoutes } from '../../src/server/localSessions/localRoutes.ts';
import { conversationFiles, MAX_EVENT_ENTRIES, scanConversation, writeConversation } from '../../src/server/localSessions/openhandsConversation.ts';
import { DEFAULT_HEAD_LIMITS } from '../../src/server/localSessions/sessionHead.ts';
import { relaysPerTest, tempDir } from '../relay/helpers.ts';

const V1_FIXTURE = path.resolve('test/fixtures/adapters/openhands-conversation/7d1e9f20a3b44c5d8e6f7a8b9c0d1e2f');
const V1_ID = '7d1e9f20a3b44c5d8e6f7a8b9c0d1e2f';
const V1_EVENTS = fs.readdirSync(path.join(V1_FIXTURE, 'events')).sort();
const choice = { off: false, extra: [], host: '127.0.0.1', tokenForReads: false };
/** over check's default limit per event (64 MiB) */
const OVER_LIMIT = 64 * 1024 * 1024 + 1;

function writeV1(dir: string): string {
  fs.mkdirSync(path.join(dir, 'events'), { recursive: true });
  fs.copyFileSync(path.join(V1_FIXTURE, 'base_state.json'), path.join(dir, 'base_state.json'));
  for (const name of V1_EVENTS) fs.copyFileSync(path.join(V1_FIXTURE, 'events', name), path.join(dir, 'events', name));
  return dir;
}

/** A user message event as the SDK writes it, its text given as raw JSON string content. */
function userEvent(rawText: string, id = 'e99-0000-4000-8000-000000000099'): string {
  return `{"id":"${id}","timestamp":"2026-08-21T14:09:00.000000","source":"user","kind":"MessageEvent","llm_message":{"role":"user","content":[{"type":"text","text":"${rawText}"}]},"activated_skills":[],"extended_content":[]}`;
}

describe('an OpenHands conversation with broken files: the body and check <folder> agree', () => {
  const relay = relaysPerTest();

  /** The folder as the relay serves it, then check over that body (as the page reads it) and check over the folder. */
  async function both(dir: string) {
    const home = path.dirname(path.dirname(path.dirname(dir)));
    const index = openLocalIndex(choice, home);
    await index.update();
    const row = index.list().sessions.find((s) => s.agent === 'openhands') as LocalSessionRow;
    const r = await relay({ extraRoutes: localRoutes(index, null) });
    const res = await fetch(`${r.url}api/local/${row.id}/file`);
    expect(res.status).toBe(200);
    const text = await res.text();
    index.close();
    const f = path.join(tempDir('ch-oh-body-'), row.file_name);
    fs.writeFileSync(f, text);
    const fromBody = (await checkTranscript(f, { userThresholds: {}, threads: 1 })).report;
    const fromFolder = (await checkTranscript(dir, { userThresholds: {}, threads: 1 })).report;
    return { text, fromBody, fromFolder };
  }

  const messages = (r: { input_errors: { message: string }[] }): string[] => r.input_errors.map((e) => e.message);

  function conversation(): string {
    return writeV1(path.join(tempDir('ch-oh-'), '.openhands', 'conversations', V1_ID));
  }

  it('an event with a raw newline inside a string is not JSON for check, and not made JSON for the page', async () => {
    const dir = conversation();
    fs.writeFileSync(path.join(dir, 'events', V1_EVENTS[5]!), userEvent('first line\nsecond line'));
    const { fromBody, fromFolder } = await both(dir);
    expect(messages(fromFolder)).toEqual([expect.stringMatching(new RegExp(`^${V1_EVENTS[5]}: not valid JSON`))]);
    expect(messages(fromBody)).toEqual(messages(fromFolder));
    expect(fromBody.sessions).toEqual(fromFolder.sessions);
  });

  it('an event that is not UTF-8 is the same input error, naming the file', async () => {
    const dir = conversation();
    fs.writeFileSync(path.join(dir, 'events', V1_EVENTS[5]!), Buffer.concat([Buffer.from(userEvent('caf')), Buffer.from([0xe9])]));
    const { fromBody, fromFolder } = await both(dir);
    expect(messages(fromFolder)).toEqual([`${V1_EVENTS[5]}: not valid UTF-8: the file holds bytes that are not a UTF-8 encoding`]);
    expect(messages(fromBody)).toEqual(messages(fromFolder));
    expect(fromBody.sessions).toEqual(fromFolder.sessions);
  });

  it('an event or a state over the limit per event is one input error naming it, not 64 MiB sent', async () => {
    const dir = conversation();
    // sparse: no disk used
    fs.truncateSync(path.join(dir, 'base_state.json'), OVER_LIMIT);
    const big = path.join(dir, 'events', V1_EVENTS[5]!);
    fs.writeFileSync(big, '');
    fs.truncateSync(big, OVER_LIMIT);
    const { text, fromBody, fromFolder } = await both(dir);
    expect(text.length).toBeLessThan(1024 * 1024);
    expect(messages(fromFolder)).toEqual([
      expect.stringMatching(/^base_state\.json is 67108865 bytes long, over the limit/),
      expect.stringMatching(new RegExp(`^${V1_EVENTS[5]} is 67108865 bytes long, over the limit`)),
    ]);
    expect(messages(fromBody)).toEqual(messages(fromFolder));
    expect(fromBody.sessions).toEqual(fromFolder.sessions);
  });

  it('an event is sent as its JSON text: a lone surrogate, 1e400 and -0 reach the page as check reads them', async () => {
    const dir = conversation();
    const raw = userEvent('lone \\ud800 here').replace('"activated_skills":[]', '"activated_skills":[],"n":1e400,"z":-0');
    fs.writeFileSync(path.join(dir, 'events', V1_EVENTS[5]!), `${raw}\r\n`);
    const { text, fromBody, fromFolder } = await both(dir);
    // its own text, CR and LF made spaces (in valid JSON they are only whitespace between tokens)
    expect(text.split('\n')).toContain(`${raw}  `);
    expect(messages(fromBody)).toEqual(messages(fromFolder));
    expect(fromBody.sessions).toEqual(fromFolder.sessions);
  });

  it('a last event that stopped half-written long ago is an input error, as check says, not left out for ever', async () => {
    const dir = conversation();
    const last = path.join(dir, 'events', V1_EVENTS[V1_EVENTS.length - 1]!);
    fs.writeFileSync(last, userEvent('cut').slice(0, 30));
    const old = Date.now() / 1000 - 3600;
    fs.utimesSync(last, old, old);
    const { fromBody, fromFolder } = await both(dir);
    expect(messages(fromFolder)).toHaveLength(1);
    expect(messages(fromBody)).toEqual(messages(fromFolder));
    expect(fromBody.sessions).toEqual(fromFolder.sessions);
  });
});

describe('the format of the body', () => {
  const relay = relaysPerTest();

  it('is OpenHands whatever its first file holds, as check <folder> reads it: a state or first event that looks like another format', async () => {
    for (const first of [
      '{"id":"x"}',
      '{"type":"session","session_id":"forged","version":1}',
      '{"type":"user","sessionId":"s","uuid":"u","message":{"role":"user","content":"hi"}}',
    ]) {
      const dir = writeV1(path.join(tempDir('ch-oh-'), '.openhands', 'conversations', V1_ID));
      fs.writeFileSync(path.join(dir, 'base_state.json'), first);
      const index = openLocalIndex(choice, path.dirname(path.dirname(path.dirname(dir))));
      await index.update();
      const row = index.list().sessions.find((s) => s.agent === 'openhands')!;
      const r = await relay({ extraRoutes: localRoutes(index, null) });
      const text = await (await fetch(`${r.url}api/local/${row.id}/file`)).text();
      index.close();
      const f = path.join(tempDir('ch-oh-body-'), row.file_name);
      fs.writeFileSync(f, text);
      const fromBody = await checkTranscript(f, { userThresholds: {}, threads: 1 });
      const fromFolder = await checkTranscript(dir, { userThresholds: {}, threads: 1 });
      expect(fromBody.adapter.format).toBe('openhands');
      expect(fromBody.report.input_errors.map((e) => e.message)).toEqual(fromFolder.report.input_errors.map((e) => e.message));
      expect(fromBody.report.sessions).toEqual(fromFolder.report.sessions);
    }
  });
});

describe('the body of a large conversation', () => {
  it('holds one event at a time: 64 events of 1 MiB sent with under 16 MiB more array-buffer memory (the garbage not yet collected), never the conversation', async () => {
    const dir = path.join(tempDir('ch-oh-mem-'), 'conv');
    fs.mkdirSync(path.join(dir, 'events'), { recursive: true });
    const pad = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 64; i++)
      fs.writeFileSync(path.join(dir, 'events', `event-${String(i).padStart(5, '0')}-e${i}-0000-4000-8000-000000000000.json`), userEvent(pad, `e${i}`));
    const root = fs.realpathSync(path.dirname(dir));
    const files = await conversationFiles(fs.realpathSync(dir), root);
    const base = process.memoryUsage().arrayBuffers;
    let peak = 0;
    let sent = 0;
    await writeConversation(files, root, async (chunk) => {
      sent += chunk.length;
      peak = Math.max(peak, process.memoryUsage().arrayBuffers - base);
      await new Promise((r) => setImmediate(r));
    });
    expect(sent).toBeGreaterThan(64 * 1024 * 1024);
    expect(peak).toBeLessThan(16 * 1024 * 1024);
  });
});

describe('a --sessions folder that holds code, not conversations', () => {
  it('a project with an events/ folder of source files is searched, not taken for a conversation that hides its transcripts', async () => {
    const extra = tempDir('ch-oh-code-');
    for (const proj of [extra, path.join(extra, 'app')]) {
      fs.mkdirSync(path.join(proj, 'events'), { recursive: true });
      fs.writeFileSync(path.join(proj, 'events', 'handlers.ts'), 'export {};\n');
    }
    fs.copyFileSync('test/fixtures/adapters/claude-code.jsonl', path.join(extra, 'app', 'session.jsonl'));
    fs.copyFileSync('test/fixtures/adapters/claude-code.jsonl', path.join(extra, 'top.jsonl'));
    // a real conversation beside them is still one row
    writeV1(path.join(extra, 'runs', 'conv'));
    const index = openLocalIndex({ ...choice, extra: [extra] }, tempDir('ch-oh-home-'));
    await index.update();
    const rows = index.list().sessions; // the home is empty: all rows are the folder's
    expect(rows.map((s) => [s.agent, s.file_name, s.problem]).sort()).toEqual([
      ['claude-code', 'session.jsonl', null],
      ['claude-code', 'top.jsonl', null],
      ['openhands', 'conv.jsonl', null],
    ]);
    index.close();
  });
});

describe('bounded work per look', () => {
  const relay = relaysPerTest();

  it(`an events/ of more than ${MAX_EVENT_ENTRIES} entries is a row saying so and a 404, not a scan and a listing of all`, async () => {
    const home = tempDir('ch-oh-many-');
    const dir = writeV1(path.join(home, '.openhands', 'conversations', V1_ID));
    for (let i = 0; i < MAX_EVENT_ENTRIES; i++) fs.closeSync(fs.openSync(path.join(dir, 'events', `x${i}`), 'w'));
    const index = openLocalIndex(choice, home);
    await index.update();
    const row = index.list().sessions.find((s) => s.agent === 'openhands')!;
    expect(row.problem).toBe(`is a conversation whose events/ holds more than ${MAX_EVENT_ENTRIES} entries: not read (check <folder> reads it)`);
    const r = await relay({ extraRoutes: localRoutes(index, null) });
    expect((await fetch(`${r.url}api/local/${row.id}/file`)).status).toBe(404);
    index.close();
  }, 60_000);

  it('a last event left empty or broken long ago does not make every look scan the conversation again', async () => {
    const dir = writeV1(path.join(tempDir('ch-oh-'), 'conversations', V1_ID));
    const last = path.join(dir, 'events', V1_EVENTS[V1_EVENTS.length - 1]!);
    fs.writeFileSync(last, '');
    const root = fs.realpathSync(path.dirname(path.dirname(dir)));
    expect((await scanConversation(fs.realpathSync(dir), root, DEFAULT_HEAD_LIMITS)).unsettled).toBe(true); // being written
    const old = Date.now() / 1000 - 3600;
    fs.utimesSync(last, old, old);
    expect((await scanConversation(fs.realpathSync(dir), root, DEFAULT_HEAD_LIMITS)).unsettled).toBe(false);
  });
});

describe('an event file swapped after the listing', () => {
  it('for a link to /etc/passwd or a FIFO: that file is one input error in check words (a link named so, not ELOOP and its path), never read, and the body goes on', async () => {
    const dir = writeV1(path.join(tempDir('ch-oh-'), 'conversations', V1_ID));
    const root = fs.realpathSync(path.dirname(path.dirname(dir)));
    const files = await conversationFiles(fs.realpathSync(dir), root);
    const link = path.join(dir, 'events', V1_EVENTS[3]!);
    const fifo = path.join(dir, 'events', V1_EVENTS[4]!);
    fs.rmSync(link);
    fs.symlinkSync('/etc/passwd', link);
    fs.rmSync(fifo);
    execFileSync('mkfifo', [fifo]);
    const chunks: Buffer[] = [];
    await writeConversation(files, root, async (c) => void chunks.push(c));
    const lines = Buffer.concat(chunks).toString('utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(2 + V1_EVENTS.length);
    expect(lines[5]).toBe(`{"$input_error":"${V1_EVENTS[3]} is a symbolic link: not read"}`);
    expect(lines[6]).toBe(`{"$input_error":"${V1_EVENTS[4]} is not a regular file (a FIFO, a device, a socket or a folder): not read"}`);
    expect(lines.join('\n')).not.toContain('root:');
  });
});

describe('a conversation folder removed while its row is resolved', () => {
  it('is no row (a 404), not a rejected lookup the relay answers 500 with the folder path', async () => {
    const home = tempDir('ch-oh-');
    const dir = writeV1(path.join(home, '.openhands', 'conversations', V1_ID));
    const index = openLocalIndex(choice, home);
    await index.update();
    const row = index.list().sessions.find((s) => s.agent === 'openhands')!;
    const real = fs.realpathSync(dir);
    const stat = fs.promises.stat.bind(fs.promises);
    // removed between the realpath and the stat
    vi.spyOn(fs.promises, 'stat').mockImplementation(((p: fs.PathLike, ...rest: unknown[]) =>
      p === real
        ? Promise.reject(Object.assign(new Error(`ENOENT: no such file or directory, stat '${real}'`), { code: 'ENOENT' }))
        : (stat as (...a: unknown[]) => Promise<fs.Stats>)(p, ...rest)) as typeof fs.promises.stat);
    await expect(index.fileOf(row.id)).resolves.toBeUndefined();
    vi.restoreAllMocks();
    index.close();
  });
});
