// OTLP receiver benchmark (issue: OpenTelemetry in): the same conversations posted to an
// in-process relay three ways on loopback: OTLP/protobuf and OTLP/JSON bodies made by the
// official OpenTelemetry serializers (POST /v1/traces, reorder window 0, so each request is
// stored before it is answered), and the snapshots the relay made of them posted again as
// native NDJSON (POST /api/ingest) to a fresh relay. Prints model calls per second for each
// and the ratios to native: what decoding, mapping and reference scoring add. Quote the
// ratios; absolute times drift on shared machines.
//
//   node --import tsx bench/otlp.ts [--conversations C] [--calls K] [--batch B]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { startRelay, type Relay, type RelayOptions } from '../src/server/relay.ts';

type Serializer = { serializeRequest(spans: never): Uint8Array | undefined };

function conversations(count: number, calls: number): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  const tracer = provider.getTracer('bench');
  const t0 = Date.UTC(2026, 0, 1);
  for (let c = 0; c < count; c++) {
    const history: { role: string; parts: { type: string; content: string }[] }[] = [
      { role: 'user', parts: [{ type: 'text', content: `Task ${c}: fix the flaky billing test without touching the public API.` }] },
    ];
    for (let k = 0; k < calls; k++) {
      const span = tracer.startSpan('chat', {
        startTime: t0 + k * 1000 + c,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.conversation.id': `bench-${c}`,
          'gen_ai.input.messages': JSON.stringify(history),
          'gen_ai.usage.input_tokens': 1000 + 60 * k,
        },
      });
      span.end(t0 + k * 1000 + c + 500);
      history.push({
        role: k % 2 === 0 ? 'assistant' : 'tool',
        parts: [{ type: 'text', content: `step ${k} of conversation ${c}: ${'observed output '.repeat(12)}` }],
      });
      // the agent keeps a window of the last 40 messages after the task: older ones are pruned
      if (history.length > 41) history.splice(1, 1);
    }
  }
  return memory.getFinishedSpans();
}

async function timed(run: () => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** `run` on a fresh in-process relay in a temporary data folder; the relay is closed and the folder removed however it ends */
async function onRelay<T>(options: Partial<RelayOptions>, run: (relay: Relay, dataDir: string) => Promise<T>): Promise<T> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-bench-otlp-'));
  try {
    const relay = await startRelay({ port: 0, host: '127.0.0.1', distDir: null, dataDir, log: () => {}, ...options });
    try {
      return await run(relay, dataDir);
    } finally {
      await relay.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function benchOtlp(argv: string[] = []): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { conversations: { type: 'string', default: '10' }, calls: { type: 'string', default: '100' }, batch: { type: 'string', default: '50' } },
  });
  const count = Number(values.conversations);
  const calls = Number(values.calls);
  const batch = Number(values.batch);
  const spans = conversations(count, calls);
  const batches: ReadableSpan[][] = [];
  for (let i = 0; i < spans.length; i += batch) batches.push(spans.slice(i, i + batch));
  const results: Record<string, number> = {};
  let nativeBody = '';
  // each way twice, the first run only warming up (module loading, the JIT): the second is measured
  for (const [name, serializer, type] of [
    ['OTLP/protobuf', ProtobufTraceSerializer, 'application/x-protobuf'],
    ['OTLP/JSON', JsonTraceSerializer, 'application/json'],
    ['OTLP/protobuf', ProtobufTraceSerializer, 'application/x-protobuf'],
    ['OTLP/JSON', JsonTraceSerializer, 'application/json'],
  ] as const) {
    const bodies = batches.map((b) => Buffer.from((serializer as unknown as Serializer).serializeRequest(b as never)!));
    const seconds = await onRelay({ otlpReorderMs: 0 }, async (relay, dataDir) => {
      const took = await timed(async () => {
        for (const body of bodies) {
          const res = await fetch(`${relay.url}v1/traces`, { method: 'POST', body, headers: { 'content-type': type } });
          if (res.status !== 200) throw new Error(`${name}: ${res.status} ${await res.text()}`);
          await res.arrayBuffer();
        }
      });
      if (nativeBody === '') {
        const lines: string[] = [];
        for (let c = 0; c < count; c++) lines.push(fs.readFileSync(path.join(dataDir, 'sessions', `bench-${c}.jsonl`), 'utf8'));
        nativeBody = lines.join('');
      }
      return took;
    });
    console.log(`  (${name}: ${seconds.toFixed(2)} s)`);
    results[name] = seconds;
  }
  const nativeLines = nativeBody.trimEnd().split('\n');
  const perRequest = Math.ceil(nativeLines.length / batches.length);
  results['native NDJSON'] = await onRelay({}, (relay) =>
    timed(async () => {
      for (let i = 0; i < nativeLines.length; i += perRequest) {
        const res = await fetch(`${relay.url}api/ingest`, {
          method: 'POST',
          body: nativeLines.slice(i, i + perRequest).join('\n') + '\n',
          headers: { 'content-type': 'application/x-ndjson' },
        });
        if (res.status !== 200) throw new Error(`native: ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
      }
    }),
  );
  const native = results['native NDJSON']!;
  console.log(
    `\nOTLP receiver: ${count} conversations × ${calls} model calls (${spans.length} spans, ${batches.length} requests, histories up to 41 messages)`,
  );
  for (const [name, seconds] of Object.entries(results)) {
    console.log(`  ${name.padEnd(14)} ${(spans.length / seconds).toFixed(0).padStart(7)} model calls/s   ${(seconds / native).toFixed(2)} × native`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchOtlp(process.argv.slice(2));
