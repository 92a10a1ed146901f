// The dashboard's parsing Workers (docs/dashboard.md "Parsing Workers"), differentially: the
// Controller reading a file through a pool of stand-in Workers (the same BatchParser a
// parseWorker.ts runs, answers cloned and transferred as postMessage does, out of order)
// must end with exactly what it ends with parsing every line itself: the done event, and per
// session the findings, the whole-session view and the report. Every sample (.gz and the
// JSON-array .json too), the real-agent fixtures, and lines that take every way through the
// records and around them (bad lines at chunk and batch edges, invalid UTF-8, BOMs, CRLF).
// eslint-disable-next-line no-restricted-imports -- tests run on Node; the Worker is handed its hash
import { createHash } from 'node:crypto';
// eslint-disable-next-line no-restricted-imports -- the samples are read from disk
import fs from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { RecordDecoder, SnapshotReader } from '../ingest/lineRecords.ts';
import { edgeLines } from '../../test/cli/edgeLines.ts';
import { chunkedBlob } from './chunkedBlob.testing.ts';
import { Controller } from './controller.ts';
import { BatchParser, transferablesOf, WORKER_READY, type ParseBatch, type ParsedBatch } from './parseBatch.ts';
import type { PoolWorker } from './parsePool.ts';
import type { ParseChoice, WorkerEvent } from './protocol.ts';

const sha256 = (t: string): string => createHash('sha256').update(t, 'utf8').digest('hex');

type Listener = (ev: Event) => void;

/** A parsing Worker in this process: what it is posted arrives cloned (its buffers detached here), and so does its answer, after a while. */
class StandIn implements PoolWorker {
  private readonly listeners = new Map<string, Listener[]>();
  private readonly parser = new BatchParser(sha256);
  private received = 0;
  terminated = false;

  constructor(
    private readonly delay: () => number,
    /** dies (an error event, no answer) on receiving its batch number `dieAt` (0-based) */
    private readonly dieAt = -1,
  ) {
    // as parseWorker.ts: ready once started (the pool gives it nothing before)
    queueMicrotask(() => this.emit('message', Object.assign(new Event('message'), { data: WORKER_READY })));
  }

  addEventListener(type: string, listener: (ev: never) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener as Listener]);
  }

  postMessage(message: ParseBatch, transfer: Transferable[]): void {
    const batch = structuredClone(message, { transfer });
    const n = this.received++;
    setTimeout(() => {
      if (this.terminated) return;
      if (n === this.dieAt) return this.emit('error', Object.assign(new Event('error', { cancelable: true }), { message: 'Uncaught Error: out of memory' }));
      const parsed = this.parser.parse(batch);
      const answer = structuredClone(parsed, { transfer: transferablesOf(parsed) }) as ParsedBatch;
      this.emit('message', Object.assign(new Event('message'), { data: answer }));
    }, this.delay());
  }

  terminate(): void {
    this.terminated = true;
  }

  private emit(type: string, ev: Event): void {
    for (const l of this.listeners.get(type) ?? []) l(ev);
  }
}

/** A small deterministic generator: the Workers answer in a shuffled order. */
function delays(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x % 4;
  };
}

interface Run {
  done: Extract<WorkerEvent, { type: 'done' }>;
  sessions: Record<string, unknown>;
  workers: StandIn[];
}

async function load(
  bytes: Uint8Array,
  name: string,
  o: { chunk: number; parse?: ParseChoice; batchBytes?: number; dieAt?: number; seed?: number; judged?: boolean; scan?: false },
): Promise<Run> {
  const events: WorkerEvent[] = [];
  const workers: StandIn[] = [];
  const next = delays(o.seed ?? 7);
  const c = new Controller({
    sha256,
    post: (e) => events.push(e),
    summaryEveryMs: 5,
    parseWorker: () => {
      const w = new StandIn(next, workers.length === 0 ? (o.dieAt ?? -1) : -1);
      workers.push(w);
      return w;
    },
    ...(o.batchBytes === undefined ? {} : { parseBatchBytes: o.batchBytes }),
    // the Workers get every batch they have room for, unless the test asks for the share as a load judges it
    ...(o.judged === true ? {} : { parseFixedShare: true }),
    ...(o.scan === false ? { scan: false } : {}),
  });
  c.handle({
    type: 'open',
    job: 1,
    source: { kind: 'file', file: chunkedBlob(bytes, o.chunk) as File, name },
    userThresholds: {},
    ...(o.parse ? { parse: o.parse } : {}),
  });
  let done: WorkerEvent | undefined;
  for (let i = 0; i < 4000 && done === undefined; i++) {
    done = events.find((e) => e.type === 'done');
    if (done === undefined) await new Promise((r) => setTimeout(r, 2));
  }
  if (done === undefined || done.type !== 'done') throw new Error('no done event');
  const sessions: Record<string, unknown> = {};
  let req = 0;
  const ask = (kind: string, query: unknown): unknown => {
    c.handle({ type: 'query', job: 1, req: ++req, kind, query } as never);
    const r = events.find((e) => e.type === 'reply' && e.req === req);
    if (r === undefined || r.type !== 'reply') throw new Error('no reply');
    return r.ok ? r.body : { error: r.error };
  };
  for (const s of done.summary.sessions) {
    const sessionId = s.sessionId;
    sessions[sessionId] = {
      findings: ask('findings', { sessionId }),
      view: ask('view', { sessionId, window: null, points: 400, ribbon: 300 }),
      report: ask('report', { sessionId }),
      compactions: ask('compactions', { sessionId }),
    };
  }
  return { done: done as Run['done'], sessions, workers };
}

/** The done event without its timings (they differ from run to run). */
function comparable(r: Run): unknown {
  const { progress, ...rest } = r.done;
  return { ...rest, bytesRead: progress.bytesRead, bytesTotal: progress.bytesTotal, sessions: r.sessions };
}

const POOL: ParseChoice = { workers: 2, minBytes: 0 };
const SAMPLES = new URL('../../public/samples/', import.meta.url);
const FIXTURES = new URL('../../test/fixtures/adapters/', import.meta.url);

/** The ordinary way (no scanner, no pool) against the scanner on the analysis Worker alone, and with the pool. */
async function expectSame(bytes: Uint8Array, name: string, chunk: number, batchBytes?: number): Promise<Run> {
  const ordinary = comparable(await load(bytes, name, { chunk, scan: false }));
  const batches = batchBytes === undefined ? {} : { batchBytes };
  expect(comparable(await load(bytes, name, { chunk, ...batches }))).toEqual(ordinary);
  const pooled = await load(bytes, name, { chunk, parse: POOL, ...batches });
  expect(pooled.workers).toHaveLength(2);
  expect(comparable(pooled)).toEqual(ordinary);
  return pooled;
}

describe('parsing Workers: the same results as one thread', () => {
  const samples = fs.readdirSync(SAMPLES).filter((f) => /\.(jsonl|json|gz)$/.test(f));
  it.each(samples)('public/samples/%s', async (name) => {
    const bytes = new Uint8Array(fs.readFileSync(new URL(name, SAMPLES)));
    for (const batchBytes of [4096, Infinity]) {
      const pooled = await expectSame(bytes, name, 64 << 10, batchBytes);
      expect(pooled.done.state).toBe('done');
    }
  });

  // the fixture files (an OpenHands conversation's folder is read by check, not dropped whole)
  it.each(fs.readdirSync(FIXTURES).filter((f) => fs.statSync(new URL(f, FIXTURES)).isFile()))('test/fixtures/adapters/%s', async (name) => {
    const bytes = new Uint8Array(fs.readFileSync(new URL(name, FIXTURES)));
    for (const chunk of [7, 4096]) await expectSame(bytes, name, chunk, 4096);
  });

  it('with the share judged as the load goes: the same results, and no Worker started where the scanner reads every line', async () => {
    const bytes = new Uint8Array(fs.readFileSync(new URL('all-faults.jsonl', SAMPLES)));
    const ordinary = comparable(await load(bytes, 'all-faults.jsonl', { chunk: 4096, scan: false }));
    const judged = await load(bytes, 'all-faults.jsonl', { chunk: 4096, parse: POOL, batchBytes: 4096, judged: true });
    expect(comparable(judged)).toEqual(ordinary);
    // its records would cost the analysis Worker about what reading the lines did (ThreadShare.noteHere)
    expect(judged.workers).toHaveLength(0);
  });

  it('records are made and taken in: the sample is read on the parsing Workers, not only around them', async () => {
    const bytes = new Uint8Array(fs.readFileSync(new URL('all-faults.jsonl', SAMPLES)));
    const taken = vi.spyOn(RecordDecoder.prototype, 'take');
    try {
      await load(bytes, 'all-faults.jsonl', { chunk: 4096 });
      expect(taken).not.toHaveBeenCalled(); // with no pool the scanner reads here: no records
      const pooled = await load(bytes, 'all-faults.jsonl', { chunk: 4096, parse: POOL, batchBytes: 4096 });
      // a good share of the snapshots came as records: a Worker gets a batch whenever it is
      // free (one in hand each), and the analysis Worker reads the others meanwhile
      const snapshots = bytes.reduce((n, b) => n + (b === 0x0a ? 1 : 0), 0) - 1;
      expect(taken.mock.calls.length).toBeGreaterThan(snapshots / 4);
      // both Workers were given batches (the fewest in hand gets the next)
      for (const w of pooled.workers) expect((w as unknown as { received: number }).received).toBeGreaterThan(0);
    } finally {
      taken.mockRestore();
    }
  });

  it('while every Worker has a batch in hand, the analysis Worker reads the next itself', async () => {
    // spans with a field the wire format does not name: the scanner declines every line, so
    // the judged share starts the Workers (ThreadShare.noteHere)
    const text = fs.readFileSync(new URL('all-faults.jsonl', SAMPLES), 'utf8');
    const withExtra = text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => {
        const m = JSON.parse(l) as { spans?: Record<string, unknown>[] };
        for (const sp of m.spans ?? []) sp.x_note = 1;
        return JSON.stringify(m);
      });
    const bytes = new TextEncoder().encode(withExtra.join('\n') + '\n');
    const parsed = vi.spyOn(SnapshotReader.prototype, 'read');
    try {
      const one = await load(bytes, 'all-faults.jsonl', { chunk: 4096 });
      // slow Workers: 20 ms a batch
      const events: WorkerEvent[] = [];
      const workers: StandIn[] = [];
      const c = new Controller({
        sha256,
        post: (e) => events.push(e),
        parseBatchBytes: 4096,
        parseWorker: () => {
          const w = new StandIn(() => 20);
          workers.push(w);
          return w;
        },
      });
      c.handle({ type: 'open', job: 1, source: { kind: 'file', file: chunkedBlob(bytes, 4096) as File, name: 'a.jsonl' }, userThresholds: {}, parse: POOL });
      let done: WorkerEvent | undefined;
      while ((done = events.find((e) => e.type === 'done')) === undefined) await new Promise((r) => setTimeout(r, 5));
      const inWorkers = workers.reduce((n, w) => n + (w as unknown as { received: number }).received, 0);
      // lines read here against batches there (a batch of 4096 bytes holds a few lines)
      expect(parsed.mock.calls.length).toBeGreaterThan(inWorkers);
      expect(inWorkers).toBeGreaterThan(0);
      const { progress: _p, ...got } = done as Extract<WorkerEvent, { type: 'done' }>;
      const { progress: _q, ...want } = one.done;
      expect(got).toEqual(want);
    } finally {
      parsed.mockRestore();
    }
  });

  it('bad lines at chunk and batch edges, invalid UTF-8, BOMs and CRLF: every chunk and batch size', async () => {
    const enc = new TextEncoder();
    const lines = edgeLines();
    const parts: Uint8Array[] = [];
    lines.forEach((l, i) => {
      parts.push(enc.encode(l));
      // a CRLF here and there, a line of invalid UTF-8, a second file appended after a BOM
      if (i === 5) parts.push(new Uint8Array([0x0d]));
      if (i === 9) parts.push(new Uint8Array([0x0a, 0x7b, 0xff, 0xfe, 0x7d]));
      if (i === 20) parts.push(new Uint8Array([0x0a, 0xef, 0xbb, 0xbf]), enc.encode(lines[1]!));
      parts.push(new Uint8Array([0x0a]));
    });
    const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      bytes.set(p, at);
      at += p.length;
    }
    for (const chunk of [1, 7, 4096])
      for (const batchBytes of [1, 7, 4096, Infinity]) {
        const pooled = await expectSame(bytes, 'edges.jsonl', chunk, batchBytes);
        expect(pooled.done.summary.inputErrorCount).toBeGreaterThan(5);
      }
  });

  it('a JSON array with a bad element at a chunk edge', async () => {
    const lines = edgeLines().filter((l) => l.startsWith('{'));
    const text = `[\n${lines.join(',\n')}\n]`;
    for (const chunk of [7, 4096]) await expectSame(new TextEncoder().encode(text), 'edges.json', chunk, 7);
  });
});

describe('parsing Workers: one pool, load after load', () => {
  it('a second file (and one opened while the first is still read) reads as on its own: no Worker refers back to the load before', async () => {
    const a = new Uint8Array(fs.readFileSync(new URL('all-faults.jsonl', SAMPLES)));
    const b = new Uint8Array(fs.readFileSync(new URL('two-sessions-interleaved.jsonl', SAMPLES)));
    const alone = await load(b, 'b.jsonl', { chunk: 4096 });
    const events: WorkerEvent[] = [];
    const next = delays(3);
    const c = new Controller({ sha256, post: (e) => events.push(e), parseBatchBytes: 4096, parseWorker: () => new StandIn(next) });
    const doneOf = async (job: number): Promise<Extract<WorkerEvent, { type: 'done' }>> => {
      for (;;) {
        const d = events.find((e) => e.type === 'done' && e.job === job);
        if (d !== undefined && d.type === 'done') return d;
        await new Promise((r) => setTimeout(r, 2));
      }
    };
    const open = (job: number, bytes: Uint8Array): void =>
      c.handle({ type: 'open', job, source: { kind: 'file', file: chunkedBlob(bytes, 4096) as File, name: `${job}.jsonl` }, userThresholds: {}, parse: POOL });
    open(1, a);
    expect((await doneOf(1)).state).toBe('done');
    // replaced while its batches are with the Workers
    open(2, a);
    open(3, b);
    expect((await doneOf(3)).state).toBe('done');
    open(4, b);
    expect(events.some((e) => e.type === 'done' && e.job === 2)).toBe(false);
    for (const job of [3, 4]) {
      const { progress, ...rest } = await doneOf(job);
      const { progress: p0, ...want } = alone.done;
      expect({ ...rest, job: 0, bytesRead: progress.bytesRead }).toEqual({ ...want, job: 0, bytesRead: p0.bytesRead });
    }
  });
});

describe('parsing Workers: one that dies mid-file', () => {
  it('ends the load as failed, saying so, with only the lines before its batch analysed', async () => {
    const bytes = new Uint8Array(fs.readFileSync(new URL('all-faults.jsonl', SAMPLES)));
    const whole = await load(bytes, 'all-faults.jsonl', { chunk: 4096 });
    const run = await load(bytes, 'all-faults.jsonl', { chunk: 4096, parse: POOL, batchBytes: 4096, dieAt: 3 });
    expect(run.done.state).toBe('failed');
    expect(run.done.message).toMatch(
      /^the load stopped after line \d+: a parsing Worker failed \(Uncaught Error: out of memory\), and the lines after it were not read/,
    );
    const taken = Number(/after line (\d+)/.exec(run.done.message!)![1]);
    expect(taken).toBeLessThan(whole.done.summary.linesRead);
    // what is shown is a prefix of the file: as many turns as the whole read had by that line, no more
    const turns = run.done.summary.sessions.reduce((n, s) => n + s.turns, 0);
    expect(turns).toBeLessThan(whole.done.summary.sessions.reduce((n, s) => n + s.turns, 0));
  });

  it('the next load starts a fresh pool and reads the whole file', async () => {
    const bytes = new Uint8Array(fs.readFileSync(new URL('healthy.jsonl', SAMPLES)));
    const events: WorkerEvent[] = [];
    const workers: StandIn[] = [];
    const c = new Controller({
      sha256,
      post: (e) => events.push(e),
      parseBatchBytes: 4096,
      // every batch the Workers can hold: the first Worker gets its first batch, and stops
      parseFixedShare: true,
      parseWorker: () => {
        const w = new StandIn(() => 0, workers.length === 0 ? 0 : -1);
        workers.push(w);
        return w;
      },
    });
    const doneOf = async (job: number): Promise<Extract<WorkerEvent, { type: 'done' }>> => {
      for (;;) {
        const d = events.find((e) => e.type === 'done' && e.job === job);
        if (d !== undefined && d.type === 'done') return d;
        await new Promise((r) => setTimeout(r, 2));
      }
    };
    const open = (job: number): void =>
      c.handle({ type: 'open', job, source: { kind: 'file', file: chunkedBlob(bytes, 4096) as File, name: 'h.jsonl' }, userThresholds: {}, parse: POOL });
    open(1);
    expect((await doneOf(1)).state).toBe('failed');
    open(2);
    const second = await doneOf(2);
    expect(second.state).toBe('done');
    expect(workers).toHaveLength(4);
    expect(workers.slice(0, 2).every((w) => w.terminated)).toBe(true);
  });
});
