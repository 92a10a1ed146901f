// `npm run bench -- proxy` (issue 38, docs/proxy.md): what `context-health proxy` adds between
// an agent and its model API. A stub upstream speaking Anthropic's streaming format runs in this
// process on 127.0.0.1, with a relay (analysis off: this measures the proxy, not the engine);
// the proxy is the real command in a child process, `context-health proxy`. Three figures:
//   1. added time to the first byte: the same calls sent to the stub directly and through the
//      proxy, interleaved; the difference of the medians and of the 99th percentiles
//      (goals 5 ms and 20 ms);
//   2. 50 concurrent streams of 20 events 50 ms apart: each event's arrival at the client
//      against the moment the stub wrote it, through the proxy and directly; the largest delay
//      of each (goal: the proxy's at most 20 ms more);
//   3. the proxy's resident memory over 10,000 calls (50 agent sessions, each running its
//      20-call conversation again and again, each call one turn sent to the relay), sampled
//      along the way (goal: flat once warm).
// Bounded loops, loopback only. Quote the differences measured in one run; absolute times
// drift on a shared machine.
//
//   node --import tsx bench/proxy.ts [--ttfb N] [--streams N] [--calls N]
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startRelay } from '../src/server/relay.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

interface StubTiming {
  /** stream id → when each event was written (performance.now() of this process) */
  written: Map<string, number[]>;
}

/** An Anthropic-format SSE stub: `x-bench-events` events, `x-bench-gap-ms` apart; event n's data carries n. */
async function startStub(timing: StubTiming): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer({ noDelay: true }, (req, res) => {
    req.resume();
    req.on('end', () => {
      const events = Number(req.headers['x-bench-events'] ?? 3);
      const gap = Number(req.headers['x-bench-gap-ms'] ?? 0);
      const id = String(req.headers['x-bench-stream'] ?? '');
      const times: number[] = [];
      if (id !== '') timing.written.set(id, times);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const start = JSON.stringify({
        type: 'message_start',
        message: { id: 'msg_b', model: 'claude-sonnet-4-5', usage: { input_tokens: 900, cache_read_input_tokens: 100, output_tokens: 1 } },
      });
      let n = 0;
      const next = (): void => {
        if (res.destroyed) return;
        if (n === events) return void res.end('event: message_stop\ndata: {"type":"message_stop"}\n\n');
        const data =
          n === 0 ? start : JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `#${n}# ${'token '.repeat(8)}` } });
        times.push(performance.now());
        res.write(`event: ${n === 0 ? 'message_start' : 'content_block_delta'}\ndata: ${data}\n\n`);
        n++;
        if (gap > 0) setTimeout(next, gap);
        else setImmediate(next);
      };
      next();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

/** `context-health proxy` as a child; resolves with its URL once it listens. */
async function spawnProxy(relay: string, upstream: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_PROXY_NODE_ARGS ?? '').split(' ').filter((a) => a !== ''),
      path.join(ROOT, 'bin/context-health.mjs'),
      'proxy',
      '--port',
      '0',
      '--relay',
      relay,
      '--anthropic-upstream',
      upstream,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m !== null) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the proxy exited with ${code}:\n${out}`)));
  });
  return { child, url };
}

interface Timed {
  firstByteMs: number;
  /** for each chunk received: when (performance.now()) and its text */
  chunks: { at: number; text: string }[];
}

function call(base: string, body: string, headers: Record<string, string>, route = '/v1/messages'): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const u = new URL(route, base);
    const t0 = performance.now();
    let first = -1;
    const chunks: { at: number; text: string }[] = [];
    const req = http.request(
      {
        hostname: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'x-api-key': 'bench', 'anthropic-version': '2023-06-01', ...headers },
      },
      (res) => {
        res.on('data', (c: Buffer) => {
          const at = performance.now();
          if (first < 0) first = at - t0;
          chunks.push({ at, text: c.toString() });
        });
        res.on('end', () => resolve({ firstByteMs: first, chunks }));
        res.on('error', reject);
      },
    );
    req.setNoDelay(true);
    req.on('error', reject);
    req.end(body);
  });
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function request(conversation: number, turn: number, task = conversation): string {
  const messages: unknown[] = [{ role: 'user', content: `Task ${task}: make the billing test pass without changing the public API.` }];
  for (let k = 1; k < turn; k++) {
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${k}`, name: 'Read', input: { file_path: `/repo/src/file${k}.ts` } }] });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${k}`, content: `export const v${k} = ${'1 + '.repeat(40)}1;` }] });
  }
  return JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 1024, stream: true, system: 'You are a coding agent.', messages });
}

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m === null ? NaN : Number(m[1]) * 1024;
}

/** user + system CPU time of a process, in ms (/proc/<pid>/stat, clock ticks of 10 ms) */
function cpuMsOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const mib = (n: number): string => `${(n / 1024 / 1024).toFixed(1)} MiB`;

export async function benchProxy(argv: string[] = []): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { ttfb: { type: 'string', default: '400' }, streams: { type: 'string', default: '50' }, calls: { type: 'string', default: '10000' } },
  });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-bench-proxy-'));
  const relay = await startRelay({ port: 0, host: '127.0.0.1', dataDir, distDir: null, analysis: false, log: () => undefined });
  const timing: StubTiming = { written: new Map() };
  const stub = await startStub(timing);
  const { child, url: proxy } = await spawnProxy(relay.url, stub.url);
  try {
    console.log(
      `proxy bench: stub upstream ${stub.url}, proxy ${proxy} (child pid ${child.pid}), relay ${relay.url} (analysis off); ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(2)}`,
    );

    // 1. time to first byte, direct and through the proxy, interleaved
    const n = Number(values.ttfb);
    const body = request(0, 3);
    for (let i = 0; i < 50; i++) await call(proxy, body, { 'x-claude-code-session-id': 'warm' }); // warm-up (JIT, sockets)
    const direct: number[] = [];
    const proxied: number[] = [];
    // a path the proxy passes through without capturing: the hop alone
    const passed: number[] = [];
    const cpu0 = cpuMsOf(child.pid!);
    for (let i = 0; i < n; i++) {
      direct.push((await call(stub.url, body, {})).firstByteMs);
      proxied.push((await call(proxy, body, { 'x-claude-code-session-id': `ttfb-${i % 20}` })).firstByteMs);
      passed.push((await call(proxy, body, {}, '/v1/complete')).firstByteMs);
    }
    const cpuPerCall = (cpuMsOf(child.pid!) - cpu0) / (2 * n);
    for (const list of [direct, proxied, passed]) list.sort((a, b) => a - b);
    const [dm, d99, pm, p99] = [quantile(direct, 0.5), quantile(direct, 0.99), quantile(proxied, 0.5), quantile(proxied, 0.99)];
    console.log(
      `  time to first byte over ${n} calls: direct median ${dm.toFixed(2)} ms p99 ${d99.toFixed(2)} ms; via proxy median ${pm.toFixed(2)} ms p99 ${p99.toFixed(2)} ms; ` +
        `passed through uncaptured median ${quantile(passed, 0.5).toFixed(2)} ms p99 ${quantile(passed, 0.99).toFixed(2)} ms`,
    );
    console.log(
      `  added: median ${(pm - dm).toFixed(2)} ms (goal ≤ 5), p99 ${(p99 - d99).toFixed(2)} ms (goal ≤ 20); the proxy's CPU ${cpuPerCall.toFixed(2)} ms per call`,
    );

    // 2. concurrent streams: each event's delay from the stub's write to the client's read
    const streams = Number(values.streams);
    const maxDelay = async (base: string, tag: string): Promise<{ max: number; p99: number }> => {
      const runs = await Promise.all(
        Array.from({ length: streams }, (_, s) =>
          call(base, request(s, 2), {
            'x-bench-events': '20',
            'x-bench-gap-ms': '50',
            'x-bench-stream': `${tag}-${s}`,
            'x-claude-code-session-id': `${tag}-${s}`,
          }),
        ),
      );
      const delays: number[] = [];
      runs.forEach((r, s) => {
        const written = timing.written.get(`${tag}-${s}`)!;
        let seen = 0;
        for (const c of r.chunks) {
          // an event is read when the chunk holding its end arrives
          seen += c.text.split('\n\n').length - 1;
          while (delays.length < s * 20 + Math.min(seen, 20)) delays.push(c.at - written[delays.length - s * 20]!);
        }
      });
      delays.sort((a, b) => a - b);
      return { max: delays.at(-1)!, p99: quantile(delays, 0.99) };
    };
    const d = await maxDelay(stub.url, 'direct');
    const p = await maxDelay(proxy, 'proxy');
    console.log(
      `  ${streams} concurrent streams × 20 events 50 ms apart: event delay direct max ${d.max.toFixed(2)} ms (p99 ${d.p99.toFixed(2)}); via proxy max ${p.max.toFixed(2)} ms (p99 ${p.p99.toFixed(2)})`,
    );
    console.log(`  added: max ${(p.max - d.max).toFixed(2)} ms (goal ≤ 20)`);

    // 3. resident memory over many calls, 8 at a time, each call a turn: 50 agent sessions,
    // each starting its conversation again every 20 calls (the same task, so the same thread)
    const calls = Number(values.calls);
    const samples: [number, number][] = [];
    let done = 0;
    const worker = async (w: number): Promise<void> => {
      for (let i = w; i < calls; i += 8) {
        const conversation = Math.floor(i / 20) % 50;
        await call(proxy, request(conversation, (i % 20) + 1), { 'x-claude-code-session-id': `mem-${conversation}` });
        done++;
        if (done % Math.max(1, Math.floor(calls / 10)) === 0) samples.push([done, rssOf(child.pid!)]);
      }
    };
    const t0 = performance.now();
    await Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)));
    const seconds = (performance.now() - t0) / 1000;
    console.log(
      `  ${calls} calls in ${seconds.toFixed(1)} s (${(calls / seconds).toFixed(0)}/s); the proxy's RSS: ${samples.map(([k, r]) => `${k}: ${mib(r)}`).join(', ')}`,
    );
    const warm = samples[Math.min(1, samples.length - 1)]![1];
    const last = samples.at(-1)![1];
    console.log(`  RSS at the end / after ${samples[Math.min(1, samples.length - 1)]![0]} calls: ${(last / warm).toFixed(2)}× (goal: flat)`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    agent.destroy();
    await stub.close();
    await relay.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchProxy(process.argv.slice(2));
