// The serial tail of one `context-health report` run, from its CPU profiles (node --cpu-prof
// writes one per thread: the CLI's, tsx's loader, the drawing thread): when the CLI's thread
// last ran the check pipeline (reading the file), when the last profile ends, and what each
// thread ran after that read, by where the code comes from. V8 samples wall-clock intervals,
// so on a loaded machine a thread waiting for a core still counts: compare runs of one load.
//
//   node --cpu-prof --cpu-prof-dir=DIR bin/context-health.mjs report FILE --incident 1 --out OUT
//   node --import tsx bench/profileTail.ts DIR
import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

interface Thread {
  file: string;
  profile: Profile;
  /** each sample's time (µs, the profiles' shared clock), node, and the interval it stands for */
  samples: { t: number; id: number; dt: number }[];
  /** each node's source urls, its own first, then its callers' */
  stack: (id: number) => string[];
  name: (id: number) => string;
}

function thread(file: string): Thread {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  let t = profile.startTime;
  const samples = profile.samples.map((id, i) => {
    t += profile.timeDeltas[i] ?? 0;
    return { t, id, dt: profile.timeDeltas[i + 1] ?? 0 };
  });
  const stack = (id: number): string[] => {
    const out: string[] = [];
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) out.push(byId.get(n)!.callFrame.url);
    return out;
  };
  return { file: path.basename(file), profile, samples, stack, name: (id) => byId.get(id)!.callFrame.functionName };
}

/** where a sample's code comes from: resvg, the drawing bundle, the analysis bundle, the project's sources, or V8's own entries */
function origin(th: Thread, id: number): string {
  const name = th.name(id);
  if (name === '(idle)') return 'idle';
  if (name.startsWith('(')) return name;
  const urls = th.stack(id);
  if (urls.some((u) => u.includes('resvg'))) return 'resvg';
  if (urls.some((u) => u.includes('draw.mjs'))) return 'draw.mjs';
  if (urls.some((u) => u.includes('analyse.mjs'))) return 'analyse.mjs';
  if (urls.some((u) => u.includes('/src/'))) return 'src';
  return 'node';
}

export function profileTail(dir: string): string {
  const threads = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort()
    .map((f) => thread(path.join(dir, f)));
  if (threads.length === 0) throw new Error(`no .cpuprofile in ${dir}`);
  const t0 = Math.min(...threads.map((th) => th.profile.startTime));
  const end = Math.max(...threads.map((th) => th.profile.endTime));
  // the CLI's thread is the first profile (thread 0); its reading is the check pipeline's code
  const cli = threads[0]!;
  let readEnd = t0;
  for (const s of cli.samples) if (cli.stack(s.id).some((u) => /src\/(core|ingest|node\/lineParser|cli\/check)/.test(u))) readEnd = s.t;
  const ms = (us: number): string => (us / 1000).toFixed(0);
  const lines = [`the CLI's thread last ran the check pipeline at ${ms(readEnd - t0)} ms; the last profile ends ${ms(end - readEnd)} ms after that`];
  for (const th of threads) {
    let busy = 0;
    let after = 0;
    const by = new Map<string, number>();
    for (const s of th.samples) {
      const o = origin(th, s.id);
      if (o === 'idle') continue;
      busy += s.dt;
      if (s.t < readEnd) continue;
      after += s.dt;
      by.set(o, (by.get(o) ?? 0) + s.dt);
    }
    const parts = [...by]
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${ms(v)}`)
      .join(', ');
    lines.push(`  ${th.file}: ${ms(busy)} ms sampled busy; after the read ${ms(after)} ms${parts === '' ? '' : ` (${parts})`}`);
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2];
  if (dir === undefined) throw new Error('usage: node --import tsx bench/profileTail.ts <dir of .cpuprofile files>');
  console.log(profileTail(dir));
}
