// Issue 26, risky: a client that half-closes its side after its POST got no answer,
// although the message was stored.
import net from 'node:net';
import { expect, it } from 'vitest';
import { generatedSession, relaysPerTest, transcriptLines } from '../relay/helpers.ts';

const relay = relaysPerTest();

it('a POST followed by a half-close gets its answer', async () => {
  // with the analysis each ack waits for its verdict: the answer comes well after the FIN
  const r = await relay({ analysisThreads: 1 });
  const body = generatedSession('half', 40, 200).join('\n') + '\n';
  const socket = net.connect(r.port, '127.0.0.1');
  await new Promise((res) => socket.once('connect', res));
  let answer = '';
  socket.on('data', (c: Buffer) => (answer += c.toString()));
  const closed = new Promise((res) => socket.once('close', res));
  socket.end(`POST /api/ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-ndjson\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  await Promise.race([closed, new Promise((res) => setTimeout(res, 5000))]);
  expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  expect(answer).toContain('"accepted"');
  expect(await transcriptLines(r.url, 'half')).toHaveLength(41);
});
