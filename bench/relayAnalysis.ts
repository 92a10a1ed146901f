// The relay's analysis (contract §7 verdict in the ack), two figures:
//
// 1. Ack latency, analysis on vs off: the real `context-health serve` in its own process,
//    10 harness WebSockets each sending the snapshots of a simulated session (200 spans of
//    ~400 characters, rewrites, prunes and faults turn to turn) at 10 per second, each send
//    timed to its ack; the same run against `serve --no-analysis`. Prints p50/p99 of both
//    and what the analysis adds.
// 2. Memory: 100 sessions × 10,000 turns through the relay's per-session analysis
//    (SessionHealth: the engine, the summary rings, the verdict memory), fed the stored
//    bytes of each message as the relay feeds them, in-process (a relay run would need
//    ~1 M messages over loopback and a few GB of logs; the log store's memory is bounded
//    separately, docs/relay.md). Small snapshots (20 spans of ~60 characters) so it runs in
//    a minute; heap and RSS after a GC at 1,000, 5,000 and 10,000 turns per session show
//    whether memory follows the number of turns.
//
//   node --import tsx bench/relayAnalysis.ts [--part latency|memory] [--seconds S] [--sessions N] [--turns T]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import type WebSocket from 'ws';
import { asciiJson } from '../src/client/harness.ts';
import { nodeSha256 } from '../src/node/platform.ts';
import { SessionHealth } from '../src/server/analysis/sessionHealth.ts';
import { allFaults, simulateSession } from '../src/sim/scenario.ts';
import { cpuSeconds, open, percentile, startRelay } from './relay.ts';

interface LatencyResult {
  analysis: boolean;
  acks: number;
  p50: number;
  p99: number;
  relayCpu: number;
  /** the relay's own mean time analysing one snapshot (GET /api/health), without any queueing */
  analysisMs: number | null;
}

/** The lines of one simulated session (header first), with `{SID}` where the session id goes. */
function sessionLines(turns: number, spans: number, textChars: number): string[] {
  const lines: string[] = [];
  for (const m of simulateSession({ seed: 11, sessionId: '{SID}', turns, spans, textChars, nonAscii: true, faults: allFaults(turns) }, nodeSha256)) {
    lines.push(asciiJson(JSON.stringify(m)));
  }
  return lines;
}

async function ackLatency(
  analysis: boolean,
  lines: string[],
  sessions: number,
  rate: number,
  seconds: number,
): Promise<LatencyResult & { latencies: number[] }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-bench-analysis-'));
  const relay = await startRelay(dataDir, analysis ? [] : ['--no-analysis']);
  const sockets: WebSocket[] = [];
  const latencies: number[] = [];
  const warmupMs = 2000;
  const start = performance.now();
  const cpu0 = { at: 0, cpu: 0 };
  let sawVerdict = false;
  try {
    await Promise.all(
      Array.from({ length: sessions }, async (_, k) => {
        const ws = await open(`${relay.url.replace(/^http/, 'ws')}api/ingest`);
        sockets.push(ws);
        const sid = `s${k}`;
        let sentAt = 0;
        let next = 0;
        const acked = new Promise<void>((resolve) => {
          const send = (): void => {
            if (performance.now() - start > warmupMs + seconds * 1000 || next >= lines.length) return resolve();
            sentAt = performance.now();
            ws.send(lines[next++]!.replace('{SID}', sid));
          };
          ws.on('message', (data) => {
            const now = performance.now();
            if (now - start > warmupMs) latencies.push(now - sentAt);
            if (!sawVerdict && String(data).includes('"verdict":{')) sawVerdict = true;
            // paced: the next snapshot 1/rate after the previous one was sent
            setTimeout(send, Math.max(0, sentAt + 1000 / rate - now));
          });
          setTimeout(send, (k * 1000) / rate / sessions);
        });
        await acked;
      }).concat(
        (async () => {
          await new Promise((r) => setTimeout(r, warmupMs));
          cpu0.at = performance.now();
          cpu0.cpu = cpuSeconds(relay.pid);
        })(),
      ),
    );
    const relayCpu = (cpuSeconds(relay.pid) - cpu0.cpu) / ((performance.now() - cpu0.at) / 1000);
    if (analysis && !sawVerdict) throw new Error('no ack carried a verdict: is the analysis on?');
    const health = (await (await fetch(`${relay.url}api/health`)).json()) as { analysis: { analysed: number; analysis_ms: number } | null };
    const analysisMs = health.analysis === null ? null : health.analysis.analysis_ms / health.analysis.analysed;
    const sorted = Float64Array.from(latencies).sort();
    return { analysis, acks: latencies.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), relayCpu, analysisMs, latencies };
  } finally {
    for (const ws of sockets) ws.close();
    await relay.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function gc(): void {
  // --expose-gc at run time, so `npm run bench` needs no flag
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

function memoryByTurns(sessions: number, turns: number): { turns: number; heapMiB: number; rssMiB: number; msPerSnapshot: number }[] {
  const lines = sessionLines(turns, 20, 60).map((l) => Buffer.from(l));
  const checkpoints = [Math.min(1000, turns), Math.min(5000, turns), turns].filter((t, i, a) => a.indexOf(t) === i);
  gc();
  const base = process.memoryUsage();
  const healths = Array.from({ length: sessions }, (_, i) => new SessionHealth(`s${i}`, Date.now()));
  const out = [];
  let fed = 1; // the header is line 0
  healths.forEach((h) => h.ingest(1, lines[0]!, Date.now()));
  let busy = 0;
  for (const upTo of checkpoints) {
    const t0 = performance.now();
    for (; fed <= upTo && fed < lines.length; fed++) {
      const line = lines[fed]!;
      for (const h of healths) {
        const r = h.ingest(fed + 1, line, Date.now());
        if (typeof r === 'string') throw new Error(r);
      }
    }
    busy += performance.now() - t0;
    gc();
    const m = process.memoryUsage();
    out.push({
      turns: upTo,
      heapMiB: (m.heapUsed - base.heapUsed) / 2 ** 20,
      rssMiB: m.rss / 2 ** 20,
      msPerSnapshot: busy / ((fed - 1) * sessions),
    });
  }
  return out;
}

export async function benchRelayAnalysis(options: { seconds?: number; sessions?: number; turns?: number; part?: 'latency' | 'memory' } = {}): Promise<void> {
  const seconds = options.seconds ?? 8;
  console.log('\nrelay analysis (contract §7 verdict in the ack)');
  if (options.part !== 'memory') await latencyPart(seconds);
  if (options.part !== 'latency') memoryPart(options.sessions ?? 100, options.turns ?? 10_000);
}

async function latencyPart(seconds: number): Promise<void> {
  const lines = sessionLines(400, 200, 400);
  const kb = Math.round(lines[lines.length - 1]!.length / 1024);
  console.log(
    `  ack latency: 10 sessions × 10 snapshots/s, up to 200 spans of ~400 characters (${kb} KB), ${seconds} s after a 2 s warm-up, off/on alternated twice`,
  );
  // alternated, so that a change in the machine's load falls on both alike
  const runs: (LatencyResult & { latencies: number[] })[] = [];
  for (let round = 0; round < 2; round++) for (const analysis of [false, true]) runs.push(await ackLatency(analysis, lines, 10, 10, seconds));
  const pooled = (analysis: boolean): LatencyResult => {
    const mine = runs.filter((r) => r.analysis === analysis);
    const sorted = Float64Array.from(mine.flatMap((r) => r.latencies)).sort();
    const relayCpu = mine.reduce((a, r) => a + r.relayCpu, 0) / mine.length;
    const timed = mine.filter((r) => r.analysisMs !== null);
    const analysisMs = timed.length === 0 ? null : timed.reduce((a, r) => a + r.analysisMs!, 0) / timed.length;
    return { analysis, acks: sorted.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), relayCpu, analysisMs };
  };
  const off = pooled(false);
  const on = pooled(true);
  for (const r of [off, on]) {
    console.log(
      `    analysis ${r.analysis ? 'on ' : 'off'}: ${r.acks} acks, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, relay CPU ${(r.relayCpu * 100).toFixed(0)}%` +
        (r.analysisMs === null ? '' : `; the relay spent ${r.analysisMs.toFixed(2)} ms analysing each snapshot`),
    );
  }
  console.log(
    `    the analysis adds ${(on.p50 - off.p50).toFixed(2)} ms to p50 (×${(on.p50 / off.p50).toFixed(2)}), ${(on.p99 - off.p99).toFixed(2)} ms to p99; relay CPU ×${(on.relayCpu / off.relayCpu).toFixed(2)}`,
  );
}

function memoryPart(sessions: number, turns: number): void {
  console.log(`  memory: ${sessions} sessions × ${turns} turns through the per-session analysis (20 spans of ~60 characters)`);
  const mem = memoryByTurns(sessions, turns);
  for (const m of mem) {
    console.log(
      `    after ${m.turns} turns each: analysis heap ${m.heapMiB.toFixed(1)} MiB (${((m.heapMiB * 1024) / sessions).toFixed(0)} KiB per session), process RSS ${m.rssMiB.toFixed(0)} MiB, ${(m.msPerSnapshot * 1000).toFixed(0)} µs per snapshot`,
    );
  }
  const first = mem[0]!;
  const last = mem[mem.length - 1]!;
  console.log(`    heap at ${last.turns} turns / at ${first.turns} turns: ×${(last.heapMiB / first.heapMiB).toFixed(2)}`);
}

if (import.meta.filename === process.argv[1] || process.argv[1]?.endsWith('bench/relayAnalysis.ts')) {
  const { values } = parseArgs({ options: { seconds: { type: 'string' }, sessions: { type: 'string' }, turns: { type: 'string' }, part: { type: 'string' } } });
  if (values.part !== undefined && values.part !== 'latency' && values.part !== 'memory') throw new Error('--part is latency or memory');
  await benchRelayAnalysis({
    ...(values.seconds === undefined ? {} : { seconds: Number(values.seconds) }),
    ...(values.sessions === undefined ? {} : { sessions: Number(values.sessions) }),
    ...(values.turns === undefined ? {} : { turns: Number(values.turns) }),
    ...(values.part === undefined ? {} : { part: values.part }),
  });
}
