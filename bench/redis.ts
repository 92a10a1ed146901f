// `npm run bench -- redis`: the relay's load through two relays on one Redis (docs/scale-out.md):
// harnesses write to relay A, dashboards follow on relay B, both `serve --store redis://…`
// child processes on a redis-server of the bench's own (no persistence). Each snapshot has
// 200 spans; it runs once with whole snapshots (version 1) and once with the compact wire
// (contract §7: 5 of 200 texts change per turn). Prints sustained rate, the latency from
// sending on A to receiving on B, and bytes in, from one run, with the load average, and
// what each relay analysed (analysis on, the default: on Redis every relay analyses every
// session, so B analyses what A stored).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { WebSocket } from 'ws';
import { startRedis } from '../test/redis/redisServer.ts';
import { open, startRelay } from './relay.ts';

/** A relay child process: on Redis (`store` a URL) or on JSONL files in a temporary directory (`store` null), removed when it stops. */
async function relay(store: string | null, extra: readonly string[] = []): ReturnType<typeof startRelay> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-bench-files-'));
  const removeData = (): void => fs.rmSync(dataDir, { recursive: true, force: true });
  const r = await startRelay(dataDir, [...(store === null ? [] : ['--store', store]), ...extra]).catch((e: unknown) => {
    removeData();
    throw e;
  });
  return {
    ...r,
    stop: async () => {
      await r.stop();
      removeData();
    },
  };
}

function spansJson(compact: boolean, turn: number): string {
  const spans = [];
  for (let i = 0; i < 200; i++) {
    const changes = i < 5;
    const text = `span ${i} ${changes ? `turn ${turn}` : 'steady'} ` + 'lorem ipsum dolor '.repeat(22);
    const s: Record<string, unknown> = { span_id: `m${i}`, score: (i % 97) / 97, text_sha256: null, tokens: 100 };
    if (!compact || changes || turn === 1) s.text = text;
    spans.push(s);
  }
  return JSON.stringify(spans);
}

export async function runOne(
  store: string | null,
  compact: boolean,
  sessions: number,
  rate: number,
  viewers: number,
  seconds: number,
  extra: readonly string[] = [],
): Promise<string> {
  // on files one relay plays both parts (a data directory has one relay)
  const [a, b] = store === null ? await relay(null, extra).then((r) => [r, r] as const) : await Promise.all([relay(store, extra), relay(store, extra)]);
  const latencies: number[] = [];
  let measuring = false;
  let acked = 0;
  let errors = 0;
  let bytes = 0;
  let sent = 0;
  const subs: WebSocket[] = [];
  const run = `${compact ? 'c' : 'w'}${Date.now()}`;
  for (let v = 0; v < viewers; v++) {
    const ws = await open(`${b.url.replace(/^http/, 'ws')}api/sessions/${run}-${v % sessions}/subscribe?since=0`);
    ws.on('message', (data: Buffer) => {
      const head = data.toString('latin1', 0, 200);
      const at = head.indexOf('"bench_sent":');
      if (at === -1 || !measuring) return;
      latencies.push(performance.now() - Number.parseFloat(head.slice(at + 13, head.indexOf(',', at))));
    });
    subs.push(ws);
  }
  const harnesses: WebSocket[] = [];
  for (let s = 0; s < sessions; s++) {
    const ws = await open(`${a.url.replace(/^http/, 'ws')}api/ingest`);
    ws.on('message', (d: Buffer) => {
      if (d.includes('"type":"ack"')) {
        if (measuring) acked++;
      } else errors++;
    });
    ws.send(JSON.stringify({ type: 'session', session_id: `${run}-${s}`, ...(compact ? { wire: '1.1' } : {}) }));
    harnesses.push(ws);
  }
  const periodMs = 1000 / rate;
  const started = performance.now();
  const timers: NodeJS.Timeout[] = [];
  harnesses.forEach((ws, s) => {
    let t = 0;
    const tick = (): void => {
      t++;
      const line = `{"type":"snapshot","session_id":"${run}-${s}","turn":${t},"bench_sent":${performance.now()},${compact && t > 1 ? `"base_turn":${t - 1},` : ''}"spans":${spansJson(compact, t)}}`;
      ws.send(line);
      if (measuring) {
        sent++;
        bytes += Buffer.byteLength(line);
      }
      timers[s] = setTimeout(tick, Math.max(0, started + (s / sessions) * periodMs + t * periodMs - performance.now()));
    };
    timers[s] = setTimeout(tick, (s / sessions) * periodMs);
  });
  await new Promise((r) => setTimeout(r, 2000));
  measuring = true;
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const elapsed = (performance.now() - t0) / 1000;
  measuring = false;
  for (const t of timers) clearTimeout(t);
  for (const ws of [...harnesses, ...subs]) ws.terminate();
  // the analysis (on by default): with Redis each relay analyses every session, B those it only followed
  const analysis = async (url: string): Promise<string> => {
    const h = (await (await fetch(`${url}api/health`)).json()) as { analysis: { analysed: number; analysis_ms: number } | null };
    return h.analysis === null ? 'off' : `${h.analysis.analysed} snapshots, ${(h.analysis.analysis_ms / Math.max(1, h.analysis.analysed)).toFixed(2)} ms each`;
  };
  const analysed = a === b ? `; analysed ${await analysis(a.url)}` : `; analysed on A ${await analysis(a.url)}, on B ${await analysis(b.url)}`;
  await Promise.all(a === b ? [a.stop()] : [a.stop(), b.stop()]);
  const sorted = Float64Array.from(latencies).sort();
  const pct = (p: number): string => (sorted.length === 0 ? 'n/a' : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!.toFixed(1));
  return (
    `  ${store === null ? 'files, one relay ' : 'Redis, relays A+B'} ${compact ? 'compact (1.1)' : 'whole (1)    '}${extra.length > 0 ? ` ${extra.join(' ')}` : ''} ${sessions} sessions × ${rate}/s → ${viewers} viewers: sustained ${(acked / elapsed).toFixed(0)} snapshots/s ` +
    `(offered ${(sent / elapsed).toFixed(0)}), ${(bytes / Math.max(1, sent) / 1024).toFixed(1)} KB a snapshot, ${(bytes / elapsed / 1e6).toFixed(1)} MB/s in; ` +
    `A→B latency p50 ${pct(0.5)} ms p99 ${pct(0.99)} ms${analysed}${errors > 0 ? `; ${errors} ERRORS` : ''}`
  );
}

export async function benchRedis(): Promise<void> {
  const redis = await startRedis();
  try {
    console.log(
      `redis: the JSONL store (one relay) and two relays (ingest on A, dashboards on B) on one redis-server without persistence, 200 spans a snapshot, 6 s after 2 s warm-up; ` +
        `${os.availableParallelism()} cores, load average ${os.loadavg()[0]!.toFixed(2)} before`,
    );
    for (const store of [null, redis.url]) for (const compact of [false, true]) console.log(await runOne(store, compact, 20, 10, 5, 6));
    // what the analysis costs on two relays (each analyses every session), next to the same load without it
    console.log(await runOne(redis.url, true, 20, 10, 5, 6, ['--no-analysis']));
  } finally {
    await redis.stop();
  }
}
