// `context-health serve` and `context-health replay` as a user runs them.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeSha256 } from '../../src/node/platform.ts';
import { demoScenario } from '../../src/server/demo.ts';
import type { Relay } from '../../src/server/relay.ts';
import { allFaults, simulateSession } from '../../src/sim/scenario.ts';
import { exited, Recorder, run, spawnServe, tempDir, testRelay, transcriptLines } from './helpers.ts';

const relays: Relay[] = [];
const children: { kill: (s: NodeJS.Signals) => boolean }[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  await Promise.all(relays.splice(0).map((r) => r.close()));
});

const CLI = ['bin/context-health.mjs'];

function simFile(turns: number, sessionId = 'sim'): { file: string; lines: string[] } {
  const lines = [...simulateSession({ seed: 11, sessionId, turns, spans: 30, faults: allFaults(Math.max(60, turns)) }, nodeSha256)].map((m) =>
    JSON.stringify(m),
  );
  const file = path.join(tempDir(), `${sessionId}.jsonl`);
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return { file, lines };
}

describe('replay', () => {
  it('streams a saved transcript into a running relay as a live session, with progress and a summary', async () => {
    const relay = await testRelay();
    relays.push(relay);
    const { file, lines } = simFile(120);
    const viewer = new Recorder(relay.url, 'sim');
    const r = await run(process.execPath, [...CLI, 'replay', file, '--url', relay.url, '--speed', 'max']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/replay: 120 turns sent, 121 messages acknowledged · [\d.]+ of [\d.]+ MB \(100%\)/);
    expect(r.stdout).toMatch(/as session "sim": 121 messages stored \(120 turns, 1–120\), 0 already there, 0 rejected/);
    // stored as the harness client sends it: the same JSON, non-ASCII escaped
    const stored = await transcriptLines(relay.url, 'sim');
    expect(stored.map((l) => JSON.parse(l) as unknown)).toEqual(lines.map((l) => JSON.parse(l) as unknown));
    expect(stored.every((l) => /^[\x20-\x7e]*$/.test(l))).toBe(true);
    await viewer.untilSeq(121);
    expect(viewer.seqs).toHaveLength(121);
    await viewer.close();
    // again: nothing new is stored, and the user is told how to watch it again
    const again = await run(process.execPath, [...CLI, 'replay', file, '--url', relay.url, '--speed', '0']);
    // (what it printed, should it reject a message: one CI run saw exit 1 here, never seen since)
    expect(again.code, `${again.stdout}\n${again.stderr}\n${relay.logs.slice(-20).join('\n')}`).toBe(0);
    expect(again.stdout).toMatch(/0 messages stored.*121 already there[\s\S]*--session sim-2/);
  });

  it('paces by ts scaled by --speed, and renames with --session', async () => {
    const relay = await testRelay();
    relays.push(relay);
    const { file } = simFile(21); // ts one second apart: 20 s of transcript
    const started = Date.now();
    const r = await run(process.execPath, [...CLI, 'replay', file, '--url', relay.url, '--speed', '40', '--session', 'renamed']);
    const took = Date.now() - started;
    expect(r.code).toBe(0);
    expect(took).toBeGreaterThan(450); // 20 s / 40
    const lines = await transcriptLines(relay.url, 'renamed');
    expect(lines).toHaveLength(22);
    expect(lines.every((l) => (JSON.parse(l) as { session_id: string }).session_id === 'renamed')).toBe(true);
  });

  it('exits 1 and lists the rejected lines with their numbers', async () => {
    const relay = await testRelay();
    relays.push(relay);
    const { lines } = simFile(5, 'bad');
    const file = path.join(tempDir(), 'bad.jsonl');
    fs.writeFileSync(file, [lines[0], lines[1], '{oops', lines[2], lines[1]!.replace('"turn":1', '"turn":0')].join('\n'));
    const r = await run(process.execPath, [...CLI, 'replay', file, '--url', relay.url, '--speed', 'max']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^line 3: not valid JSON/m);
    expect(r.stderr).toMatch(/^line 5: turn 0 of session "bad" does not increase/m);
    expect(r.stdout).toMatch(/3 messages stored \(2 turns, 1–2\), 0 already there, 2 rejected/);
  });

  it('exits 2 with a clear message when no relay is listening', async () => {
    const { file } = simFile(3);
    const port = await freePort();
    const r = await run(process.execPath, [...CLI, 'replay', file, '--url', `http://127.0.0.1:${port}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot reach the relay at http:\/\/127\.0\.0\.1:\d+\/: connection refused\. Start one with: context-health serve/);
  });
});

describe('serve', () => {
  it('runs the demo session live and continues it after a restart', async () => {
    const data = tempDir();
    const first = await spawnServe(['--port', '0', '--data', data, '--demo', '--demo-interval', '20', '--no-static']);
    children.push(first.child);
    expect(first.output()).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+\/ — open it in a browser/);
    const viewer = new Recorder(first.url, 'demo');
    await viewer.untilSeq(40);
    await viewer.close();
    const header = viewer.frames.find((f) => f.type === 'msg')!.data as { type: string; title: string };
    expect(header).toMatchObject({ type: 'session', title: 'Live demo: a simulated self-editing agent' });
    first.child.kill('SIGTERM');
    expect(await exited(first.child)).toBe(0);
    const before = fs
      .readFileSync(path.join(data, 'sessions', 'demo.jsonl'), 'utf8')
      .trim()
      .split('\n').length;

    const second = await spawnServe(['--port', '0', '--data', data, '--demo', '--demo-interval', '20', '--no-static']);
    children.push(second.child);
    const resumed = new Recorder(second.url, 'demo', before);
    await resumed.untilSeq(before + 20);
    await resumed.close();
    second.child.kill('SIGTERM');
    await exited(second.child);
    expect(second.output()).toMatch(new RegExp(`continuing the demo session after turn ${before - 1}`));
    expect(second.output()).not.toMatch(/refused a demo message/);
    // exactly what the generator makes uninterrupted: the restart left no seam
    const stored = fs
      .readFileSync(path.join(data, 'sessions', 'demo.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(stored.length).toBeGreaterThanOrEqual(before + 20);
    const startedAt = (JSON.parse(stored[0]!) as { started_at: string }).started_at;
    const expected: string[] = [];
    for (const m of simulateSession(demoScenario(startedAt), nodeSha256)) {
      expected.push(JSON.stringify(m));
      if (expected.length === stored.length) break;
    }
    expect(stored).toEqual(expected);
  });

  it('refuses to bind beyond loopback without a token, and starts with one from the environment', async () => {
    const r = await run(process.execPath, [...CLI, 'serve', '--host', '0.0.0.0', '--port', '0', '--data', tempDir()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/refusing to listen on 0\.0\.0\.0 without a token/);
    const s = await spawnServe(['--host', '0.0.0.0', '--port', '0', '--data', tempDir(), '--no-static'], { CONTEXT_HEALTH_TOKEN: 'tok' });
    children.push(s.child);
    expect(s.output()).toMatch(/token required/);
  });

  it('says so when the port is taken', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as net.AddressInfo).port;
    const r = await run(process.execPath, [...CLI, 'serve', '--port', String(port), '--data', tempDir()]);
    blocker.close();
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
  });
});

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
