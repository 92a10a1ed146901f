// Issue 39, bounded amplification: "OTLP decoding memory ≤ 4× the request body per request".
// A GenAI export (each span's prompts and completions in gen_ai.* attributes or events) grew
// the relay ~10× its body: every call's messages were held as objects on the decode thread,
// cloned to the event loop (a second copy), then every snapshot and its JSON were built at
// once before any was stored. These tests measure what is HELD (after a forced collection,
// never heapUsed without one) and COUNT what is handed to the relay unanswered; the peak RSS
// figures are `npm run bench -- otlp-memory`'s.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareExport } from '../../src/ingest/adapters/otlp/adapter.ts';
import type { Ingest, IngestResult } from '../../src/server/ingest.ts';
import { decodeExport, type Decoded } from '../../src/server/otlp/decoding.ts';
import { EventPacker, unpack } from '../../src/server/otlp/packedEvents.ts';
import type { ModelCall, Retrieval } from '../../src/ingest/adapters/otlp/conventions.ts';
import { decodeTraceRequest } from '../../src/server/otlp/protobuf.ts';
import { OtlpReceiver } from '../../src/server/otlp/receiver.ts';
import type { AccessPolicy } from '../../src/server/accessPolicy.ts';
import { otlpExport, SHAPES } from '../../bench/otlpMemory.ts';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** bytes the heap and array buffers hold after full collections */
function held(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

const SPANS = 2000;

describe('an OTLP export decoded is held in about its own size', () => {
  it.each(['protobuf', 'json'] as const)('over OTLP/%s, each shape: what crosses to the event loop holds ≤ 2× the body', (encoding) => {
    for (const shape of SHAPES) {
      const body = otlpExport(shape, SPANS, encoding);
      const before = held();
      let decoded: Decoded | null = decodeExport({ body, encoding, gzip: false, maxBytes: 1 << 30, maxSpans: 1e9 });
      const after = held();
      if (!decoded.ok) throw new Error(decoded.message);
      // the mapping did happen: every model call is an event
      expect(decoded.prepared.events.length).toBe(SPANS);
      // the events as objects (what was held before, and cloned across threads) were 2.8–3× the body
      const ratio = (after - before) / body.length;
      expect(ratio, `${encoding} ${shape}: ${ratio.toFixed(2)}× the body`).toBeLessThan(2);
      decoded = null;
    }
  });

  it('the events as the adapter read them whole (before): more than 2× the body, so the bound above can fail', () => {
    const body = otlpExport('genai', SPANS, 'protobuf');
    const before = held();
    const prepared = prepareExport(decodeTraceRequest(body));
    const after = held();
    expect(prepared.events.length).toBe(SPANS);
    expect((after - before) / body.length).toBeGreaterThan(2);
  });

  it('an event reads its messages when asked and does not keep them', () => {
    const body = otlpExport('genai', SPANS, 'protobuf');
    const decoded = decodeExport({ body, encoding: 'protobuf', gzip: false, maxBytes: 1 << 30, maxSpans: 1e9 });
    if (!decoded.ok) throw new Error(decoded.message);
    const { events } = unpack(decoded.prepared);
    const before = held();
    let read = 0;
    for (const { event } of events) if (event.kind === 'call') read += event.messages.length;
    expect(read).toBe(SPANS * 10);
    // read once, dropped: nothing of the 20,000 messages stays
    expect(held() - before).toBeLessThan(body.length / 10);
  });
});

describe('packed events', () => {
  it('read back as they were extracted: calls, retrievals, skips, odd text, across chunks', () => {
    const base = { conversation: 'c', traceId: 'a'.repeat(32), where: 'w', service: null };
    const call = (i: number): ModelCall => ({
      kind: 'call',
      convention: 'genai',
      ...base,
      spanId: i.toString(16).padStart(16, '0'),
      startNs: BigInt(i) * 10n ** 12n,
      messages: [
        { role: 'system', parts: [{ type: 'text', text: 'be brief' }], summary: false },
        {
          role: 'user',
          parts: [
            { type: 'text', text: `ask ${i} \ud800 "q" é 😀 ${'z'.repeat(i % 3 === 0 ? 300_000 : 10)}` },
            { type: 'tool_call', text: 'f {}' },
          ],
          summary: false,
        },
        { role: 'assistant', parts: [{ type: 'compaction', text: 'earlier' }], summary: true },
      ],
      inputTokens: i % 2 ? null : 12,
      model: i % 2 ? 'm' : null,
      compacted: i % 5 === 0,
    });
    const retrieval: Retrieval = {
      kind: 'retrieval',
      source: 'reranker',
      ...base,
      spanId: 'f'.repeat(16),
      startNs: 5n,
      documents: [
        { id: null, text: 'doc', score: null, pinned: false },
        { id: '7', text: 'other', score: -1.25e-7, pinned: true },
      ],
    };
    const events = [
      ...Array.from({ length: 20 }, (_, i) => call(i)),
      retrieval,
      { kind: 'skip' as const, what: 'not a model call' },
      { ...call(99), messages: [] },
    ];
    const packer = new EventPacker();
    events.forEach((e, i) => packer.add(`k${i}`, e));
    const packed = packer.finish([{ where: 'x', message: 'y' }]);
    // 300,000-character messages do not fit one chunk: several were made
    expect(packed.chunks.length).toBeGreaterThan(1);
    const back = unpack(structuredClone(packed, { transfer: packed.chunks }));
    expect(back.rejected).toEqual([{ where: 'x', message: 'y' }]);
    expect(back.events.map((e) => ({ key: e.key, event: { ...e.event } }))).toEqual(events.map((event, i) => ({ key: `k${i}`, event })));
  });
});

describe('the relay stores an export a window at a time', () => {
  const servers: http.Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  });

  it('never more than the send window of messages unanswered, in order, all stored', async () => {
    let unanswered = 0;
    let most = 0;
    let largest = 0;
    let total = 0;
    const turns = new Map<string, number>();
    const ingest = {
      message(raw: Buffer): Promise<IngestResult> {
        unanswered += raw.length;
        total += raw.length;
        largest = Math.max(largest, raw.length);
        most = Math.max(most, unanswered);
        const m = JSON.parse(raw.toString()) as { type: string; session_id: string; turn?: number };
        if (m.type === 'snapshot') {
          // contract §2.4: a session's turns reach the relay in order
          expect(m.turn).toBe((turns.get(m.session_id) ?? 0) + 1);
          turns.set(m.session_id, m.turn!);
        }
        // answered later, as the store does
        return new Promise((resolve) =>
          setImmediate(() => {
            unanswered -= raw.length;
            resolve({ ok: true, sessionId: m.session_id, seq: 0, turn: m.turn ?? null, duplicate: false });
          }),
        );
      },
    } as unknown as Ingest;
    const receiver = new OtlpReceiver({
      ingest,
      access: { check: () => null } as unknown as AccessPolicy,
      maxBodyBytes: 16 << 20,
      maxSpans: 10_000,
      reorderMs: 0,
      storedTurn: () => null,
      log: () => {},
    });
    const server = http.createServer((req, res) => void receiver.serve(req, res, new URL(req.url!, 'http://127.0.0.1')));
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const body = otlpExport('genai', 3000, 'protobuf');
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: (server.address() as AddressInfo).port,
          path: '/v1/traces',
          method: 'POST',
          headers: { 'content-type': 'application/x-protobuf' },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    await receiver.close();
    expect(status).toBe(200);
    expect([...turns.values()].reduce((a, b) => a + b, 0)).toBe(3000);
    // what was sent is several windows' worth, but no more than one window (2 MiB) and a message waited at once
    expect(total).toBeGreaterThan(3 * (2 << 20));
    expect(most).toBeLessThanOrEqual((2 << 20) + largest);
  }, 60_000);
});
