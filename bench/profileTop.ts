// Summarises a V8 .cpuprofile (node --cpu-prof, e.g. the relay's under BENCH_PROFILE=dir
// npm run bench -- relay): self time by function and by source file, as shares of the
// profile's sampled time, so a run says where the relay's CPU per snapshot goes.
//
//   node --import tsx bench/profileTop.ts <file.cpuprofile> [--top N] [--inclusive fnA,fnB]
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface Share {
  name: string;
  ms: number;
  share: number;
}

/** Self time per function and per file, largest first. */
export function profileTop(file: string, inclusiveOf: readonly string[] = []): { totalMs: number; functions: Share[]; files: Share[]; inclusive: Share[] } {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = (p.timeDeltas[i] ?? 0) / 1000;
    total += dt;
    self.set(p.samples[i]!, (self.get(p.samples[i]!) ?? 0) + dt);
  }
  const fns = new Map<string, number>();
  const files = new Map<string, number>();
  const root = path.resolve(import.meta.dirname, '..');
  for (const [id, ms] of self) {
    const f = byId.get(id)!.callFrame;
    const url = f.url.replace(/^file:\/\//, '').replace(root + '/', '');
    const where = url === '' ? '' : ` ${url}:${f.lineNumber + 1}`;
    const name = `${f.functionName || '(anonymous)'}${where}`;
    fns.set(name, (fns.get(name) ?? 0) + ms);
    const fileKey = url === '' ? `(${f.functionName || 'native'})` : url.replace(/^.*node_modules\//, 'node_modules/');
    files.set(fileKey, (files.get(fileKey) ?? 0) + ms);
  }
  // inclusive time of the named functions: a sample counts once for each name on its stack
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const incl = new Map<string, number>(inclusiveOf.map((n) => [n, 0]));
  for (const [id, ms] of self) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = byId.get(at)!.callFrame.functionName;
      if (incl.has(name) && !seen.has(name)) {
        seen.add(name);
        incl.set(name, incl.get(name)! + ms);
      }
    }
  }
  const sorted = (m: Map<string, number>): Share[] =>
    [...m].map(([name, ms]) => ({ name, ms, share: total === 0 ? 0 : ms / total })).sort((a, b) => b.ms - a.ms);
  return { totalMs: total, functions: sorted(fns), files: sorted(files), inclusive: sorted(incl) };
}

if (process.argv[1]?.endsWith('bench/profileTop.ts')) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '25' }, inclusive: { type: 'string', default: '' } },
  });
  const top = Number(values.top);
  for (const file of positionals) {
    const r = profileTop(
      file,
      values.inclusive.split(',').filter((n) => n !== ''),
    );
    console.log(`${file}: ${(r.totalMs / 1000).toFixed(1)} s sampled`);
    const pct = (s: Share): string => `${(100 * s.share).toFixed(1).padStart(5)}%`;
    console.log('  by function (self time):');
    for (const s of r.functions.slice(0, top)) console.log(`  ${pct(s)}  ${s.name}`);
    if (r.inclusive.length > 0) console.log('  inclusive (self and callees):');
    for (const s of r.inclusive) console.log(`  ${pct(s)}  ${s.name}`);
    console.log('  by file (self time):');
    for (const s of r.files.slice(0, top)) console.log(`  ${pct(s)}  ${s.name}`);
  }
}
