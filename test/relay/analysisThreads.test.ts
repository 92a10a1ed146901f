// The relay's analysis threads (docs/relay.md "Analysis"): with the sessions' Engines on 0,
// 1 or 2 worker threads every snapshot's ack carries exactly `check --json`'s verdict of
// that turn (contract §7); a killed analysis thread loses no ack and later verdicts stay
// right (its sessions are re-read into the replacement); a restarted relay re-reads its
// logs through the threads.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HarnessClient, type Ack } from '../../src/client/harness.ts';
import type { AckVerdict, Overview } from '../../src/protocol/relay.ts';
import { ANALYSIS_NICE } from '../../src/node/threadPriority.ts';
import { checkVerdicts } from './expectations.ts';
import { exited, ROOT, relaysPerTest, run, spawnServe, tempDir } from './helpers.ts';

const relay = relaysPerTest();
const SAMPLES = path.join(ROOT, 'public/samples');
const samples = fs
  .readdirSync(SAMPLES)
  .filter((f) => f.endsWith('.jsonl'))
  .map((f) => path.join(SAMPLES, f));

/** check --json's verdicts of every sample (their session ids differ) */
async function expectedVerdicts(files: string[]): Promise<Map<string, AckVerdict>> {
  const all = new Map<string, AckVerdict>();
  for (const f of files) {
    const { byTurn, stderr } = await checkVerdicts(f);
    expect(stderr).not.toMatch(/Error/);
    for (const [k, v] of byTurn) all.set(k, v);
  }
  return all;
}

function linesOf(file: string): string[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
}

interface Accepted {
  line: number;
  session_id: string;
  turn: number | null;
  verdict?: AckVerdict | null;
}

/** Every ack of a snapshot carries check's verdict of its turn; a header's carries null. Returns the snapshots acked. */
function expectVerdicts(acks: { sessionId: string; turn: number | null; verdict?: AckVerdict | null }[], expected: Map<string, AckVerdict>): number {
  let n = 0;
  for (const a of acks) {
    if (a.turn === null) {
      expect(a.verdict).toBeNull();
      continue;
    }
    n++;
    expect({ session: a.sessionId, turn: a.turn, verdict: a.verdict }).toEqual({
      session: a.sessionId,
      turn: a.turn,
      verdict: expected.get(`${a.sessionId}\u0000${a.turn}`),
    });
  }
  return n;
}

async function postLines(url: string, lines: string[]): Promise<{ sessionId: string; turn: number | null; verdict?: AckVerdict | null }[]> {
  const res = await fetch(`${url}api/ingest`, { method: 'POST', body: lines.join('\n') + '\n' });
  const accepted = ((await res.json()) as { accepted: Accepted[] }).accepted;
  return accepted.map((a) => ({ sessionId: a.session_id, turn: a.turn, verdict: a.verdict ?? null }));
}

interface Health {
  analysis: { threads?: number; threads_restarted?: number; analysed: number };
}

describe('analysis threads', () => {
  it.each([0, 1, 2])('with %i analysis threads every ack carries check --json’s verdict, every sample in one relay', async (threads) => {
    const expected = await expectedVerdicts(samples);
    const r = await relay({ analysisThreads: threads });
    expect(r.analysis!.threads?.size ?? 0).toBe(threads);
    // the samples' lines interleaved, so that the sessions' lines reach their threads mixed
    const lists = samples.map(linesOf);
    const mixed: string[] = [];
    for (let i = 0; lists.some((l) => i < l.length); i++) for (const l of lists) if (i < l.length) mixed.push(l[i]!);
    const acks = await postLines(r.url, mixed);
    expect(expectVerdicts(acks, expected)).toBe(expected.size);
    const health = (await (await fetch(`${r.url}api/health`)).json()) as Health;
    expect(health.analysis.threads ?? 0).toBe(threads);
  });

  it.each([1, 2])('a killed analysis thread (of %i) loses no ack, and the verdicts stay right afterwards', async (threads) => {
    const a = path.join(SAMPLES, 'all-faults.jsonl');
    const b = path.join(SAMPLES, 'collapse.jsonl');
    const expected = await expectedVerdicts([a, b]);
    const r = await relay({ analysisThreads: threads });
    const pool = r.analysis!.threads!;
    const la = linesOf(a);
    const lb = linesOf(b);
    const acks: Ack[] = [];
    const client = new HarnessClient({ url: r.url });
    // half of each session analysed by the first thread(s)
    acks.push(...(await Promise.all([...la.slice(0, la.length >> 1), ...lb.slice(0, lb.length >> 1)].map((l) => client.send(l)))));
    // the rest of `a` sent while every thread is killed: lines in flight and lines arriving meanwhile
    const inFlight = la.slice(la.length >> 1).map((l) => client.send(l));
    // killed as soon as the last of them is stored: its line (at least) is not answered yet
    while ((r.files.get('all-faults')?.lastSeq ?? 0) < la.length) await new Promise((resolve) => setImmediate(resolve));
    await Promise.all(Array.from({ length: threads }, (_, i) => pool.terminateForTest(i)));
    acks.push(...(await Promise.all(inFlight)));
    // `b` had nothing in flight: its engine is rebuilt from the log before its next line
    acks.push(...(await Promise.all(lb.slice(lb.length >> 1).map((l) => client.send(l)))));
    await client.close();
    expect(acks.length).toBe(la.length + lb.length);
    expect(acks.every((x) => !x.duplicate)).toBe(true);
    expect(expectVerdicts(acks, expected)).toBe(expected.size);
    expect(pool.restarts).toBe(threads);
    expect(r.logs.filter((l) => /analysis thread \d exited/.test(l)).length).toBe(threads);
    expect(r.logs.some((l) => /with [1-9]\d* lines unanswered/.test(l))).toBe(true);
    const health = (await (await fetch(`${r.url}api/health`)).json()) as Health;
    expect(health.analysis.threads_restarted).toBe(threads);
    // the overview counts each turn once (a re-read into a new thread notes nothing again)
    const overview = (await (await fetch(`${r.url}api/overview`)).json()) as Overview;
    for (const id of ['all-faults', 'collapse']) {
      const turns = [...expected.keys()].filter((k) => k.startsWith(`${id}\u0000`)).length;
      expect(overview.sessions.find((s) => s.session_id === id)?.turns).toBe(turns);
    }
  });

  it('a restarted relay re-reads its logs through 2 analysis threads; retries and later messages get check’s verdicts', async () => {
    const expected = await expectedVerdicts(samples);
    const dataDir = tempDir();
    const lists = samples.map(linesOf);
    let r = await relay({ dataDir, analysisThreads: 2 });
    const first = await postLines(
      r.url,
      lists.flatMap((l) => l.slice(0, l.length >> 1)),
    );
    expectVerdicts(first, expected);
    await r.close();
    r = await relay({ dataDir, analysisThreads: 2 });
    // from two lines before where each sample stopped: two retries (their verdicts remembered after the re-reading), then new lines
    const rest = await postLines(
      r.url,
      lists.flatMap((l) => l.slice((l.length >> 1) - 2)),
    );
    expect(countRetried(rest, first)).toBeGreaterThan(0);
    expect(expectVerdicts([...first, ...rest], expected)).toBe(expected.size + countRetried(rest, first));
    await r.analysis!.whenRebuilt();
    const overview = (await (await fetch(`${r.url}api/overview`)).json()) as Overview;
    for (const s of overview.sessions) {
      expect(s.analysed).toBe(true);
      expect(s.turns).toBe([...expected.keys()].filter((k) => k.startsWith(`${s.session_id}\u0000`)).length);
    }
  });
});

/** snapshots acked twice (in `first` and again as retries in `rest`) */
function countRetried(rest: { sessionId: string; turn: number | null }[], first: { sessionId: string; turn: number | null }[]): number {
  const seen = new Set(first.filter((a) => a.turn !== null).map((a) => `${a.sessionId}\u0000${a.turn}`));
  return rest.filter((a) => a.turn !== null && seen.has(`${a.sessionId}\u0000${a.turn}`)).length;
}

describe('serve --analysis-threads', () => {
  it('runs that many analysis threads, and refuses what is not a whole number', async () => {
    const s = await spawnServe(['--port', '0', '--data', tempDir(), '--no-static', '--analysis-threads', '2']);
    try {
      const health = (await (await fetch(`${s.url}api/health`)).json()) as Health;
      expect(health.analysis.threads).toBe(2);
      if (process.platform === 'linux') {
        // each analysis thread lowered its own priority below the main thread's (analysisWorker.ts)
        const pid = s.child.pid!;
        const niceOf = (tid: string): number => Number(fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
        const tids = fs.readdirSync(`/proc/${pid}/task`);
        expect(niceOf(String(pid))).toBe(0);
        expect(tids.filter((t) => niceOf(t) === ANALYSIS_NICE)).toHaveLength(2);
      }
    } finally {
      s.child.kill('SIGTERM');
      await exited(s.child);
    }
    const bad = await run(process.execPath, ['bin/context-health.mjs', 'serve', '--analysis-threads', 'two', '--data', tempDir()]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--analysis-threads must be a whole number, got "two"/);
  });
});
