// Harness side of the relay: NDJSON POST and WebSocket ingest, validation shared with the
// engine, ordering and retry rules, limits, the token, and refusing foreign pages.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startRelay } from '../../src/server/relay.ts';
import { generatedSession, postNdjson, relaysPerTest, snapshot, tempDir, transcriptLines, type IngestReply } from './helpers.ts';

const relay = relaysPerTest();

/** Opens an ingest socket and returns a function sending one frame and awaiting its reply. */
async function ingestSocket(url: string, query = ''): Promise<{ ws: WebSocket; send: (text: string) => Promise<Record<string, unknown>> }> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}api/ingest${query}`);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const replies: Record<string, unknown>[] = [];
  const waiting: ((r: Record<string, unknown>) => void)[] = [];
  ws.on('message', (d) => {
    const r = JSON.parse(String(d)) as Record<string, unknown>;
    const w = waiting.shift();
    if (w !== undefined) w(r);
    else replies.push(r);
  });
  return {
    ws,
    send: (text) =>
      new Promise((resolve) => {
        waiting.push(resolve);
        ws.send(text);
      }),
  };
}

describe('POST /api/ingest', () => {
  it('stores every valid line with a per-session seq and names each bad line with its reason', async () => {
    const r = await relay();
    const good = generatedSession('run-1', 3, 4);
    const other = generatedSession('run-2', 1, 2);
    const body = [
      good[0],
      good[1],
      'not json',
      '',
      other[0],
      '{"type":"snapshot","session_id":"run-1","turn":5,"spans":[{"span_id":"a","text":"t","score":NaN,"text_sha256":null}]}',
      good[2],
      '{"type":"note","session_id":"run-1"}',
      good[3],
      other[1],
    ].join('\n');
    const { status, json } = await postNdjson(r.url, body);
    expect(status).toBe(400);
    expect(json.accepted.map((a) => [a.line, a.session_id, a.seq, a.duplicate])).toEqual([
      [1, 'run-1', 1, false],
      [2, 'run-1', 2, false],
      [5, 'run-2', 1, false],
      [7, 'run-1', 3, false],
      [9, 'run-1', 4, false],
      [10, 'run-2', 2, false],
    ]);
    expect(json.errors.map((e) => e.line)).toEqual([3, 6, 8]);
    expect(json.errors[0]!.message).toMatch(/^not valid JSON/);
    expect(json.errors[1]!.message).toMatch(/NaN and Infinity are not JSON numbers/);
    expect(json.errors[2]!.message).toMatch(/type must be "session" or "snapshot"/);
    expect(await transcriptLines(r.url, 'run-1')).toEqual(good);
    const sessions = (await (await fetch(`${r.url}api/sessions`)).json()) as {
      sessions: { session_id: string; title: string; last_seq: number; last_turn: number }[];
    };
    expect(sessions.sessions.map((s) => [s.session_id, s.title, s.last_seq, s.last_turn])).toEqual([
      ['run-2', 'generated run-2', 2, 1],
      ['run-1', 'generated run-1', 4, 3],
    ]);
  });

  it('answers 200 when every line is accepted, and acknowledges a resent body as duplicates with the original seqs', async () => {
    const r = await relay();
    const body = generatedSession('s', 5).join('\n') + '\n';
    const first = await postNdjson(r.url, body);
    expect(first.status).toBe(200);
    const again = await postNdjson(r.url, body);
    expect(again.status).toBe(200);
    expect(again.json.accepted.map((a) => [a.seq, a.duplicate])).toEqual(first.json.accepted.map((a) => [a.seq, true]));
    expect(await transcriptLines(r.url, 's')).toHaveLength(6);
  });

  it('recognises a resent message with its keys in another order as a duplicate', async () => {
    const r = await relay();
    const snap = snapshot('k', 1, 3);
    await postNdjson(r.url, JSON.stringify(snap) + '\n' + JSON.stringify(snapshot('k', 2, 3)));
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(snap).reverse()));
    const { status, json } = await postNdjson(r.url, reordered);
    expect(status).toBe(200);
    expect(json.accepted[0]).toMatchObject({ seq: 1, duplicate: true, turn: 1 });
  });

  it('refuses a turn that does not increase unless it is a copy, and a header after the first snapshot', async () => {
    const r = await relay();
    await postNdjson(r.url, [JSON.stringify(snapshot('o', 5, 2)), JSON.stringify(snapshot('o', 6, 2))].join('\n'));
    const { json } = await postNdjson(
      r.url,
      [JSON.stringify(snapshot('o', 4, 3)), JSON.stringify({ type: 'session', session_id: 'o' }), JSON.stringify(snapshot('o', 7, 2))].join('\n'),
    );
    expect(json.errors).toEqual([
      { line: 1, session_id: 'o', message: expect.stringMatching(/turn 4 of session "o" does not increase \(the last stored snapshot is turn 6\)/) },
      { line: 2, session_id: 'o', message: 'a session header for "o" must come before its first snapshot' },
    ]);
    expect(json.accepted).toEqual([{ line: 3, session_id: 'o', seq: 3, turn: 7, duplicate: false, verdict: expect.objectContaining({ turn: 7 }) }]);
  });

  it('takes gzip bodies and CRLF line ends', async () => {
    const r = await relay();
    const { gzipSync } = await import('node:zlib');
    const res = await fetch(`${r.url}api/ingest`, {
      method: 'POST',
      body: gzipSync(generatedSession('gz', 3).join('\r\n')),
      headers: { 'content-encoding': 'gzip' },
    });
    expect(res.status).toBe(200);
    expect(await transcriptLines(r.url, 'gz')).toEqual(generatedSession('gz', 3));
  });
});

describe('WebSocket /api/ingest', () => {
  it('acks every frame in order, answers a bad frame with an error naming it, and keeps the connection', async () => {
    const r = await relay();
    const { ws, send } = await ingestSocket(r.url);
    const lines = generatedSession('w', 4);
    // contract §7: a header's ack has no verdict (null), a snapshot's has its turn's
    expect(await send(lines[0]!)).toEqual({ type: 'ack', frame: 1, session_id: 'w', seq: 1, turn: null, duplicate: false, verdict: null });
    expect(await send(lines[1]!)).toEqual({
      type: 'ack',
      frame: 2,
      session_id: 'w',
      seq: 2,
      turn: 1,
      duplicate: false,
      verdict: expect.objectContaining({ turn: 1 }),
    });
    expect(
      await send(
        '{"type":"snapshot","session_id":"w","turn":2,"spans":[{"span_id":"a","text":"x","score":1,"text_sha256":null},{"span_id":"a","text":"y","score":1,"text_sha256":null}]}',
      ),
    ).toEqual({
      type: 'error',
      frame: 3,
      session_id: 'w',
      message: 'span 1 repeats span_id "a": span ids must be unique within a snapshot',
    });
    expect(await send('')).toMatchObject({ type: 'error', frame: 4 });
    expect(await send(lines[2]!)).toMatchObject({ type: 'ack', frame: 5, seq: 3, turn: 2 });
    expect(await send(lines[1]!)).toMatchObject({ type: 'ack', frame: 6, seq: 2, turn: 1, duplicate: true });
    // a pretty-printed frame is stored as one line
    const pretty = JSON.stringify(JSON.parse(lines[4]!), null, 2);
    expect(await send(pretty)).toMatchObject({ type: 'ack', frame: 7, seq: 4, turn: 4 });
    expect(ws.readyState).toBe(WebSocket.OPEN);
    ws.close();
    expect(await transcriptLines(r.url, 'w')).toEqual([lines[0], lines[1], lines[2], JSON.stringify(JSON.parse(lines[4]!))]);
  });
});

describe('retries', () => {
  it('recognises a resent turn among the last 1024 messages, also after a restart, and names the window beyond it', async () => {
    const dataDir = tempDir();
    const lines = generatedSession('long', 1500, 1, 20);
    const first = await startRelay({ port: 0, host: '127.0.0.1', dataDir, distDir: null, log: () => {} });
    expect((await postNdjson(first.url, lines.join('\n'))).status).toBe(200);
    const resend = async (url: string, turn: number): Promise<IngestReply> => (await postNdjson(url, lines[turn]!)).json;
    expect((await resend(first.url, 1400)).accepted[0]).toMatchObject({ seq: 1401, duplicate: true });
    await first.close();
    const second = await relay({ dataDir });
    for (const turn of [1500, 1499, 1000, 477]) expect((await resend(second.url, turn)).accepted[0]).toMatchObject({ seq: turn + 1, turn, duplicate: true });
    const old = await resend(second.url, 100);
    expect(old.errors[0]!.message).toMatch(
      /turn 100 of session "long" does not increase \(the last stored snapshot is turn 1500\), and it is not a copy of a stored snapshot \(retries are recognised among the last 1024 messages\)/,
    );
    const changed = JSON.stringify({ ...(JSON.parse(lines[1490]!) as object), pruned: ['x'] });
    expect((await postNdjson(second.url, changed)).json.errors[0]!.message).toMatch(/turn 1490 .* does not increase/);
    expect(await transcriptLines(second.url, 'long')).toHaveLength(1501);
  });
});

describe('ordering', () => {
  it('keeps arrival order when large messages are validated on a worker thread and small ones inline', async () => {
    const r = await relay({ validatorThreads: 2 });
    // alternate ~40 KB snapshots (worker) with tiny ones (inline), in one body and on one socket
    const lines: string[] = [];
    for (let t = 1; t <= 60; t++) lines.push(JSON.stringify(snapshot('mix', t, t % 2 === 0 ? 40 : 1, t % 2 === 0 ? 1000 : 10)));
    const bad =
      '{"type":"snapshot","session_id":"mix","turn":1000,"spans":[{"span_id":"a","text":"' + 'x'.repeat(40_000) + '","score":"high","text_sha256":null}]}';
    const { json } = await postNdjson(r.url, [...lines.slice(0, 30), bad, ...lines.slice(30, 40)].join('\n'));
    expect(json.accepted.map((a) => a.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(json.errors).toEqual([{ line: 31, session_id: 'mix', message: expect.stringMatching(/span 0 \("a"\) score must be a finite number/) }]);
    const { ws, send } = await ingestSocket(r.url);
    const replies = await Promise.all(lines.slice(40).map((l) => send(l)));
    expect(replies.map((x) => [x.frame, x.seq])).toEqual(lines.slice(40).map((_, i) => [i + 1, 41 + i]));
    ws.close();
    expect((await transcriptLines(r.url, 'mix')).map((l) => (JSON.parse(l) as { turn: number }).turn)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
  });
});

describe('limits', () => {
  it('refuses an oversized message, too many spans, and one session too many, each with a clear error, and goes on', async () => {
    const r = await relay({ limits: { maxMessageBytes: 4096, maxSpansPerSnapshot: 10, maxSessions: 2 } });
    const { send } = await ingestSocket(r.url);
    const big = JSON.stringify(snapshot('a', 1, 5, 2000));
    expect(await send(big)).toMatchObject({
      type: 'error',
      frame: 1,
      message: expect.stringMatching(/^the message is \d+ bytes; this relay accepts at most 4096 bytes per message \(--max-message-bytes\)$/),
    });
    expect(await send(JSON.stringify(snapshot('a', 1, 11, 10)))).toMatchObject({
      type: 'error',
      message: 'the snapshot has 11 spans; this relay accepts at most 10 per snapshot (--max-spans)',
    });
    expect(await send(JSON.stringify(snapshot('a', 1, 10, 10)))).toMatchObject({ type: 'ack', seq: 1 });
    expect(await send(JSON.stringify(snapshot('b', 1, 1, 10)))).toMatchObject({ type: 'ack', seq: 1 });
    expect(await send(JSON.stringify(snapshot('c', 1, 1, 10)))).toMatchObject({
      type: 'error',
      message: expect.stringMatching(/already holds 2 sessions, its limit \(--max-sessions\)/),
    });
    expect(await send(JSON.stringify(snapshot('a', 2, 1, 10)))).toMatchObject({ type: 'ack', seq: 2 });
    // an NDJSON line over the limit is named, and the lines around it are stored
    const body = [JSON.stringify(snapshot('b', 2, 1, 10)), big, JSON.stringify(snapshot('b', 3, 1, 10))].join('\n');
    const { status, json } = await postNdjson(r.url, body);
    expect(status).toBe(400);
    expect(json.errors).toEqual([{ line: 2, message: 'the line is longer than 4096 bytes, the most this relay accepts per message (--max-message-bytes)' }]);
    expect(json.accepted.map((a) => a.seq)).toEqual([2, 3]);
  });

  it('frees a session slot when a session is deleted', async () => {
    const r = await relay({ limits: { maxSessions: 1 } });
    await postNdjson(r.url, JSON.stringify(snapshot('a', 1, 1)));
    expect((await postNdjson(r.url, JSON.stringify(snapshot('b', 1, 1)))).status).toBe(400);
    expect((await fetch(`${r.url}api/sessions/a`, { method: 'DELETE' })).status).toBe(200);
    expect(fs.existsSync(path.join(r.dataDir, 'sessions', 'a.jsonl'))).toBe(false);
    expect((await postNdjson(r.url, JSON.stringify(snapshot('b', 1, 1)))).status).toBe(200);
  });
});

describe('token and origin', () => {
  it('requires the token for ingest over HTTP and WebSocket, not for reading', async () => {
    const r = await relay({ token: 's3cret' });
    const line = JSON.stringify(snapshot('t', 1, 1));
    expect((await postNdjson(r.url, line)).status).toBe(401);
    expect((await postNdjson(r.url, line, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await postNdjson(r.url, line, { authorization: 'Bearer s3cret' })).status).toBe(200);
    const refused = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${r.url.replace('http', 'ws')}api/ingest`);
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('error', () => {});
    });
    expect(refused).toBe(401);
    const { send } = await ingestSocket(r.url, '?token=s3cret');
    expect(await send(JSON.stringify(snapshot('t', 2, 1)))).toMatchObject({ type: 'ack', seq: 2 });
    expect((await fetch(`${r.url}api/sessions`)).status).toBe(200);
    expect((await fetch(`${r.url}api/sessions/t`, { method: 'DELETE' })).status).toBe(401);
  });

  it('refuses to listen beyond loopback without a token', async () => {
    await expect(startRelay({ port: 0, host: '0.0.0.0', dataDir: tempDir(), distDir: null, log: () => {} })).rejects.toThrow(
      /refusing to listen on 0\.0\.0\.0 without a token/,
    );
  });

  it('refuses another site’s page (Origin) and a rebound host name (Host)', async () => {
    const r = await relay();
    const line = JSON.stringify(snapshot('x', 1, 1));
    const foreign = await postNdjson(r.url, line, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    const local = await postNdjson(r.url, line, { origin: r.url.slice(0, -1) });
    expect(local.status).toBe(200);
    const http = await import('node:http');
    const status = await new Promise<number>((resolve) => {
      http.get(`${r.url}api/sessions`, { headers: { host: 'evil.example:80' } }, (res) => resolve(res.statusCode ?? 0));
    });
    expect(status).toBe(403);
  });

  it('allows one relay per data directory', async () => {
    const r = await relay();
    await expect(startRelay({ port: 0, host: '127.0.0.1', dataDir: r.dataDir, distDir: null, log: () => {} })).rejects.toThrow(/data directory/);
  });
});

describe('static dashboard', () => {
  it('says plainly on / when the dashboard is not built, and serves dist/ with the SPA fallback when it is', async () => {
    const dist = tempDir('ch-dist-');
    const r1 = await relay({ distDir: path.join(dist, 'missing') });
    const page = await fetch(r1.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/dashboard has not been built[\s\S]*npm run build/);
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>app</title>');
    fs.writeFileSync(path.join(dist, 'assets', 'a-123.js'), 'console.log(1)');
    const r2 = await relay({ distDir: dist });
    expect(await (await fetch(r2.url)).text()).toContain('<title>app</title>');
    expect(await (await fetch(`${r2.url}sessions/run-42`)).text()).toContain('<title>app</title>');
    const asset = await fetch(`${r2.url}assets/a-123.js`);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('cache-control')).toMatch(/immutable/);
    expect((await fetch(`${r2.url}assets/missing.js`)).status).toBe(404);
    // a path that climbs out of dist/ stays inside it (and falls back to the app)
    expect(await (await fetch(`${r2.url}..%2f..%2f..%2fetc%2fpasswd`)).text()).toContain('<title>app</title>');
  });
});
