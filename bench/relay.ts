// Relay benchmark on loopback (issue: live sessions): N harness WebSocket connections each
// sending M snapshots/s of 200 spans, fanned out to K dashboard subscribers; prints the
// sustained snapshots/s the relay acknowledged and p50/p99 delivery latency (harness send
// → subscriber receive) for (10 sessions, 5 viewers) and (100 sessions, 10 viewers).
// Goal: 100 sessions × 10 snapshots/s to 10 viewers, p99 < 100 ms, on a 2-core machine.
//
// The relay is the real `context-health serve` in its own process (one core); the harnesses
// and viewers share this process (the other core), so the latencies are on one clock. Each
// viewer watches one session, as a dashboard does (viewer i → session i mod N).
//
// The harnesses send what the clients send (contract §7 compact wire, the clients' own
// TextOmitter: a span leaves out its text when unchanged since the session's previous
// snapshot) over a realistic simulated session, `--wire whole` every text every time. The
// frames are encoded before the measured window: a send is a small head (session, turn,
// send time) joined to a ready body, so the load generator only moves bytes.
//
//   node --import tsx bench/relay.ts [--seconds S] [--text-chars C] [--wire compact|whole] [--goal-only] [--no-compare]
//   npm run bench -- relay [--wire whole]
//   BENCH_PROFILE=dir: the relay runs with --cpu-prof into dir (one .cpuprofile per run; bench/profileTop.ts summarises)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { asciiJson } from '../src/client/harness.ts';
import { COMPACT_WIRE, TextOmitter } from '../src/core/compact.ts';
import { nodeSha256 } from '../src/node/platform.ts';
import { SessionLogStore } from '../src/server/store.ts';
import { simulateSession } from '../src/sim/scenario.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

export type Wire = 'compact' | 'whole';

interface Config {
  wire: Wire;
  analysis: boolean;
  sessions: number;
  viewers: number;
  ratePerSession: number;
  spans: number;
  textChars: number;
  seconds: number;
}

interface Result {
  config: Config;
  offered: number;
  sustained: number;
  delivered: number;
  p50: number;
  p99: number;
  max: number;
  mbPerSecond: number;
  relayRssMiB: number;
  relayCpu: number;
  /** relay CPU ms (process: every thread) per snapshot acknowledged in the window */
  cpuMsPerSnapshot: number;
  /** of which the relay's main thread (Linux /proc/PID/task/PID) */
  mainCpuMsPerSnapshot: number;
  bytesPerSnapshot: number;
  clientCpu: number;
  errors: number;
  loadBefore: number;
}

/** The spans of one realistic 200-span snapshot from the scenario generator, as JSON. */
function spansJson(spans: number, textChars: number): string {
  // the generator's buffer fills up over its first turns: take the first full one
  for (const m of simulateSession({ seed: 7, sessionId: 'bench', turns: 1000, spans, textChars, nonAscii: true }, nodeSha256)) {
    if (m.type === 'snapshot' && m.spans.length >= spans) return JSON.stringify(m.spans.slice(0, spans));
  }
  throw new Error(`the generator never reached ${spans} spans`);
}

/**
 * The bodies of `count` consecutive snapshots of one simulated session, from its first
 * full one: each is the JSON of the snapshot after `"turn":T,"bench_sent":X,` (the head a
 * send adds), non-ASCII escaped as the clients send it. Compact: the clients' TextOmitter
 * leaves out the texts equal to the previous body's and names it in `base_turn` (turn T − 1);
 * the first body is whole, so a session may start again at body 0 with any turn.
 */
export function snapshotBodies(wire: Wire, count: number, spans: number, textChars: number): Buffer[] {
  const omitter = new TextOmitter();
  const out: Buffer[] = [];
  let turn = 0;
  for (const m of simulateSession({ seed: 7, sessionId: 'bench', turns: count + 1000, spans, textChars, nonAscii: true }, nodeSha256)) {
    if (m.type !== 'snapshot' || (out.length === 0 && m.spans.length < spans)) continue;
    // renumbered from 1, the turns the sender gives them
    const renumbered = { ...m, session_id: 'bench', turn: ++turn };
    const sent = wire === 'compact' ? omitter.compact(renumbered) : renumbered;
    const { type: _t, session_id: _s, turn: _n, ...rest } = sent;
    out.push(Buffer.from(asciiJson(JSON.stringify(rest)).slice(1)));
    if (out.length === count) return out;
  }
  throw new Error(`the generator gave fewer than ${count} snapshots of ${spans} spans`);
}

export async function startRelay(dataDir: string, extraArgs: readonly string[] = []): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const nodeArgs = (process.env.BENCH_RELAY_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  // a CPU profile of the relay, written when it exits (serve stops cleanly on SIGTERM)
  const profileDir = process.env.BENCH_PROFILE;
  if (profileDir !== undefined && profileDir !== '') nodeArgs.push('--cpu-prof', '--cpu-prof-dir', path.resolve(profileDir));
  const child = spawn(
    process.execPath,
    [
      ...nodeArgs,
      path.join(ROOT, 'bin/context-health.mjs'),
      'serve',
      '--port',
      '0',
      '--data',
      dataDir,
      '--no-static',
      // the machine's own agent sessions would be followed into the measured relay
      '--no-local-sessions',
      '--max-sessions',
      '10000',
      ...(process.env.BENCH_RELAY_SERVE_ARGS ?? '').split(' ').filter((a) => a !== ''),
      ...extraArgs,
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  // BENCH_RELAY_LOG=file keeps the relay's output (with BENCH_RELAY_NODE_ARGS=--trace-gc, say)
  const logTo = process.env.BENCH_RELAY_LOG;
  if (logTo !== undefined) {
    const sink = fs.createWriteStream(logTo, { flags: 'a' });
    child.stdout.pipe(sink);
    child.stderr.pipe(sink);
  } else child.stderr.resume();
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+\/)/.exec(out);
      if (m !== null) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`relay exited with ${code}`)));
  });
  return {
    url,
    pid: child.pid!,
    // at once when the relay is gone already (a failed run's cleanup must not wait for an exit that came)
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export function open(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/** CPU seconds used so far by a process, or by one of its threads (Linux /proc; 0 elsewhere). */
export function cpuSeconds(pid: number, tid?: number): number {
  try {
    const fields = fs
      .readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8')
      .split(') ')[1]!
      .split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** One configuration on a relay of its own; the relay is stopped and its data removed however the run ends. */
async function runOne(config: Config, bodies: readonly Buffer[]): Promise<Result> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-bench-relay-'));
  try {
    const loadBefore = os.loadavg()[0]!;
    const relay = await startRelay(dataDir, config.analysis ? [] : ['--no-analysis']);
    try {
      return await measure(config, bodies, relay, loadBefore);
    } finally {
      await relay.stop();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function measure(config: Config, bodies: readonly Buffer[], relay: Awaited<ReturnType<typeof startRelay>>, loadBefore: number): Promise<Result> {
  const base = relay.url.replace(/^http/, 'ws');
  const warmupMs = Number(process.env.BENCH_WARMUP_MS ?? 2000);
  const latencies: number[] = [];
  let delivered = 0;
  let acked = 0;
  let errors = 0;
  let bytesSent = 0;
  let measuring = false;
  let sent = 0;

  const viewers: WebSocket[] = [];
  for (let v = 0; v < config.viewers; v++) {
    const ws = await open(`${base}api/sessions/bench-${v % config.sessions}/subscribe?since=0`);
    ws.on('message', (data: Buffer) => {
      const now = performance.now();
      // {"type":"msg","seq":N,"data":{"type":"snapshot","session_id":"…","turn":T,"bench_sent":X,…
      const head = data.toString('latin1', 0, 160);
      const at = head.indexOf('"bench_sent":');
      if (at === -1 || !measuring) return;
      latencies.push(now - Number.parseFloat(head.slice(at + 13, head.indexOf(',', at))));
      delivered++;
    });
    viewers.push(ws);
  }
  const harnesses: WebSocket[] = [];
  let firstError: string | null = null;
  for (let s = 0; s < config.sessions; s++) {
    const ws = await open(`${base}api/ingest`);
    ws.on('message', (data: Buffer) => {
      if (data.includes('"type":"ack"')) {
        if (measuring) acked++;
      } else {
        errors++;
        firstError ??= data.toString().slice(0, 400);
      }
    });
    harnesses.push(ws);
    // the header, as the clients send it: the compact wire is declared here (contract §7)
    ws.send(JSON.stringify({ type: 'session', session_id: `bench-${s}`, title: 'bench', ...(config.wire === 'compact' ? { wire: COMPACT_WIRE } : {}) }));
  }

  const periodMs = 1000 / config.ratePerSession;
  const turns = new Array<number>(config.sessions).fill(0);
  const timers: NodeJS.Timeout[] = [];
  const started = performance.now();
  for (let s = 0; s < config.sessions; s++) {
    const ws = harnesses[s]!;
    const sid = `bench-${s}`;
    // staggered, and paced against the start so timer lateness does not lower the rate
    const offset = (s / config.sessions) * periodMs;
    let k = 0;
    const tick = (): void => {
      const t = ++turns[s]!;
      // the bodies are encoded once; each message is its own small head before one of them
      const head = Buffer.from(`{"type":"snapshot","session_id":"${sid}","turn":${t},"bench_sent":${performance.now()},`);
      const line = Buffer.concat([head, bodies[(t - 1) % bodies.length]!]);
      ws.send(line, { binary: false });
      if (measuring) {
        sent++;
        bytesSent += line.length;
      }
      k++;
      timers[s] = setTimeout(tick, Math.max(0, started + offset + k * periodMs - performance.now()));
    };
    timers[s] = setTimeout(tick, offset);
  }
  await new Promise((r) => setTimeout(r, warmupMs));
  measuring = true;
  const cpu0 = cpuSeconds(relay.pid);
  const main0 = cpuSeconds(relay.pid, relay.pid);
  const own0 = process.cpuUsage();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, config.seconds * 1000));
  const elapsed = (performance.now() - t0) / 1000;
  const cpu1 = cpuSeconds(relay.pid);
  const main1 = cpuSeconds(relay.pid, relay.pid);
  const own = process.cpuUsage(own0);
  measuring = false;
  for (const t of timers) clearTimeout(t);
  const health = (await (await fetch(`${relay.url}api/health`)).json()) as { memory: { rss: number } };
  for (const ws of [...harnesses, ...viewers]) ws.terminate();

  const sorted = Float64Array.from(latencies).sort();
  if (firstError !== null) console.log(`  first error: ${firstError}`);
  return {
    config,
    loadBefore,
    cpuMsPerSnapshot: acked === 0 ? Number.NaN : ((cpu1 - cpu0) * 1000) / acked,
    mainCpuMsPerSnapshot: acked === 0 ? Number.NaN : ((main1 - main0) * 1000) / acked,
    bytesPerSnapshot: sent === 0 ? Number.NaN : bytesSent / sent,
    offered: sent / elapsed,
    sustained: acked / elapsed,
    delivered: delivered / elapsed,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    max: sorted.length === 0 ? Number.NaN : sorted[sorted.length - 1]!,
    mbPerSecond: bytesSent / elapsed / 1e6,
    relayRssMiB: health.memory.rss / 2 ** 20,
    relayCpu: (cpu1 - cpu0) / elapsed,
    clientCpu: (own.user + own.system) / 1e6 / elapsed,
    errors,
  };
}

function line(r: Result): string {
  const c = r.config;
  const f = (n: number, d = 0): string => n.toFixed(d);
  return (
    `  ${String(c.sessions).padStart(3)} sessions × ${c.ratePerSession}/s → ${String(c.viewers).padStart(2)} viewers, ${c.wire} wire (${f(r.bytesPerSnapshot / 1024, 1)} KB/snapshot), analysis ${c.analysis ? 'on' : 'off'}, load ${f(r.loadBefore, 2)} before: ` +
    `sustained ${f(r.sustained)} snapshots/s (offered ${f(r.offered)}, ${f(r.mbPerSecond, 1)} MB/s in), ` +
    `delivered ${f(r.delivered)}/s, latency p50 ${f(r.p50, 1)} ms p99 ${f(r.p99, 1)} ms max ${f(r.max, 1)} ms; ` +
    `relay CPU ${f(r.relayCpu * 100)}% = ${f(r.cpuMsPerSnapshot, 2)} ms/snapshot (main thread ${f(r.mainCpuMsPerSnapshot, 2)}, other threads: analysis, GC, I/O ${f(r.cpuMsPerSnapshot - r.mainCpuMsPerSnapshot, 2)}), RSS ${f(r.relayRssMiB)} MiB, load generator CPU ${f(r.clientCpu * 100)}%${r.errors > 0 ? `; ${r.errors} ERRORS` : ''}`
  );
}

export interface RelayBenchOptions {
  seconds?: number;
  textChars?: number;
  rate?: number;
  /** what the harnesses send: the clients' default compact wire (contract §7), or every text every time */
  wire?: Wire;
  /** also run the goal configuration with --no-analysis, for comparison */
  compareAnalysis?: boolean;
  /** only the goal configuration (100 sessions, 10 viewers) */
  goalOnly?: boolean;
  /** skip the append micro-benchmark */
  noAppend?: boolean;
}

/** `--wire whole` among the arguments (`npm run bench -- relay --wire whole` passes them through run.ts). */
function wireFromArgv(): Wire {
  const i = process.argv.indexOf('--wire');
  const v = i === -1 ? undefined : process.argv[i + 1];
  if (v === undefined) return 'compact';
  if (v !== 'compact' && v !== 'whole') throw new Error(`--wire must be compact or whole, got ${JSON.stringify(v)}`);
  return v;
}

export async function benchRelay(options: RelayBenchOptions = {}): Promise<void> {
  const seconds = options.seconds ?? 8;
  const rate = options.rate ?? 10;
  const textChars = options.textChars ?? 400;
  const wire = options.wire ?? wireFromArgv();
  const spanCount = 200;
  // enough bodies for every turn of a run (2 s warm-up, the window, the stop) before one repeats
  const bodies = snapshotBodies(wire, Math.ceil((seconds + 4) * rate * 1.5), spanCount, textChars);
  const avgKB = bodies.reduce((n, b) => n + b.length, 0) / bodies.length / 1024;
  console.log(
    `relay: loopback, ${spanCount} spans of ~${textChars} chars per snapshot (a simulated session, ${wire} wire: ${avgKB.toFixed(1)} KB a snapshot on average, ` +
      `the first ${(bodies[0]!.length / 1024).toFixed(0)} KB whole), ${seconds} s measured after 2 s warm-up; ` +
      `${os.availableParallelism()} cores, load average ${os.loadavg()[0]!.toFixed(2)} before (latency needs the relay to have a core to itself)`,
  );
  const results: Result[] = [];
  const configs: [number, number, boolean][] = options.goalOnly
    ? [[100, 10, true]]
    : [
        [10, 5, true],
        [100, 10, true],
      ];
  if (options.compareAnalysis ?? true) configs.push([100, 10, false]);
  for (const [sessions, viewers, analysis] of configs) {
    const r = await runOne({ wire, analysis, sessions, viewers, ratePerSession: rate, spans: spanCount, textChars, seconds }, bodies);
    results.push(r);
    console.log(line(r));
  }
  const goal = results.find((r) => r.config.sessions === 100 && r.config.analysis)!;
  const met = goal.sustained >= 0.97 * 1000 && goal.p99 < 100 && goal.errors === 0;
  console.log(
    `  goal (100 sessions × 10/s to 10 viewers, ${wire} wire, analysis on: sustained 1,000/s, p99 < 100 ms): ${met ? 'met' : 'NOT met'}` +
      (met && goal.p99 < 50 ? ' (stretch p99 < 50 ms met too)' : ''),
  );
  if (!(options.noAppend ?? false)) benchLinkCheck(Buffer.from(asciiJson(spansJson(spanCount, textChars))));
}

/**
 * What the store's check that a log was not deleted under it (one fstat per append,
 * docs/security.md) costs: the relay's append path (SessionLogStore.append, check
 * included) against the bare write it starts with (writev of the same line), in
 * alternating rounds so that other load on the machine hits both alike.
 */
function benchLinkCheck(spans: Buffer, rounds = 5, perRound = 2000): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-bench-append-'));
  const line = Buffer.concat([Buffer.from('{"type":"snapshot","session_id":"b","turn":1,"spans":'), spans, Buffer.from('}')]);
  const newline = Buffer.from('\n');
  let storeNs = 0n;
  let bareNs = 0n;
  let fstatNs = 0n;
  try {
    const store = new SessionLogStore({ dataDir: dir });
    fs.mkdirSync(store.sessionsDir, { recursive: true });
    const bareFd = fs.openSync(path.join(dir, 'bare.jsonl'), 'a');
    for (let r = 0; r < rounds; r++) {
      let t = process.hrtime.bigint();
      for (let i = 0; i < perRound; i++) store.append({ sessionId: 'b', expectedLastSeq: r * perRound + i, bytes: line, turn: null, header: null });
      storeNs += process.hrtime.bigint() - t;
      t = process.hrtime.bigint();
      for (let i = 0; i < perRound; i++) fs.writevSync(bareFd, [line, newline]);
      bareNs += process.hrtime.bigint() - t;
      t = process.hrtime.bigint();
      for (let i = 0; i < perRound; i++) fs.fstatSync(bareFd);
      fstatNs += process.hrtime.bigint() - t;
    }
    store.close();
    fs.closeSync(bareFd);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const n = rounds * perRound;
  const us = (ns: bigint): string => (Number(ns) / n / 1000).toFixed(2);
  console.log(
    `  append of a ${(line.length / 1024).toFixed(0)} KB line: store (with the deleted-log check) ${us(storeNs)} µs, bare writev ${us(bareNs)} µs ` +
      `(ratio ${(Number(storeNs) / Number(bareNs)).toFixed(2)}); the check alone (fstat) ${us(fstatNs)} µs = ${((100 * Number(fstatNs)) / Number(storeNs)).toFixed(1)}% of an append`,
  );
}

if (import.meta.filename === process.argv[1] || process.argv[1]?.endsWith('bench/relay.ts')) {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string' },
      'text-chars': { type: 'string' },
      rate: { type: 'string' },
      wire: { type: 'string' },
      'goal-only': { type: 'boolean', default: false },
      'no-compare': { type: 'boolean', default: false },
      'append-only': { type: 'boolean', default: false },
    },
  });
  if (values['append-only']) benchLinkCheck(Buffer.from(asciiJson(spansJson(200, 400))));
  else
    await benchRelay({
      ...(values.rate === undefined ? {} : { rate: Number(values.rate) }),
      ...(values.seconds === undefined ? {} : { seconds: Number(values.seconds) }),
      ...(values['text-chars'] === undefined ? {} : { textChars: Number(values['text-chars']) }),
      goalOnly: values['goal-only'],
      compareAnalysis: !values['no-compare'],
      noAppend: values['goal-only'],
    });
}
