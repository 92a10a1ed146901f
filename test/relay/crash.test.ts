// A relay killed with SIGKILL mid-stream and restarted on the same data directory serves
// every message it acknowledged; the harness client resends what it holds no ack for,
// and the relay's retry rule keeps the log free of duplicates.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { HarnessClient, type Ack } from '../../src/client/harness.ts';
import { exited, Recorder, snapshot, spawnServe, tempDir, transcriptLines } from './helpers.ts';

const children: { kill: (s: NodeJS.Signals) => boolean }[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

it('keeps every acknowledged message across SIGKILL and restart, with no duplicate after the client resends', async () => {
  const dataDir = tempDir();
  const first = await spawnServe(['--port', '0', '--data', dataDir, '--no-static']);
  children.push(first.child);
  const port = new URL(first.url).port;
  const acks = new Map<number, Ack>();
  let statuses = 0;
  const client = new HarnessClient({
    url: first.url,
    maxInFlight: 16,
    initialBackoffMs: 50,
    maxBackoffMs: 200,
    onStatus: (s) => s === 'retrying' && statuses++,
  });
  const total = 1500;
  const sending = (async () => {
    await client.session('crash', { title: 'killed mid-stream' });
    const inFlight: Promise<void>[] = [];
    for (let t = 1; t <= total; t++) {
      inFlight.push(client.snapshot(snapshot('crash', t, 20, 200) as never).then((a) => void acks.set(t, a)));
      if (inFlight.length >= 16) await inFlight.shift();
    }
    await Promise.all(inFlight);
  })();
  const viewer = new Recorder(first.url, 'crash');
  await viewer.untilSeq(300);
  first.child.kill('SIGKILL');
  await exited(first.child);
  const ackedBeforeKill = new Map(acks);
  // the client holds at most maxInFlight (16) unacknowledged: every snapshot stored but those
  // is acknowledged (an ack waits for its verdict, from an analysis thread by default)
  expect(ackedBeforeKill.size).toBeGreaterThanOrEqual(299 - 16);

  // everything acknowledged is in the log, at the line of its seq
  const log = fs.readFileSync(path.join(dataDir, 'sessions', 'crash.jsonl'), 'utf8').split('\n');
  for (const [turn, ack] of ackedBeforeKill) expect((JSON.parse(log[ack.seq - 1]!) as { turn: number }).turn).toBe(turn);

  const second = await spawnServe(['--port', port, '--data', dataDir, '--no-static']);
  children.push(second.child);
  await sending;
  await client.close();
  expect(statuses).toBeGreaterThan(0);

  const lines = await transcriptLines(second.url, 'crash');
  expect(lines).toHaveLength(total + 1);
  expect(lines.map((l) => (JSON.parse(l) as { turn?: number }).turn ?? 0)).toEqual(Array.from({ length: total + 1 }, (_, i) => i));
  for (const [turn, ack] of acks) expect((JSON.parse(lines[ack.seq - 1]!) as { turn: number }).turn).toBe(turn);
  // acks given before the kill kept their seq
  for (const [turn, ack] of ackedBeforeKill) expect(acks.get(turn)!.seq).toBe(ack.seq);

  // the viewer resumes from the last seq it processed on the restarted relay
  const resumed = new Recorder(second.url, 'crash', viewer.lastSeq);
  await resumed.untilSeq(total + 1);
  expect([...viewer.seqs, ...resumed.seqs]).toEqual(Array.from({ length: total + 1 }, (_, i) => i + 1));
  await resumed.close();
  second.child.kill('SIGTERM');
  expect(await exited(second.child)).toBe(0);
});

it('drops a torn last line left by a crash (it was never acknowledged) and goes on', async () => {
  const dataDir = tempDir();
  fs.mkdirSync(path.join(dataDir, 'sessions'), { recursive: true });
  const good = [JSON.stringify(snapshot('torn', 1, 2)), JSON.stringify(snapshot('torn', 2, 2))];
  fs.writeFileSync(path.join(dataDir, 'sessions', 'torn.jsonl'), good.join('\n') + '\n' + JSON.stringify(snapshot('torn', 3, 2)).slice(0, 50));
  const s = await spawnServe(['--port', '0', '--data', dataDir, '--no-static']);
  children.push(s.child);
  expect(s.output()).toMatch(/removed an incomplete last line/);
  expect(await transcriptLines(s.url, 'torn')).toEqual(good);
  const client = new HarnessClient({ url: s.url });
  expect(await client.snapshot(snapshot('torn', 3, 2) as never)).toMatchObject({ seq: 3, duplicate: false });
  expect(await client.snapshot(snapshot('torn', 2, 2) as never)).toMatchObject({ seq: 2, duplicate: true });
  await client.close();
});
