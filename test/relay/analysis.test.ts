// The relay's analysis (contract §7 verdict in the acknowledgement): every sample transcript
// streamed through the real relay gets, in each snapshot's ack, exactly the verdict that
// `context-health check --json` gives that turn, over NDJSON and over the WebSocket, for
// retries, and after a restart (the analysis rebuilt from the stored logs).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { HarnessClient, type Ack } from '../../src/client/harness.ts';
import type { AckVerdict, Overview } from '../../src/protocol/relay.ts';
import { VERDICT_MEMORY } from '../../src/server/analysis/sessionHealth.ts';
import { checkVerdicts } from './expectations.ts';
import { ROOT, relaysPerTest, tempDir } from './helpers.ts';

const relay = relaysPerTest();
const SAMPLES = path.join(ROOT, 'public/samples');
const samples = fs.readdirSync(SAMPLES).filter((f) => f.endsWith('.jsonl'));

/** `check --json`'s verdicts by (session, turn); check itself must not fail on the sample. */
async function expectedVerdicts(file: string): Promise<Map<string, AckVerdict>> {
  const { byTurn, stderr } = await checkVerdicts(file);
  expect(stderr).not.toMatch(/Error/);
  return byTurn;
}

interface Accepted {
  line: number;
  seq: number;
  session_id: string;
  turn: number | null;
  duplicate: boolean;
  verdict?: AckVerdict | null;
}

async function post(url: string, body: Buffer, gzip = false): Promise<Accepted[]> {
  const res = await fetch(`${url}api/ingest`, {
    method: 'POST',
    body: new Uint8Array(gzip ? zlib.gzipSync(body) : body),
    headers: gzip ? { 'content-encoding': 'gzip' } : {},
  });
  return ((await res.json()) as { accepted: Accepted[] }).accepted;
}

/** `remembered(a)`: whether the relay still holds that message's verdict (a retry of one older than VERDICT_MEMORY gets null). */
function compare(accepted: Accepted[], expected: Map<string, AckVerdict>, remembered: (a: Accepted) => boolean = () => true): number {
  let snapshots = 0;
  for (const a of accepted) {
    if (a.turn === null) {
      expect(a.verdict).toBeNull();
      continue;
    }
    snapshots++;
    const want = remembered(a) ? expected.get(`${a.session_id}\u0000${a.turn}`) : null;
    expect({ line: a.line, verdict: a.verdict }).toEqual({ line: a.line, verdict: want });
  }
  return snapshots;
}

describe('the verdict in the ack', () => {
  it.each(samples)('%s: each snapshot is acked with check --json’s verdict of that turn, and a retry with the same', async (name) => {
    const file = path.join(SAMPLES, name);
    const expected = await expectedVerdicts(file);
    const r = await relay();
    const body = fs.readFileSync(file);
    const first = await post(r.url, body);
    const n = compare(first, expected);
    expect(n).toBe(expected.size);
    expect(first.every((a) => !a.duplicate)).toBe(true);
    // the same lines again (gzip-compressed): each a retry, re-acked with its verdict
    const again = await post(r.url, body, true);
    expect(again.length).toBe(first.length);
    expect(again.every((a) => a.duplicate)).toBe(true);
    const lastSeq = new Map<string, number>();
    for (const a of first) lastSeq.set(a.session_id, Math.max(a.seq, lastSeq.get(a.session_id) ?? 0));
    compare(again, expected, (a) => a.seq > lastSeq.get(a.session_id)! - VERDICT_MEMORY);
    expect(again.filter((a) => a.turn !== null && a.verdict !== null).length).toBeGreaterThan(0);
  });

  it('over the WebSocket: send() resolves with the verdict, onVerdict sees every one in order, and a restart rebuilds the analysis', async () => {
    const file = path.join(SAMPLES, 'all-faults.jsonl');
    const expected = await expectedVerdicts(file);
    const lines = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
    const dataDir = tempDir();
    const half = Math.floor(lines.length / 2);
    const seen: AckVerdict[] = [];
    const check = (acks: Ack[]): void => {
      for (const a of acks) {
        if (a.turn === null) expect(a.verdict).toBeNull();
        else expect(a.verdict).toEqual(expected.get(`${a.sessionId}\u0000${a.turn}`));
      }
    };
    let r = await relay({ dataDir });
    let client = new HarnessClient({ url: r.url, onVerdict: (v) => seen.push(v) });
    check(await Promise.all(lines.slice(0, half).map((l) => client.send(l))));
    await client.close();
    await r.close();
    // a restarted relay re-reads the stored log, then analyses what follows as if it had never stopped
    r = await relay({ dataDir });
    client = new HarnessClient({ url: r.url, onVerdict: (v) => seen.push(v) });
    const rest = await Promise.all(lines.slice(half - 3).map((l) => client.send(l)));
    expect(rest.slice(0, 3).every((a) => a.duplicate)).toBe(true);
    check(rest);
    await client.close();
    const turnsExpected = [...expected.values()].length;
    // onVerdict: every snapshot once, plus the three retried across the restart
    expect(seen.length).toBe(turnsExpected + rest.slice(0, 3).filter((a) => a.turn !== null).length);
    const overview = (await (await fetch(`${r.url}api/overview`)).json()) as Overview;
    expect(overview.analysis).toBe(true);
    const s = overview.sessions.find((x) => x.session_id === 'all-faults')!;
    expect(s.turns).toBe(turnsExpected);
    expect(s.analysed).toBe(true);
  });

  it('with --no-analysis the ack has no verdict and there is no overview channel', async () => {
    const r = await relay({ analysis: false });
    const acks = await post(r.url, fs.readFileSync(path.join(SAMPLES, 'healthy.jsonl')));
    expect(acks.length).toBeGreaterThan(1);
    expect(acks.every((a) => !('verdict' in a))).toBe(true);
    const overview = (await (await fetch(`${r.url}api/overview`)).json()) as Overview;
    expect(overview).toEqual({ sessions: [], alerts: [], analysis: false });
  });
});
