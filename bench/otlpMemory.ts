// OTLP decoding memory (issue 39, bounded amplification: ≤ 4× the request body). Each
// figure in a child process so that nothing else in this one is counted, each divided by
// the body's size:
// - the decode alone (decoding.ts, as the decode thread runs it, with its small young
//   generation): peak RSS over a baseline taken after a warm-up decode;
// - the relay: `serve --no-analysis`, its peak RSS (VmHWM) over its RSS after a warm-up
//   export, when the exports are answered (decoded, held in the reorder window) and once
//   their turns are stored; for one export and for eight posted at once (the decode
//   budget answers the ones past it 503; they are counted).
// Four shapes (SHAPES), each as protobuf and as OTLP/JSON, of about 15 MiB.
//
//   npm run bench -- otlp-memory
//   OTLP_BENCH_RELAY_NODE_OPTIONS=--max-semi-space-size=2 npm run bench -- otlp-memory
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

interface MessageType {
  fromObject(o: unknown): unknown;
  encode(m: unknown): { finish(): Uint8Array };
}
const require = createRequire(import.meta.url);
const ROOT = path.join(import.meta.dirname, '..');

function requestType(): MessageType {
  const root = require('@opentelemetry/otlp-transformer/build/src/generated/root.js') as {
    opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: MessageType } } } } };
  };
  return root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
}

const span = (i: number, name: string, attributes: unknown[], events: unknown[] = [], trace = 1): Record<string, unknown> => ({
  traceId: Buffer.alloc(16, trace),
  spanId: Buffer.from((i + 1).toString(16).padStart(16, '0'), 'hex'),
  name,
  startTimeUnixNano: 1 + i,
  endTimeUnixNano: 2 + i,
  attributes,
  ...(events.length > 0 ? { events } : {}),
});

const text = (k: string): { stringValue: string } => ({ stringValue: k });
const said = (m: number, i: number): string => `message ${m} of ${i} `.padEnd(90, 'y');

/**
 * The shapes measured, each a 10,000-span export of about 15 MiB:
 * - attributes: 25 attributes per span the adapter does not map (the audit's export);
 * - genai: the GenAI conventions' chat span, `gen_ai.input.messages` (10 messages) and
 *   `gen_ai.output.messages` as JSON strings;
 * - openllmetry: OpenLLMetry's indexed attributes, `gen_ai.prompt.N.role/content` (10) and
 *   `gen_ai.completion.0.role/content`;
 * - events: the GenAI conventions before 1.37, one `gen_ai.user.message` /
 *   `gen_ai.assistant.message` event per input message and a `gen_ai.choice` event.
 */
export const SHAPES = ['attributes', 'genai', 'openllmetry', 'events'] as const;
export type Shape = (typeof SHAPES)[number];

function spansOf(shape: Shape, spans: number, trace: number): Record<string, unknown>[] {
  return Array.from({ length: spans }, (_, i) => {
    const conversation = { key: 'gen_ai.conversation.id', value: text(`c${i % 10}`) };
    const role = (m: number): string => (m % 2 ? 'assistant' : 'user');
    switch (shape) {
      case 'attributes':
        return span(
          i,
          'work',
          Array.from({ length: 25 }, (_, k) => ({ key: `attribute.${k}`, value: text(`value ${i} ${k} `.padEnd(40, 'x')) })),
          [],
          trace,
        );
      case 'genai':
        return span(i, 'chat', [
          { key: 'gen_ai.operation.name', value: text('chat') },
          conversation,
          {
            key: 'gen_ai.input.messages',
            value: text(JSON.stringify(Array.from({ length: 10 }, (_, m) => ({ role: role(m), parts: [{ type: 'text', content: said(m, i) }] })))),
          },
          { key: 'gen_ai.output.messages', value: text(JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: said(10, i) }] }])) },
        ]);
      case 'openllmetry':
        return span(i, 'openai.chat', [
          conversation,
          ...Array.from({ length: 10 }, (_, m) => [
            { key: `gen_ai.prompt.${m}.role`, value: text(role(m)) },
            { key: `gen_ai.prompt.${m}.content`, value: text(said(m, i)) },
          ]).flat(),
          { key: 'gen_ai.completion.0.role', value: text('assistant') },
          { key: 'gen_ai.completion.0.content', value: text(said(10, i)) },
        ]);
      case 'events':
        return span(
          i,
          'chat',
          [{ key: 'gen_ai.operation.name', value: text('chat') }, conversation],
          [
            ...Array.from({ length: 10 }, (_, m) => ({
              name: `gen_ai.${role(m)}.message`,
              timeUnixNano: 1 + i,
              attributes: [{ key: 'content', value: text(said(m, i)) }],
            })),
            { name: 'gen_ai.choice', timeUnixNano: 2 + i, attributes: [{ key: 'message', value: text(said(10, i)) }] },
          ],
        );
    }
  });
}

/** the export of a shape, as protobuf or as OTLP/JSON (hex ids, 64-bit integers as strings); `trace`: the trace id's byte (of the plain spans) */
export function otlpExport(shape: Shape, spans = 10_000, encoding: 'protobuf' | 'json' = 'protobuf', trace = 1): Uint8Array {
  const request = { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'bench' }, spans: spansOf(shape, spans, trace) }] }] };
  if (encoding === 'json') {
    // `this[key]`: the value before Buffer's toJSON turned it into {type, data}
    return Buffer.from(
      JSON.stringify(request, function (this: Record<string, unknown>, key: string, v: unknown) {
        const raw = this[key];
        if (Buffer.isBuffer(raw)) return raw.toString('hex');
        return typeof v === 'number' && key.endsWith('UnixNano') ? String(v) : v;
      }),
    );
  }
  const R = requestType();
  return R.encode(R.fromObject(request)).finish();
}

/** run in the child: decode the body in argv[3] (argv[4] its encoding) once warm, print the peak RSS growth */
async function decodeChild(file: string, encoding: Encoding): Promise<void> {
  const { decodeExport } = await import('../src/server/otlp/decoding.ts');
  const body = new Uint8Array(fs.readFileSync(file));
  const job = (b: Uint8Array) => ({ body: b, encoding, gzip: false, maxBytes: 1 << 30, maxSpans: 1e9 });
  decodeExport(job(otlpExport('genai', 10, encoding)));
  (globalThis as { gc?: () => void }).gc?.();
  const base = process.memoryUsage().rss;
  const decoded = decodeExport(job(body));
  if (!decoded.ok) throw new Error(decoded.message);
  console.log(JSON.stringify({ growth: process.resourceUsage().maxRSS * 1024 - base }));
}

function vm(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) * 1024;
}

type Encoding = 'protobuf' | 'json';
/** how long the relay is given to store an export's messages (after its 2 s reorder window) */
const STORE_MS = 60_000;

async function storedTurns(url: string): Promise<number> {
  const { sessions } = (await (await fetch(new URL('api/sessions', url))).json()) as { sessions: { last_turn: number | null }[] };
  return sessions.reduce((n, s) => n + (s.last_turn ?? 0), 0);
}
const MEDIA: Record<Encoding, string> = { protobuf: 'application/x-protobuf', json: 'application/json' };

function post(url: string, body: Uint8Array, encoding: Encoding = 'protobuf'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL('v1/traces', url), { method: 'POST', headers: { 'content-type': MEDIA[encoding] } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** `turns`: what the export stores (its model calls), waited for before the peak is read */
async function relayGrowth(
  body: Uint8Array,
  encoding: Encoding,
  atOnce: number,
  turns: number,
): Promise<{ answered: number; growth: number; statuses: number[] }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-bench-otlpmem-'));
  const child = spawn(process.execPath, ['bin/context-health.mjs', 'serve', '--port', '0', '--data', dataDir, '--no-static', '--no-analysis'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    // e.g. OTLP_BENCH_RELAY_NODE_OPTIONS=--max-semi-space-size=2: the relay's main thread with a small young generation
    env: { ...process.env, NODE_OPTIONS: process.env.OTLP_BENCH_RELAY_NODE_OPTIONS ?? process.env.NODE_OPTIONS ?? '' },
  });
  child.stderr.resume(); // never let a full pipe stall the relay
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /http:\/\/127\.0\.0\.1:\d+\//.exec(out);
        if (m !== null) resolve(m[0]);
      });
      child.on('exit', (code) => reject(new Error(`serve exited (${code}): ${out}`)));
    });
    await post(url, otlpExport('attributes', 10, 'protobuf', 2)); // the decode thread started (another trace: its spans are not the export's)
    await new Promise((r) => setTimeout(r, 500));
    const base = vm(child.pid!, 'VmRSS');
    const statuses = await Promise.all(Array.from({ length: atOnce }, () => post(url, body, encoding)));
    // decoded and placed in the reorder window: the decoding's own cost
    const answered = vm(child.pid!, 'VmHWM') - base;
    // the reorder window (2 s by default) passes, then what it held is stored: counted too
    const deadline = Date.now() + STORE_MS;
    while ((await storedTurns(url)) < turns && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    if ((await storedTurns(url)) < turns) throw new Error(`the relay stored fewer than ${turns} turns in ${STORE_MS} ms`);
    return { answered, growth: vm(child.pid!, 'VmHWM') - base, statuses };
  } finally {
    child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function benchOtlpMemory(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-bench-otlpmem-'));
  try {
    console.log('\nOTLP decoding memory: peak RSS growth over the body (issue 39 asks ≤ 4× per request)');
    const mib = (n: number): string => `${(n / 2 ** 20).toFixed(0)} MiB`;
    for (const encoding of ['protobuf', 'json'] as const) {
      for (const shape of SHAPES) {
        // as many spans (at most 10,000) as make about 15 MiB: under the relay's 16 MiB limit
        const spans = Math.min(10_000, Math.floor((1000 * 15 * 2 ** 20) / otlpExport(shape, 1000, encoding).length));
        const body = otlpExport(shape, spans, encoding);
        const file = path.join(dir, `${shape}.${encoding}`);
        fs.writeFileSync(file, body);
        // a young generation of the decode thread's size (decoder.ts: 6 MiB, three 2 MiB semi-spaces)
        const run = spawnSync(
          process.execPath,
          ['--expose-gc', '--max-semi-space-size=2', '--import', 'tsx', 'bench/otlpMemory.ts', '--decode-child', file, encoding],
          {
            cwd: ROOT,
            encoding: 'utf8',
          },
        );
        if (run.status !== 0) throw new Error(run.stderr);
        const decode = (JSON.parse(run.stdout.trim().split('\n').pop()!) as { growth: number }).growth;
        const turns = shape === 'attributes' ? 0 : spans;
        const one = await relayGrowth(body, encoding, 1, turns);
        const eight = await relayGrowth(body, encoding, 8, turns);
        const taken = eight.statuses.filter((s) => s === 200).length;
        if (one.statuses[0] !== 200 || taken + eight.statuses.filter((s) => s === 503).length !== 8)
          throw new Error(`unexpected answers: ${one.statuses} ${eight.statuses}`);
        const x = (n: number, per = 1): string => `${(n / body.length / per).toFixed(2)}×`;
        console.log(
          `  ${encoding.padEnd(8)} ${shape.padEnd(11)} ${String(spans).padStart(6)} spans, body ${mib(body.length)}: decode ${x(decode)}; ` +
            `relay, one export: answered ${x(one.answered)}, stored ${x(one.growth)} (${mib(one.growth)}); ` +
            `eight at once (${taken} taken, ${8 - taken} answered 503): answered ${x(eight.answered, taken)} per export taken, stored ${x(eight.growth, taken)} (${mib(eight.growth)})`,
        );
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--decode-child') await decodeChild(process.argv[3]!, process.argv[4] as Encoding);
else if (import.meta.url === `file://${process.argv[1]}`) await benchOtlpMemory();
