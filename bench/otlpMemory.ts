// OTLP decoding memory (issue 39, bounded amplification: ≤ 4× the request body). Two
// figures, each in a child process so that nothing else in this one is counted:
// - the decode alone (decoding.ts, as the decode thread runs it): peak RSS over a baseline
//   taken after a warm-up decode, divided by the body's size;
// - the relay: `serve --no-analysis`, its peak RSS (VmHWM) over its RSS after a warm-up
//   export, for one export and for eight posted at once (the decode budget answers the
//   ones past it 503; they are counted).
// Two shapes of about 15 MiB: 10,000 spans × 25 attributes the adapter does not map (the
// audit's export), and 10,000 GenAI model calls of 10 input messages each.
//
//   node --import tsx bench/otlpMemory.ts
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

function request(): MessageType {
  const root = require('@opentelemetry/otlp-transformer/build/src/generated/root.js') as {
    opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: MessageType } } } } };
  };
  return root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
}

const span = (i: number, name: string, attributes: unknown[]): Record<string, unknown> => ({
  traceId: Buffer.alloc(16, 1),
  spanId: Buffer.from((i + 1).toString(16).padStart(16, '0'), 'hex'),
  name,
  startTimeUnixNano: 1 + i,
  endTimeUnixNano: 2 + i,
  attributes,
});

/** the export of a shape, as protobuf */
export function otlpExport(shape: 'attributes' | 'genai', spans = 10_000): Uint8Array {
  const list = Array.from({ length: spans }, (_, i) =>
    shape === 'attributes'
      ? span(
          i,
          'work',
          Array.from({ length: 25 }, (_, k) => ({ key: `attribute.${k}`, value: { stringValue: `value ${i} ${k} `.padEnd(40, 'x') } })),
        )
      : span(i, 'chat', [
          { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
          { key: 'gen_ai.conversation.id', value: { stringValue: `c${i % 10}` } },
          {
            key: 'gen_ai.input.messages',
            value: {
              stringValue: JSON.stringify(
                Array.from({ length: 10 }, (_, m) => ({
                  role: m % 2 ? 'assistant' : 'user',
                  parts: [{ type: 'text', content: `message ${m} of ${i} `.padEnd(90, 'y') }],
                })),
              ),
            },
          },
        ]),
  );
  const R = request();
  return R.encode(R.fromObject({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'bench' }, spans: list }] }] })).finish();
}

/** run in the child: decode the body in argv[3] once warm, print the peak RSS growth */
async function decodeChild(file: string): Promise<void> {
  const { decodeExport } = await import('../src/server/otlp/decoding.ts');
  const body = new Uint8Array(fs.readFileSync(file));
  const job = (b: Uint8Array) => ({ body: b, encoding: 'protobuf' as const, gzip: false, maxBytes: 1 << 30, maxSpans: 1e9 });
  decodeExport(job(body.subarray(0, 0)));
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

function post(url: string, body: Uint8Array): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL('v1/traces', url), { method: 'POST', headers: { 'content-type': 'application/x-protobuf' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function relayGrowth(body: Uint8Array, atOnce: number): Promise<{ growth: number; statuses: number[] }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-bench-otlpmem-'));
  const child = spawn(process.execPath, ['bin/context-health.mjs', 'serve', '--port', '0', '--data', dataDir, '--no-static', '--no-analysis'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
    await post(url, otlpExport('attributes', 10)); // the decode thread started
    await new Promise((r) => setTimeout(r, 500));
    const base = vm(child.pid!, 'VmRSS');
    const statuses = await Promise.all(Array.from({ length: atOnce }, () => post(url, body)));
    return { growth: vm(child.pid!, 'VmHWM') - base, statuses };
  } finally {
    child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function benchOtlpMemory(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-bench-otlpmem-'));
  console.log('\nOTLP decoding memory: peak RSS growth over the body (issue 39 asks ≤ 4× per request)');
  for (const shape of ['attributes', 'genai'] as const) {
    const body = otlpExport(shape);
    const file = path.join(dir, `${shape}.pb`);
    fs.writeFileSync(file, body);
    const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/otlpMemory.ts', '--decode-child', file], { cwd: ROOT, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(run.stderr);
    const decode = (JSON.parse(run.stdout.trim().split('\n').pop()!) as { growth: number }).growth;
    const one = await relayGrowth(body, 1);
    const eight = await relayGrowth(body, 8);
    const mib = (n: number): string => `${(n / 2 ** 20).toFixed(0)} MiB`;
    const taken = eight.statuses.filter((s) => s === 200).length;
    if (one.statuses[0] !== 200 || taken + eight.statuses.filter((s) => s === 503).length !== 8)
      throw new Error(`unexpected answers: ${one.statuses} ${eight.statuses}`);
    console.log(
      `  ${shape.padEnd(10)} body ${mib(body.length)}: decode ${(decode / body.length).toFixed(2)}×, relay one export ${(one.growth / body.length).toFixed(2)}× (${mib(one.growth)}), ` +
        `eight at once ${mib(eight.growth)} = ${(eight.growth / body.length).toFixed(2)}× one body (${taken} taken, ${8 - taken} answered 503)`,
    );
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

if (process.argv[2] === '--decode-child') await decodeChild(process.argv[3]!);
else if (import.meta.url === `file://${process.argv[1]}`) await benchOtlpMemory();
