// The analysis thread's work per stored line, without the relay around it (issue 12 item 2):
// the relay bench's compact lines of 100 sessions, fed to analyseLine as an analysis thread
// feeds them (sessionEngine.ts), after a warm-up. Prints µs per line; BENCH_PROFILE=dir
// writes a CPU profile (run under node --cpu-prof) for bench/profileTop.ts.
//
//   node --import tsx bench/analysisLine.ts [--sessions N] [--lines N]
import { parseArgs } from 'node:util';
import { COMPACT_WIRE } from '../src/core/compact.ts';
import { analyseLine, newSessionEngine } from '../src/server/analysis/sessionEngine.ts';
import { snapshotBodies } from './relay.ts';

const { values } = parseArgs({ options: { sessions: { type: 'string' }, lines: { type: 'string' }, 'text-chars': { type: 'string' } } });
const sessions = Number(values.sessions ?? 100);
const lines = Number(values.lines ?? 20000);
const warmup = Math.min(lines, 5000);
// enough bodies that no session wraps around (a compact body names the turn before it)
const bodies = snapshotBodies('compact', Math.ceil((lines + warmup) / sessions) + 1, 200, Number(values['text-chars'] ?? 400));
const engines = Array.from({ length: sessions }, () => newSessionEngine());
const turns = new Array<number>(sessions).fill(0);
let seq = 0;
for (let s = 0; s < sessions; s++) {
  const header = Buffer.from(JSON.stringify({ type: 'session', session_id: `bench-${s}`, title: 'bench', wire: COMPACT_WIRE }));
  analyseLine(engines[s]!, ++seq, header);
}
function feed(n: number): number {
  let verdicts = 0;
  for (let i = 0; i < n; i++) {
    const s = i % sessions;
    const t = ++turns[s]!;
    const head = Buffer.from(`{"type":"snapshot","session_id":"bench-${s}","turn":${t},"bench_sent":${i},`);
    const line = Buffer.concat([head, bodies[(t - 1) % bodies.length]!]);
    const o = analyseLine(engines[s]!, ++seq, line);
    if (o?.k === 'turn') verdicts++;
    else if (o?.k === 'error') throw new Error(o.message);
  }
  return verdicts;
}
feed(warmup); // warm-up: JIT and every session past its whole first snapshot
const t0 = performance.now();
const cpu0 = process.cpuUsage();
const verdicts = feed(lines);
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
console.log(
  `analysis thread work: ${sessions} sessions, ${lines} lines (${verdicts} verdicts): ${((ms * 1000) / lines).toFixed(1)} µs a line wall, ${((cpu.user + cpu.system) / lines).toFixed(1)} µs CPU`,
);
