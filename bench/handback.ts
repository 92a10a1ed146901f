// `npm run bench -- handback` (docs/hooks.md "What it costs"): the SessionStart hook on
// generated Claude Code sessions with compactions (bench/handbackSessions.ts). Each
// compaction's hook runs on the transcript cut right after its summary, as Claude Code runs
// it; `check` on the whole transcript then says what the audit called lost and which
// dropped files the agent read again. Printed per session and in total: every lost prompt
// handed back or counted as left out; the share of re-read dropped files the hand-back
// names (goal ≥ 90%); the tokens handed back against the tokens of those re-reads; and the
// hook's time on a 5 MB transcript (goal ≤ 1 s), in process and as a process.
import { spawnSync } from 'node:child_process';
import { build } from 'esbuild';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkTranscript } from '../src/cli/check.ts';
import { auditTranscript } from '../src/cli/hook/auditTranscript.ts';
import { handbackOf } from '../src/cli/hook/handbackOf.ts';
import { transcriptCounts } from '../src/cli/hook/statusline.ts';
import { DEFAULT_HANDBACK_BUDGET, quotePrompt, type Handback } from '../src/core/handback.ts';
import { estimateTokens } from '../src/core/spanScan.ts';
import { loadAverage } from './cpu.ts';
import { generateSession, type GeneratedSession, type SessionPlan } from './handbackSessions.ts';
import { OUT } from './transcripts.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin/context-health.mjs');

const PLANS: SessionPlan[] = [
  { name: 'hb-short', seed: 11, compactions: 2, calls: 60, fileChars: 2500 },
  { name: 'hb-chatty', seed: 23, compactions: 3, calls: 90, fileChars: 1500 },
  { name: 'hb-reader', seed: 37, compactions: 3, calls: 120, fileChars: 4000 },
  { name: 'hb-long', seed: 41, compactions: 5, calls: 80, fileChars: 3000 },
  { name: 'hb-edits', seed: 53, compactions: 4, calls: 100, fileChars: 2000 },
  { name: 'hb-wide', seed: 67, compactions: 2, calls: 200, fileChars: 3500 },
  // many long prompts, few quoted: more than the budget holds
  { name: 'hb-prompty', seed: 83, compactions: 3, calls: 150, fileChars: 1500, promptRate: 0.3, quoteRate: 0.2 },
];
const BIG: SessionPlan = { name: 'hb-5mb', seed: 79, compactions: 4, calls: 320, fileChars: 6000 };

interface Tally {
  lost: number;
  handed: number;
  counted: number;
  reread: number;
  named: number;
  handedTokens: number;
  rereadTokens: number;
}

const zero = (): Tally => ({ lost: 0, handed: 0, counted: 0, reread: 0, named: 0, handedTokens: 0, rereadTokens: 0 });

/** The first Read result of each path after `from` and before `to` (byte offsets), in contract §2.3 tokens. */
function rereadTokens(full: string, from: number, to: number): Map<string, number> {
  const uses = new Map<string, string>();
  const out = new Map<string, number>();
  for (const line of full.slice(from, to).split('\n')) {
    if (line === '') continue;
    const rec = JSON.parse(line) as { type: string; message?: { content?: unknown } };
    const content = Array.isArray(rec.message?.content) ? (rec.message.content as Record<string, unknown>[]) : [];
    for (const b of content) {
      if (b.type === 'tool_use' && b.name === 'Read') uses.set(b.id as string, (b.input as { file_path: string }).file_path);
      if (b.type === 'tool_result' && uses.has(b.tool_use_id as string)) {
        const p = uses.get(b.tool_use_id as string)!;
        if (!out.has(p)) out.set(p, estimateTokens(String(b.content)));
      }
    }
  }
  return out;
}

function hookAt(file: string, session: string): Handback {
  const audit = auditTranscript(file, session);
  if ('error' in audit || audit.compaction === null) throw new Error(`no compaction in ${file}`);
  return handbackOf(audit.compaction, file, DEFAULT_HANDBACK_BUDGET, audit.whole);
}

async function measureSession(g: GeneratedSession, dir: string): Promise<Tally> {
  const fullFile = path.join(dir, `${g.name}.jsonl`);
  fs.writeFileSync(fullFile, g.full);
  const report = await checkTranscript(fullFile, { userThresholds: {} });
  const records = (report.report.sessions[0]?.compactions ?? []).filter((c) => c.kind === 'compact');
  const t = zero();
  g.cuts.forEach((cut, k) => {
    const cutFile = path.join(dir, `${g.name}.cut${k + 1}.jsonl`);
    fs.writeFileSync(cutFile, g.full.slice(0, cut));
    const h = hookAt(cutFile, g.name);
    const rec = records[k]!;
    const lost = [...rec.items, ...rec.carried].filter((it) => it.kind === 'user_prompt' && it.status === 'lost');
    const distinct = [...new Set(lost.map((it) => it.text))];
    const handed = distinct.filter((p) => h.text.includes(quotePrompt(p))).length;
    t.lost += distinct.length;
    t.handed += handed;
    // a lost prompt not in the text must be among those the text counts as left out
    t.counted += Math.min(distinct.length - handed, h.prompts.left);
    const tokens = rereadTokens(g.full, cut, g.cuts[k + 1] ?? g.full.length);
    for (const it of rec.items) {
      if (it.kind !== 'file' || it.status !== 'lost' || it.refetched_at === null) continue;
      t.reread++;
      if (h.text.includes(`- ${it.text} (`)) t.named++;
      t.rereadTokens += tokens.get(it.text) ?? 0;
    }
    t.handedTokens += h.tokens;
  });
  return t;
}

const pct = (a: number, b: number): string => (b === 0 ? 'n/a' : `${((100 * a) / b).toFixed(1)}%`);

function line(name: string, t: Tally): string {
  return `  ${name.padEnd(10)} lost prompts ${String(t.lost).padStart(3)}: handed back ${String(t.handed).padStart(3)}, counted as left out ${String(t.counted).padStart(2)} (${t.handed + t.counted === t.lost ? 'all' : 'MISSING some'}) · dropped files re-read ${String(t.reread).padStart(3)}, named ${pct(t.named, t.reread).padStart(6)} · tokens handed back ${String(t.handedTokens).padStart(6)} vs re-reads ${String(t.rereadTokens).padStart(7)}`;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/** `hook` and `statusline` bundled as the package bundles them (build/cli/hook.mjs, scripts/build-package.ts), to time them as installed. */
async function bundledEntry(): Promise<string> {
  const dir = path.join(OUT, 'hookcli');
  await build({
    absWorkingDir: ROOT,
    // the hook's audit runs in a process of its own (src/cli/hook/auditProcess.ts), found beside hook.mjs
    entryPoints: { hook: 'src/cli/hook/entry.ts', hookAudit: 'src/cli/hook/hookAudit.ts' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    packages: 'external',
    logLevel: 'warning',
  });
  const run = path.join(dir, 'run.mjs');
  // the bench's runner also reports the process's CPU time (user + system), which load on a shared machine inflates less than wall time
  fs.writeFileSync(
    run,
    "import { hookMain } from './hook.mjs';\nprocess.exitCode = await hookMain(process.argv.slice(2));\nconst u = process.resourceUsage();\nprocess.stderr.write(`cpu ${(u.userCPUTime + u.systemCPUTime) / 1000}\\n`);\n",
  );
  return run;
}

/** the CPU time the last bundled run reported (ms) */
let lastCpu = Number.NaN;

function spawnMs(args: string[], stdin: string, script = BIN): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [script, ...args], { input: stdin, cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  lastCpu = Number(/cpu ([\d.]+)/.exec(r.stderr)?.[1] ?? Number.NaN);
  return performance.now() - t0;
}

async function timing(dir: string): Promise<void> {
  const g = generateSession(BIG);
  const file = path.join(dir, 'hb-5mb.cut.jsonl');
  fs.writeFileSync(file, g.full.slice(0, g.cuts.at(-1)));
  const mb = fs.statSync(file).size / 1e6;
  const inProcess: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    hookAt(file, BIG.name);
    inProcess.push(performance.now() - t0);
  }
  const event = (source: string): string =>
    JSON.stringify({ session_id: BIG.name, transcript_path: file, cwd: '/home/dev/app', hook_event_name: 'SessionStart', source });
  const proc: number[] = [];
  const idle: number[] = [];
  for (let i = 0; i < 3; i++) {
    idle.push(spawnMs(['hook'], event('startup')));
    proc.push(spawnMs(['hook'], event('compact')));
  }
  console.log(`\nhook on a ${mb.toFixed(1)} MB transcript cut after its 4th compaction's summary:`);
  console.log(`  in process (read, adapt, audit, hand back): median ${median(inProcess).toFixed(0)} ms of 5 (goal ≤ 1000)`);
  console.log(
    `  as Claude Code runs it from a clone (node bin/context-health.mjs hook, through tsx): median ${median(proc).toFixed(0)} ms of 3; on a startup event (does nothing): ${median(idle).toFixed(0)} ms`,
  );
  const bundled = await bundledEntry();
  const bare: number[] = [];
  const bareCpu: number[] = [];
  const bProc: number[] = [];
  const bCpu: number[] = [];
  const bIdle: number[] = [];
  const idleCpu: number[] = [];
  for (let i = 0; i < 5; i++) {
    bare.push(spawnMs(['const u = process.resourceUsage(); process.stderr.write(`cpu ${(u.userCPUTime + u.systemCPUTime) / 1000}\\n`)'], '', '-e'));
    bareCpu.push(lastCpu);
    bIdle.push(spawnMs(['hook'], event('startup'), bundled));
    idleCpu.push(lastCpu);
    bProc.push(spawnMs(['hook'], event('compact'), bundled));
    bCpu.push(lastCpu);
  }
  console.log(
    `  bundled as the package ships it (build/cli/hook.mjs), median of 5: ${median(bProc).toFixed(0)} ms wall, ${median(bCpu).toFixed(0)} ms CPU; on a startup event ${median(bIdle).toFixed(0)} ms wall, ${median(idleCpu).toFixed(0)} ms CPU; node alone (-e, nothing) ${median(bare).toFixed(0)} ms wall, ${median(bareCpu).toFixed(0)} ms CPU`,
  );
  const status = JSON.stringify({ session_id: BIG.name, transcript_path: file, context_window: { used_percentage: 74 } });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-bench-status-'));
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  try {
    const t0 = performance.now();
    transcriptCounts(file);
    const cold = performance.now() - t0;
    const warm: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t1 = performance.now();
      transcriptCounts(file);
      warm.push(performance.now() - t1);
    }
    const procWarm: number[] = [];
    const warmCpu: number[] = [];
    for (let i = 0; i < 5; i++) {
      procWarm.push(spawnMs(['statusline'], status, bundled));
      warmCpu.push(lastCpu);
    }
    console.log(
      `  statusline: first refresh ${cold.toFixed(0)} ms in process (counts in full); warm ${median(warm).toFixed(1)} ms in process (cache hit; goal ≤ 100); as a bundled process ${median(procWarm).toFixed(0)} ms wall, ${median(warmCpu).toFixed(0)} ms CPU (node's own start included)`,
    );
  } finally {
    process.env.TMPDIR = saved;
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export async function benchHandback(): Promise<void> {
  console.log(
    `\n== handback: the SessionStart hook on generated Claude Code sessions == (${os.availableParallelism()} cores, load average ${loadAverage(' / ')} before)`,
  );
  const dir = path.join(OUT, 'handback');
  fs.mkdirSync(dir, { recursive: true });
  const total = zero();
  for (const plan of PLANS) {
    const t = await measureSession(generateSession(plan), dir);
    console.log(line(plan.name, t));
    for (const k of Object.keys(total) as (keyof Tally)[]) total[k] += t[k];
  }
  console.log(line('total', total));
  console.log(
    `  goals: every lost prompt handed back or counted: ${total.handed + total.counted === total.lost ? 'yes' : 'NO'}; re-read dropped files named ${pct(total.named, total.reread)} (goal ≥ 90%)`,
  );
  await timing(dir);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchHandback();
