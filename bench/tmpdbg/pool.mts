import { snapshotBodies } from '/work/hr/bench/relay.ts';
import { COMPACT_WIRE } from '/work/hr/src/core/compact.ts';
import { AnalysisThreads } from '/work/hr/src/server/analysis/analysisThreads.ts';
const bodies = snapshotBodies('compact', 60, 200, 400);
const pool = new AnalysisThreads(1, async function* () {}, console.log);
const S = 100, N = 60;
const t0 = performance.now();
let n = 0; let errs = 0; let busy = 0;
const all: Promise<unknown>[] = [];
for (let s = 0; s < S; s++) all.push(pool.line(`b${s}`, 1, Buffer.from(JSON.stringify({ type: 'session', session_id: `b${s}`, title: 'b', wire: COMPACT_WIRE }))));
await Promise.all(all);
console.log(`started after ${(performance.now() - t0).toFixed(0)} ms`);
const t1 = performance.now();
// paced: 10 lines per session per second, like the bench, in ticks of 10 ms
for (let t = 1; t <= N; t++) {
  for (let s = 0; s < S; s++) {
    const line = Buffer.concat([Buffer.from(`{"type":"snapshot","session_id":"b${s}","turn":${t},"bench_sent":1,`), bodies[t - 1]!]);
    all.push(pool.line(`b${s}`, t + 1, line).then((a) => { n++; busy += a.ms; if (a.o?.k === 'error') errs++; }));
    if (s % 10 === 9) await new Promise((r) => setTimeout(r, 10));
  }
  console.log(`t=${t} sent; answered ${n}, elapsed ${((performance.now() - t1) / 1000).toFixed(1)} s, active ${pool.activeMs().toFixed(0)} ms, engine ms ${busy.toFixed(0)}`);
  if (t >= 12) break;
}
await Promise.all(all);
console.log(`answered ${n} in ${((performance.now() - t1) / 1000).toFixed(2)} s; errors ${errs}; engine ${(busy / n).toFixed(3)} ms/line; active ${pool.activeMs().toFixed(0)}`);
await pool.close();
