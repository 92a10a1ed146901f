// docs/adapters.md "Gemini CLI" and "OpenHands" through the doors a user opens: `check` (the
// real executable) on each fixture, an OpenHands conversation folder and its events/, a file
// of no known format, and `watch` following a Gemini session file that its agent rewrites
// whole as it grows, into a real relay on 127.0.0.1.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkTranscript } from '../../src/cli/check.ts';
import { startWatch } from '../../src/cli/watch.ts';
import type { CheckOutput } from '../../src/core/checkOutput.ts';
import { readGeminiSessionMeta } from '../../src/node/geminiSessionMeta.ts';
import { ROOT, runCli } from '../cli/runCli.ts';
import { tempDir, testRelay } from '../relay/helpers.ts';

const FIXTURES = path.join(ROOT, 'test/fixtures/adapters');
const GEMINI = path.join(FIXTURES, 'gemini-session.json');
const GEMINI_JSONL = path.join(FIXTURES, 'gemini-session.jsonl');
const OPENHANDS = path.join(FIXTURES, 'openhands-events.json');
const CONVERSATION = path.join(FIXTURES, 'openhands-conversation/7d1e9f20a3b44c5d8e6f7a8b9c0d1e2f');

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

type Output = CheckOutput & { adapter?: { format: string; skipped_records: Record<string, number> } };

async function checkJson(...args: string[]): Promise<{ code: number; out: Output; stderr: string }> {
  const r = await runCli(['check', '--json', ...args]);
  return { code: r.code, out: JSON.parse(r.stdout) as Output, stderr: r.stderr };
}

describe('check --json on Gemini CLI sessions', () => {
  it('the legacy document: one session, a turn per call, the Gemini window from the model table', async () => {
    const { code, out } = await checkJson(GEMINI);
    expect(code).toBe(0);
    expect(out.adapter).toEqual({ format: 'gemini', skipped_records: { 'error (not sent to the model)': 1, 'info (not sent to the model)': 1 } });
    const s = out.sessions[0]!;
    expect(s.session_id).toBe('5f1c2a9e-7b3d-4e21-9a0c-3d2b8e6f4a11');
    expect(s.turns).toBe(5);
    expect(s.context_window).toEqual({ tokens: 1_048_576, source: 'model', model: 'gemini-2.5-pro' });
    expect(out.input_errors).toEqual([]);
  });

  it('the JSONL session: its compression is one compaction record with its audit', async () => {
    const { out } = await checkJson(GEMINI_JSONL);
    const s = out.sessions[0]!;
    expect(s.compactions!.map((c) => [c.turn, c.kind, c.tokens_before, c.tokens_after, c.spans_replaced])).toEqual([[5, 'compact', 12950, 3100, 9]]);
    expect(s.compactions![0]!.summary_text).toMatch(/^<state_snapshot>/);
    expect(s.compactions![0]!.items.map((i) => [i.kind, i.status, i.refetched_at])).toEqual([
      ['user_prompt', 'paraphrased', null],
      ['file', 'kept', 5],
    ]);
  });

  it('a session with no model call is said to be one (exit 2), not "no valid snapshot"', async () => {
    // a Gemini CLI session whose only prompt failed before any answer: a user message and an error
    const file = path.join(tempDir('ch-gemini-'), 'session-2026-01-14T10-01-no-call.json');
    const doc = {
      sessionId: 'no-call',
      projectHash: 'ab12',
      startTime: '2026-01-14T10:01:58.412Z',
      lastUpdated: '2026-01-14T10:02:00.000Z',
      messages: [
        { id: 'u1', timestamp: '2026-01-14T10:01:59.000Z', type: 'user', content: [{ text: 'Explain src/math.ts' }] },
        { id: 'e1', timestamp: '2026-01-14T10:02:00.000Z', type: 'error', content: 'quota exceeded' },
      ],
    };
    fs.writeFileSync(file, JSON.stringify(doc, null, 2));
    const r = await runCli(['check', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file} is a Gemini CLI session with no model call in it: nothing to analyse`);
    expect(r.stderr).not.toMatch(/no valid snapshot/);
    // one bad line of the product's own format keeps the count of its input errors
    const wire = path.join(path.dirname(file), 'broken.jsonl');
    fs.writeFileSync(wire, '{"type":"snapshot","session_id":"s"}\n');
    expect((await runCli(['check', wire])).stderr).toMatch(/holds no valid snapshot \(1 input errors\)/);
  });

  it('--from gemini reads the same; --from openhands on it finds no call', async () => {
    expect((await checkJson('--from', 'gemini', GEMINI)).out.sessions).toEqual((await checkJson(GEMINI)).out.sessions);
    expect((await runCli(['check', '--from', 'nope', GEMINI])).stderr).toMatch(/--from must be claude-code, swe-agent, codex, gemini, openhands, wire or auto/);
  });
});

describe('a Gemini session’s metadata for a listing (readGeminiSessionMeta)', () => {
  it('reads the id, project, times and first prompt of both file formats from their first bytes', () => {
    expect(readGeminiSessionMeta(GEMINI)).toMatchObject({
      sessionId: '5f1c2a9e-7b3d-4e21-9a0c-3d2b8e6f4a11',
      projectHash: '9c3e1f0a7d5b2c4e6f8a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e',
      startTime: '2026-01-14T10:01:58.412Z',
      lastUpdated: '2026-01-14T10:04:40.007Z',
      title: 'Fix the failing test in src/math.ts: add() returns the wrong sum',
      format: 'json',
    });
    // the environment context is no prompt; the title is the user's first words
    expect(readGeminiSessionMeta(GEMINI_JSONL)).toMatchObject({
      sessionId: 'c0ffee12-3456-4789-abcd-ef0123456789',
      title: 'Add a discount field to the Cart model in /srv/shop/cart.py and keep the tests green',
      format: 'jsonl',
    });
    expect(readGeminiSessionMeta(OPENHANDS)).toBeNull();
    expect(readGeminiSessionMeta(path.join(FIXTURES, 'absent.json'))).toBeNull();
  });

  it('stops at the first prompt: a huge session costs only its first bytes', () => {
    const dir = tempDir('ch-gemini-meta-');
    const file = path.join(dir, 'session-x.json');
    const doc = JSON.parse(fs.readFileSync(GEMINI, 'utf8')) as { messages: unknown[] };
    const filler = Array.from({ length: 20_000 }, (_, i) => ({ id: `f${i}`, type: 'info', content: 'x'.repeat(200) }));
    fs.writeFileSync(file, JSON.stringify({ ...doc, messages: [...doc.messages, ...filler] }, null, 2));
    expect(fs.statSync(file).size).toBeGreaterThan(4 << 20);
    expect(readGeminiSessionMeta(file, 64 * 1024)?.title).toBe('Fix the failing test in src/math.ts: add() returns the wrong sum');
  });
});

describe('check on OpenHands conversations', () => {
  it('the events as a JSON array: a turn per agent response, the condensation one compaction', async () => {
    const { out } = await checkJson(OPENHANDS);
    const s = out.sessions[0]!;
    expect(out.adapter?.format).toBe('openhands');
    expect(s.turns).toBe(8);
    expect(s.compactions!.map((c) => [c.turn, c.spans_replaced, c.summary_text.split('\n')[0]])).toEqual([
      [6, 8, 'USER_CONTEXT: fix slugify() trailing dashes in utils.py and run tests'],
    ]);
  });

  it('the conversation folder and its events/ folder read alike, with each call’s tokens from base_state.json', async () => {
    const folder = await checkJson(CONVERSATION);
    const events = await checkJson(path.join(CONVERSATION, 'events'));
    expect(events.out.sessions).toEqual(folder.out.sessions);
    const s = folder.out.sessions[0]!;
    expect(s.session_id).toBe('7d1e9f20-a3b4-4c5d-8e6f-7a8b9c0d1e2f');
    expect(s.compactions![0]!.tokens_before).toBe(6400);
    expect(s.compactions![0]!.tokens_after).toBe(2950);
    expect(s.context_window).toEqual({ tokens: 200000, source: 'header' });
  });

  it('a folder that is no conversation, and a bad event file, say so', async () => {
    const dir = tempDir('ch-oh-');
    const r = await runCli(['check', dir]);
    expect(r.code).toBe(2);
    // a folder that is no conversation is walked as many files (contract §6.1.1): here it holds none
    expect(r.stderr).toMatch(/no transcript found in/);
    fs.cpSync(CONVERSATION, path.join(dir, 'c1'), { recursive: true });
    const events = path.join(dir, 'c1', 'events');
    const third = fs.readdirSync(events).sort()[3]!;
    fs.writeFileSync(path.join(events, third), Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
    const { out } = await checkJson(path.join(dir, 'c1'));
    expect(out.input_errors).toEqual([{ line: 4, message: `${third}: not valid UTF-8: the file holds bytes that are not a UTF-8 encoding` }]);
    expect(out.sessions[0]!.turns).toBeGreaterThan(0);
  });
});

describe('check on OpenHands V0 trajectories and evaluation output', () => {
  it('the app’s trajectory (a pretty-printed array): a turn per model response, tokens from its usage, both condensations compactions', async () => {
    const { code, out } = await checkJson(path.join(FIXTURES, 'openhands-v0-trajectory.json'));
    expect(code).toBe(0);
    expect(out.adapter).toEqual({
      format: 'openhands',
      skipped_records: { 'agent_state_changed observation (not sent to the model)': 2, 'recall action (not sent to the model)': 1 },
    });
    const s = out.sessions[0]!;
    expect(s.session_id).toBe('openhands-v0-trajectory');
    expect(s.turns).toBe(6);
    expect(s.metrics.map((m) => m.tokens_total)).toEqual([1210, 1530, 1720, 980, 870, 960]);
    expect(s.compactions!.map((c) => [c.turn, c.spans_replaced, c.items.map((i) => `${i.kind} ${i.status}`)])).toEqual([
      [4, 5, ['command lost', 'file kept']],
      [5, 6, ['file kept', 'command lost', 'error lost']],
    ]);
  });

  it('an output.jsonl of two evaluation rows: two sessions named by their instance_id', async () => {
    const { code, out } = await checkJson(path.join(FIXTURES, 'openhands-v0-output.jsonl'));
    expect(code).toBe(0);
    expect(out.input_errors).toEqual([]);
    expect(out.sessions.map((s) => [s.session_id, s.turns])).toEqual([
      ['acme__text-101', 2],
      ['acme__text-102', 2],
    ]);
    expect(out.adapter?.skipped_records).toEqual({ 'null observation (not sent to the model)': 2 });
  });
});

describe('a file that is none of the formats', () => {
  it('gets one sentence and exit 2, not an input error per line', async () => {
    const dir = tempDir('ch-none-');
    const notes = path.join(dir, 'notes.txt');
    fs.writeFileSync(notes, Array.from({ length: 1000 }, (_, i) => `line ${i} of my notes`).join('\n') + '\n');
    const r = await runCli(['check', notes]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /is not a transcript this reads: expected one of Context Health messages, a Claude Code transcript, .* or an OpenHands conversation/,
    );
  });

  it("Gemini CLI's prompt log (logs.json: the prompts typed, no model call) gets that sentence, and a project folder's walk skips it", async () => {
    const project = path.join(tempDir('ch-gemini-logs-'), '9c3e', 'chats');
    fs.mkdirSync(project, { recursive: true });
    // packages/core/src/core/logger.ts writes it beside chats/, pretty-printed; its entries carry Claude Code's `type` and `sessionId`
    const logs = path.join(project, '..', 'logs.json');
    const entry = (i: number): object => ({ sessionId: 'e2a7', messageId: i, type: 'user', message: `prompt ${i}`, timestamp: '2026-03-31T01:15:57.576Z' });
    fs.writeFileSync(logs, JSON.stringify([entry(0), entry(1)], null, 2));
    fs.copyFileSync(GEMINI, path.join(project, 'session-2026-03-31T01-15-e2a7.json'));
    const alone = await runCli(['check', logs]);
    expect(alone.code).toBe(2);
    expect(alone.stdout).toBe('');
    expect(alone.stderr).toMatch(/logs\.json is not a transcript this reads: expected one of /);
    const walked = await runCli(['check', path.dirname(project)]);
    expect(walked.code, walked.stderr).toBe(0);
    expect(walked.stdout).not.toMatch(/logs\.json|claude-code/);
    expect(walked.stdout).toMatch(/total: 1 file, .*; 1 other file in the folders skipped \(not transcripts\)/);
  });

  it('a native transcript with bad lines keeps its input errors, line by line, as before', async () => {
    const dir = tempDir('ch-none-');
    const file = path.join(dir, 't.jsonl');
    fs.writeFileSync(file, 'not json\n{"type":"snapshot","session_id":"s","turn":1,"spans":[]}\n{"oops":1}\n');
    const r = await runCli(['check', '--json', file]);
    const out = JSON.parse(r.stdout) as CheckOutput;
    expect(out.input_errors.map((e) => e.line)).toEqual([1, 3]);
    expect(out.sessions).toHaveLength(1);
    // only broken wire lines: the report of input errors, not the sentence
    fs.writeFileSync(file, 'not json\n{"type":"snapshot","session_id":"s"}\n');
    const broken = await runCli(['check', '--json', file]);
    expect((JSON.parse(broken.stdout) as CheckOutput).input_errors).toHaveLength(2);
    expect(broken.stderr).toMatch(/holds no valid snapshot/);
    // forced --from wire: the lines are the product's, errors and all
    fs.writeFileSync(file, 'hello\nworld\n');
    expect((JSON.parse((await runCli(['check', '--json', '--from', 'wire', file])).stdout) as CheckOutput).input_errors).toHaveLength(2);
  });
});

describe('watch on a Gemini CLI session rewritten whole', () => {
  it('reads it again when it changes and sends only the new turns; the stored session analyses as check of the file', async () => {
    const relay = await testRelay();
    cleanup.push(() => relay.close());
    const dir = tempDir('ch-watch-gemini-');
    const chats = path.join(dir, 'tmp', '9c3e1f0a', 'chats');
    fs.mkdirSync(chats, { recursive: true });
    const file = path.join(chats, 'session-2026-01-14T10-01-5f1c2a9e.json');
    const doc = JSON.parse(fs.readFileSync(GEMINI, 'utf8')) as { messages: unknown[] };
    const statePath = path.join(dir, 'state.json');
    let watcher = startWatch({ paths: [path.join(dir, 'tmp')], url: relay.url, statePath, pollMs: 20 });
    // as chatRecordingService writes it: the whole conversation, pretty-printed, after each message
    for (let n = 1; n <= doc.messages.length; n++) {
      fs.writeFileSync(file, JSON.stringify({ ...doc, messages: doc.messages.slice(0, n) }, null, 2));
      await watcher.poll();
      if (n === 4) {
        // a restart half way: nothing is sent twice
        await watcher.stop();
        watcher = startWatch({ paths: [path.join(dir, 'tmp')], url: relay.url, statePath, pollMs: 20 });
      }
    }
    await watcher.poll();
    await watcher.stop();
    const stored = path.join(relay.dataDir, 'sessions', '5f1c2a9e-7b3d-4e21-9a0c-3d2b8e6f4a11.jsonl');
    const storedLines = fs.readFileSync(stored, 'utf8').trim().split('\n');
    expect(storedLines).toHaveLength(6); // the header and five snapshots, each once
    const viaRelay = await checkTranscript(stored, { userThresholds: {} });
    const whole = await checkTranscript(GEMINI, { userThresholds: {} });
    expect(viaRelay.report.sessions).toEqual(whole.report.sessions);
  });
});
