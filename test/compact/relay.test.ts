// contract §7 compact wire through the relay: the clients leave unchanged texts out, the
// relay stores the compact form and judges every left-out text against the session's
// previous snapshot (also after a restart, rebuilt from its log), the first new snapshot
// after a reconnect is whole, and the stored log analyses exactly as the whole session.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HarnessClient } from '../../src/client/harness.ts';
import { Engine } from '../../src/core/engine.ts';
import { CheckOutputBuilder, type CheckOutput } from '../../src/core/checkOutput.ts';
import { nodeSha256 } from '../../src/node/platform.ts';
import type { Relay } from '../../src/server/relay.ts';
import { postNdjson, ROOT, run, tempDir, testRelay, transcriptLines } from '../relay/helpers.ts';

const relays: Relay[] = [];
const servers: net.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) s.close();
  await Promise.all(relays.splice(0).map((r) => r.close()));
});

/** A session whose texts mostly stay: span i is rewritten every (i + 2) turns. */
function stableSnapshot(sid: string, turn: number, spans = 12): Record<string, unknown> {
  const list = [];
  for (let i = 0; i < spans; i++) {
    const text = `span ${i} version ${Math.floor(turn / (i + 2))} ` + 'y'.repeat(200);
    list.push({ span_id: `s${i}`, text, score: ((i * 37 + turn) % 100) / 100, text_sha256: nodeSha256(text), pinned: i === 0 });
  }
  return { type: 'snapshot', session_id: sid, turn, spans: list };
}

function analyse(lines: readonly string[]): CheckOutput {
  const engine = new Engine({ sha256: nodeSha256 });
  const report = new CheckOutputBuilder();
  lines.forEach((l, i) => report.add(engine.ingestLine(l, i + 1)));
  return report.build();
}

/** A TCP forwarder whose target can change, and whose connections can be cut. */
async function proxy(target: { port: number }): Promise<{ url: string; cut: () => void }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/`,
    cut: () => {
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
  };
}

describe('compact wire through the relay (contract §7)', () => {
  it('TypeScript client: compact on the wire and in the log, whole after a relay restart, analysed as the whole session', async () => {
    const dataDir = tempDir();
    const r1 = await testRelay({ dataDir });
    const target = { port: r1.port };
    const p = await proxy(target);
    const client = new HarnessClient({ url: p.url, initialBackoffMs: 10, maxBackoffMs: 50 });
    const whole: string[] = [];
    const header = await client.session('c', { title: 'compact' });
    expect(header.seq).toBe(1);
    for (let t = 1; t <= 30; t++) {
      const s = stableSnapshot('c', t);
      whole.push(JSON.stringify(s));
      await client.send(JSON.stringify(s));
    }
    await r1.close();
    relays.push((await testRelay({ dataDir })) as Relay);
    target.port = relays[0]!.port;
    p.cut();
    for (let t = 31; t <= 40; t++) {
      const s = stableSnapshot('c', t);
      whole.push(JSON.stringify(s));
      await expect(client.send(JSON.stringify(s))).resolves.toMatchObject({ turn: t, duplicate: false });
    }
    await client.close();

    const stored = await transcriptLines(relays[0]!.url, 'c');
    expect(stored).toHaveLength(41);
    expect(JSON.parse(stored[0]!)).toMatchObject({ type: 'session', wire: '1.1' });
    const based = stored.slice(1).map((l) => (JSON.parse(l) as { base_turn?: number }).base_turn);
    // turn 1 and the first turn after the reconnect are whole; every other names its previous turn
    expect(based).toEqual(Array.from({ length: 40 }, (_, i) => (i === 0 || i === 30 ? undefined : i)));
    const storedBytes = stored.slice(2, 31).join('\n').length;
    const wholeBytes = whole.slice(1, 30).join('\n').length;
    expect(storedBytes).toBeLessThan(wholeBytes / 2);
    expect(analyse(stored).sessions).toEqual(analyse([stored[0]!, ...whole]).sessions);
    expect(analyse(stored).input_errors).toEqual([]);

    // the export and replay can expand it: every snapshot whole again
    const res = await fetch(`${relays[0]!.url}api/sessions/c/transcript?expand=1`);
    const expanded = (await res.text()).replace(/\n$/, '').split('\n');
    expect(expanded.slice(1).map((l) => JSON.parse(l) as unknown)).toEqual(whole.map((l) => JSON.parse(l) as unknown));
  });

  it('the relay judges left-out texts against the previous snapshot, also rebuilt after a restart', async () => {
    const dataDir = tempDir();
    const r1 = await testRelay({ dataDir });
    const line = (v: object): string => JSON.stringify(v) + '\n';
    const span = (id: string, text?: string): object => ({ span_id: id, ...(text === undefined ? {} : { text }), score: 0.5, text_sha256: null });
    const snap = (sid: string, turn: number, spans: object[], base?: number): object => ({
      type: 'snapshot',
      session_id: sid,
      turn,
      ...(base === undefined ? {} : { base_turn: base }),
      spans,
    });
    let r = await postNdjson(
      r1.url,
      line({ type: 'session', session_id: 'k', wire: '1.1' }) +
        line(snap('k', 1, [span('a')], 0)) +
        line(snap('k', 1, [span('a', 'A'), span('b', 'B')])) +
        line(snap('k', 2, [span('a'), span('b', 'B2')], 1)) +
        line(snap('k', 3, [span('a'), span('c')], 2)) +
        line(snap('k', 3, [span('a'), span('b')], 1)) +
        line(snap('v', 1, [span('a', 'A')])) +
        line(snap('v', 2, [span('a')], 1)),
    );
    expect(r.status).toBe(400);
    expect(r.json.errors.map((e) => e.line)).toEqual([2, 5, 6, 8]);
    expect(r.json.errors[0]!.message).toMatch(/turn 1: span 0 \("a"\) leaves out its text, but session "k" has no previous snapshot/);
    expect(r.json.errors[1]!.message).toMatch(
      /turn 3: span 1 \("c"\) leaves out its text, but the previous snapshot \(turn 2\) of session "k" has no span of that id/,
    );
    expect(r.json.errors[2]!.message).toMatch(/its base_turn is 1 while the previous snapshot of session "k" is turn 2/);
    // a session that did not declare the compact wire: the version-1 error
    expect(r.json.errors[3]!.message).toBe('span 0 ("a") text is required but missing');
    // a resent copy of the last (compact) snapshot is a retry, acknowledged with its seq
    r = await postNdjson(r1.url, line(snap('k', 2, [span('a'), span('b', 'B2')], 1)));
    expect(r.json.accepted[0]).toMatchObject({ seq: 3, duplicate: true });
    await r1.close();

    const r2 = await testRelay({ dataDir });
    relays.push(r2);
    r = await postNdjson(r2.url, line(snap('k', 3, [span('a'), span('b'), span('n', 'N')], 2)) + line(snap('k', 4, [span('a'), span('x')], 3)));
    expect(r.json.accepted.map((a) => a.seq)).toEqual([4]);
    expect(r.json.errors[0]!.message).toMatch(/span 1 \("x"\) leaves out its text, but the previous snapshot \(turn 3\)/);
    const stored = await transcriptLines(r2.url, 'k');
    const report = analyse(stored);
    expect(report.input_errors).toEqual([]);
    expect(report.sessions[0]!.turns).toBe(3);
  });

  it('Python client: leaves unchanged texts out; the log analyses as the whole session', async () => {
    const relay = await testRelay();
    relays.push(relay);
    const whole = [JSON.stringify({ type: 'session', session_id: 'py', wire: '1.1' })];
    for (let t = 1; t <= 25; t++) whole.push(JSON.stringify(stableSnapshot('py', t)));
    const file = path.join(tempDir(), 'session.jsonl');
    fs.writeFileSync(file, whole.join('\n') + '\n');
    const r = await run('python3', [path.join(ROOT, 'test/relay/stream_file.py'), relay.url, file]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const stored = await transcriptLines(relay.url, 'py');
    expect(stored.slice(2).every((l) => l.includes('"base_turn"'))).toBe(true);
    expect(stored.join('\n').length).toBeLessThan(whole.join('\n').length / 2);
    expect(analyse(stored).sessions).toEqual(analyse(whole).sessions);
  });
});

describe('Python client, compact wire without a relay', () => {
  it('sends whole after a request it had to resend, and after a rejected snapshot; compares strings, not hashes', async () => {
    // _post is replaced: every line is acknowledged, except that the 4th request "needed a
    // retry" (a dropped connection) and the 6th request's line is rejected
    const code = `
import json, sys; sys.path.insert(0, "clients/python")
from context_health_client import RelayClient, RelayRejected
c = RelayClient("http://127.0.0.1:1")
sent = []
calls = [0]
def post(body):
    calls[0] += 1
    lines = body.decode().strip().split("\\n")
    sent.append([json.loads(l) for l in lines])
    if calls[0] == 4:
        c.retries += 1
    if calls[0] == 6:
        return {"accepted": [], "errors": [{"line": 1, "message": "no"}]}
    return {"accepted": [{"line": i + 1, "session_id": "p", "seq": calls[0], "turn": None} for i in range(len(lines))], "errors": []}
c._post = post
run = c.session("p")
for t in range(1, 8):
    spans = [{"span_id": "a", "text": "same", "score": 0.5, "text_sha256": None},
             {"span_id": "b", "text": "v%d" % (t // 3), "score": 0.5, "text_sha256": "kept-old-hash"}]
    try:
        run.snapshot(spans)
    except RelayRejected:
        pass
print(json.dumps([[sorted(k for k in m if k in ("base_turn",)) + [("text" in s) for s in m.get("spans", [])] for m in req] for req in sent]))
`;
    const r = await run('python3', ['-c', code]);
    expect(r.stderr).toBe('');
    const perRequest = JSON.parse(r.stdout) as (string | boolean)[][][];
    // request 1: the header (declares 1.1); then turns 1..7
    expect(perRequest[0]).toEqual([[]]);
    expect(perRequest.slice(1).map((req) => req[0])).toEqual([
      [true, true], // turn 1: nothing sent before
      ['base_turn', false, false], // turn 2: both unchanged
      ['base_turn', false, true], // turn 3: b rewritten (its hash kept: still sent); this request was resent
      [true, true], // turn 4: whole after the resend
      ['base_turn', false, false], // turn 5: rejected by the relay
      [true, true], // turn 6: whole after the rejection
      ['base_turn', false, false], // turn 7: both unchanged
    ]);
  });
});
