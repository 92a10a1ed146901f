// The Worker's pipeline in Node: the same Controller the browser runs, fed Blobs and a
// scripted relay, must agree with the CLI's report turn by turn, whatever the chunking.
// eslint-disable-next-line no-restricted-imports -- tests run on Node; the Worker is handed its hash
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Engine } from '../core/engine.ts';
import { CheckOutputBuilder, type CheckOutput } from '../core/checkOutput.ts';
import { SIGNALS } from '../core/signals.ts';
import { allFaults, simulateSession } from '../sim/scenario.ts';
import { chunkedBlob } from './chunkedBlob.testing.ts';
import { Controller } from './controller.ts';
import { feedHere } from './lineFeed.ts';
import type { SocketLike } from './liveSource.ts';
import type { FindingsIndex, JobSummary, QueryKind, QueryMap, QueryRequest, Source, WorkerEvent } from './protocol.ts';
import { ROW_FINDING } from './protocol.ts';

const sha256 = (t: string): string => createHash('sha256').update(t, 'utf8').digest('hex');

function transcript(turns = 120): string[] {
  const lines: string[] = [];
  for (const m of simulateSession({ seed: 11, sessionId: 'run', turns, spans: 30, faults: allFaults(turns) }, sha256)) lines.push(JSON.stringify(m));
  return lines;
}

function oracle(lines: string[]): CheckOutput {
  const engine = new Engine({ sha256 });
  const report = new CheckOutputBuilder();
  lines.forEach((l, i) => report.add(engine.ingestLine(l, i + 1)));
  return report.build();
}

class Harness {
  events: WorkerEvent[] = [];
  readonly c: Controller;
  private req = 0;
  constructor(createSocket?: (url: string) => SocketLike) {
    this.c = new Controller({ sha256, post: (e) => this.events.push(e), summaryEveryMs: 5, createSocket });
  }
  open(source: Source, job = 1): void {
    this.c.handle({ type: 'open', job, source, userThresholds: {} });
  }
  async done(): Promise<Extract<WorkerEvent, { type: 'done' }>> {
    for (let i = 0; i < 2000; i++) {
      const d = this.events.find((e) => e.type === 'done');
      if (d !== undefined && d.type === 'done') return d;
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error('no done event');
  }
  query<K extends QueryKind>(kind: K, query: QueryMap[K]['query'], job = 1): QueryMap[K]['reply'] {
    const req = ++this.req;
    const request: QueryRequest<K> = { type: 'query', job, req, kind, query };
    this.c.handle(request as QueryRequest);
    const r = this.events.find((e) => e.type === 'reply' && e.req === req);
    if (r === undefined || r.type !== 'reply') throw new Error('no reply');
    if (!r.ok) throw new Error(r.error);
    return r.body as QueryMap[K]['reply'];
  }
}

function findingsOf(ix: FindingsIndex): string[] {
  const out: string[] = [];
  for (let r = 0; r < ix.rowKind.length; r++) if (ix.rowKind[r] === ROW_FINDING) out.push(`${ix.rowTurn[r]}:${ix.rowSignal[r]}`);
  return out.sort();
}

describe('Controller: the sha256 of a file', () => {
  it('follows done, and is what sha256sum prints for the bytes as stored', async () => {
    const bytes = new TextEncoder().encode(transcript(60).join('\n') + '\n');
    const h = new Harness();
    h.open({ kind: 'file', file: new Blob([bytes]) as File, name: 'f.jsonl' });
    await h.done();
    await expect
      .poll(() => h.events.find((e) => e.type === 'digest'))
      .toEqual({ type: 'digest', job: 1, sha256: createHash('sha256').update(bytes).digest('hex') });
    expect(h.events.findIndex((e) => e.type === 'done')).toBeLessThan(h.events.findIndex((e) => e.type === 'digest'));
  });
});

describe('Controller: files', () => {
  const lines = transcript();
  const bad = [...lines.slice(0, 5), '{"type":"snapshot"', 'not json at all', '{"type":"bogus","session_id":"x"}', ...lines.slice(5)];
  const expected = oracle(bad);
  const text = new TextEncoder().encode(bad.join('\n') + '\n');

  for (const size of [13, 4096, 1 << 20]) {
    it(`agrees with the CLI report turn by turn, read in ${size}-byte chunks`, async () => {
      const h = new Harness();
      h.open({ kind: 'file', file: chunkedBlob(text, size) as File, name: 'x.jsonl' });
      const done = await h.done();
      expect(done.state).toBe('done');
      const s = done.summary.sessions[0]!;
      const want = expected.sessions[0]!;
      expect(s.turns).toBe(want.turns);
      expect(done.summary.inputErrors.map((e) => e.line)).toEqual(expected.input_errors.map((e) => e.line));
      const counts: Record<string, number> = {};
      for (const f of want.findings) counts[f.signal] = (counts[f.signal] ?? 0) + 1;
      expect(s.signalCounts).toEqual(counts);
      const ix = h.query('findings', { sessionId: 'run' });
      expect(findingsOf(ix)).toEqual(want.findings.map((f) => `${f.turn}:${SIGNALS.indexOf(f.signal)}`).sort());
    });
  }

  it('cuts lines the same at every byte (1-byte chunks)', async () => {
    const few = [
      ...transcript(60).slice(0, 6),
      'not json',
      '{"type":"snapshot","session_id":"run","turn":2,"spans":[{"span_id":"é","text":"日本語 ✓","score":null,"text_sha256":null}]}',
    ];
    const h = new Harness();
    h.open({ kind: 'file', file: chunkedBlob(new TextEncoder().encode(few.join('\n')), 1) as File, name: 'x' });
    const done = await h.done();
    const want = oracle(few);
    expect(done.summary.sessions[0]!.turns).toBe(want.sessions[0]!.turns);
    expect(done.summary.inputErrors.map((e) => e.line)).toEqual(want.input_errors.map((e) => e.line));
  });

  it('reads gzip and a JSON array like the JSON Lines file', async () => {
    const plain = new TextEncoder().encode(lines.join('\n'));
    const gz = new Uint8Array(await new Response(new Blob([plain]).stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer());
    const arr = new TextEncoder().encode(`[\n${lines.join(',\n')}\n]`);
    for (const bytes of [gz, arr]) {
      const h = new Harness();
      h.open({ kind: 'file', file: new Blob([bytes]) as File, name: 'f' });
      const done = await h.done();
      expect(done.summary.sessions[0]!.turns).toBe(120);
      expect(done.summary.inputErrorCount).toBe(0);
    }
  });

  it('answers view, turn and span queries; a stale job gets no answer', async () => {
    const h = new Harness();
    h.open({ kind: 'file', file: new Blob([lines.join('\n')]) as File, name: 'f' }, 3);
    await h.done();
    const view = h.query('view', { sessionId: 'run', window: { from: 20, to: 60 }, points: 30, ribbon: 100 }, 3);
    expect(view.from).toBe(20);
    expect(view.to).toBe(60);
    expect(view.spread.x.length).toBeLessThanOrEqual(60);
    expect(view.ribbon.length).toBe(100);
    const turn = h.query('turn', { sessionId: 'run', turn: 40, graph: true }, 3)!;
    expect(turn.spans?.length).toBe(turn.metrics.n_spans);
    const span = h.query('span', { sessionId: 'run', turn: 40, spanId: turn.spans![0]!.spanId }, 3)!;
    expect(span.live).toBe(true);
    expect(span.computedSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(() => h.query('view', { sessionId: 'run', window: null, points: 10, ribbon: 10 }, 2)).toThrow('stale job');
  });

  it('a cancelled read ends as cancelled with what it had', async () => {
    const h = new Harness();
    const big = new TextEncoder().encode(transcript(400).join('\n'));
    // a slow disk: one 4 KB chunk per millisecond
    let at = 0;
    const slow = Object.assign(new Blob([big]), {
      stream: () =>
        new ReadableStream<Uint8Array>({
          async pull(c) {
            await new Promise((r) => setTimeout(r, 1));
            if (at >= big.length) return c.close();
            c.enqueue(big.slice(at, (at += 4096)));
          },
        }),
    });
    h.open({ kind: 'file', file: slow as File, name: 'f' });
    await new Promise((r) => setTimeout(r, 30));
    h.c.handle({ type: 'cancel', job: 1 });
    const done = await h.done();
    expect(done.state).toBe('cancelled');
    expect(done.summary.sessions[0]?.turns ?? 0).toBeLessThan(400);
  });

  it('reports corrupt gzip as a failure after analysing what came before', async () => {
    const gz = new Uint8Array(await new Response(new Blob([lines.join('\n')]).stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer());
    const broken = gz.slice(0, Math.floor(gz.length / 2));
    broken.set([0xff, 0xff, 0xff, 0xff], broken.length - 4);
    const h = new Harness();
    h.open({ kind: 'file', file: new Blob([broken]) as File, name: 'f.gz' });
    const done = await h.done();
    expect(done.state).toBe('failed');
    expect(done.message).toMatch(/decompress|stopped/);
  });

  it('feedHere numbers lines from 1 and reports bad UTF-8 by line', async () => {
    const got: [number, string][] = [];
    const errors: number[] = [];
    const bytes = new Uint8Array([...new TextEncoder().encode('{"a":1}\n'), 0xff, 0xfe, 0x0a, ...new TextEncoder().encode('{"b":2}')]);
    await feedHere({ kind: 'file', file: new Blob([bytes]) }, new AbortController().signal, {
      line: (t, n) => got.push([n, t]),
      error: (n) => errors.push(n),
      progress: () => undefined,
    });
    expect(got).toEqual([
      [1, '{"a":1}'],
      [3, '{"b":2}'],
    ]);
    expect(errors).toEqual([2]);
  });
});

describe('Controller: live', () => {
  it('follows a relay session, resumes after a drop without gaps or repeats, and agrees with the CLI', async () => {
    const lines = transcript(60);
    const sockets: { url: string; s: SocketLike }[] = [];
    const h = new Harness((url) => {
      const s: SocketLike = { onopen: null, onmessage: null, onclose: null, onerror: null, close: () => undefined };
      sockets.push({ url, s });
      return s;
    });
    h.open({ kind: 'live', wsUrl: 'ws://relay/api/sessions/run/subscribe', sessionId: 'run' });
    const frame = (o: object): void => sockets.at(-1)!.s.onmessage!({ data: JSON.stringify(o) });
    frame({ type: 'hello', session_id: 'run', since: 0, last_seq: 30 });
    for (let seq = 1; seq <= 30; seq++) frame({ type: 'msg', seq, data: JSON.parse(lines[seq - 1]!) });
    frame({ type: 'caught_up', seq: 30 });
    sockets.at(-1)!.s.onclose!({ code: 1006, reason: '' });
    await new Promise((r) => setTimeout(r, 600)); // the first backoff is ~250 ms
    expect(sockets.at(-1)!.url).toMatch(/since=30$/);
    frame({ type: 'hello', session_id: 'run', since: 30, last_seq: lines.length });
    for (let seq = 29; seq <= lines.length; seq++) frame({ type: 'msg', seq, data: JSON.parse(lines[seq - 1]!) }); // 29, 30 again: ignored
    frame({ type: 'caught_up', seq: lines.length });
    const summary = h.events.filter((e): e is Extract<WorkerEvent, { type: 'summary' }> => e.type === 'summary').at(-1)!.summary as JobSummary;
    const want = oracle(lines).sessions[0]!;
    expect(summary.sessions[0]!.turns).toBe(want.turns);
    expect(summary.inputErrorCount).toBe(0);
    const counts: Record<string, number> = {};
    for (const f of want.findings) counts[f.signal] = (counts[f.signal] ?? 0) + 1;
    expect(summary.sessions[0]!.signalCounts).toEqual(counts);
    h.c.handle({ type: 'cancel', job: 1 });
    expect(h.events.filter((e) => e.type === 'connection').at(-1)).toMatchObject({ connection: { state: 'closed' } });
  });

  it('paces summaries by the page when asked: none queued until the last is drawn, and the newest when it is', async () => {
    const lines = transcript(60);
    const sockets: SocketLike[] = [];
    const h = new Harness(() => {
      const s: SocketLike = { onopen: null, onmessage: null, onclose: null, onerror: null, close: () => undefined };
      sockets.push(s);
      return s;
    });
    h.c.handle({
      type: 'open',
      job: 1,
      source: { kind: 'live', wsUrl: 'ws://relay/api/sessions/run/subscribe', sessionId: 'run' },
      userThresholds: {},
      pacedSummaries: true,
    });
    const frame = (o: object): void => sockets.at(-1)!.onmessage!({ data: JSON.stringify(o) });
    const summaries = (): JobSummary[] =>
      h.events.filter((e): e is Extract<WorkerEvent, { type: 'summary' }> => e.type === 'summary').map((e) => e.summary as JobSummary);
    frame({ type: 'hello', session_id: 'run', since: 0, last_seq: 10 });
    for (let seq = 1; seq <= 10; seq++) frame({ type: 'msg', seq, data: JSON.parse(lines[seq - 1]!) });
    frame({ type: 'caught_up', seq: 10 }); // caught up: a summary at once
    const turnsAfter = (n: number): number => oracle(lines.slice(0, n)).sessions[0]!.turns;
    expect(summaries().map((x) => x.sessions[0]!.turns)).toEqual([turnsAfter(10)]);
    for (let seq = 11; seq <= 25; seq++) frame({ type: 'msg', seq, data: JSON.parse(lines[seq - 1]!) });
    await new Promise((r) => setTimeout(r, 60)); // many intervals (5 ms here), but the page has not drawn
    expect(summaries()).toHaveLength(1);
    h.c.handle({ type: 'summary-drawn', job: 2 }); // another job's: ignored
    await new Promise((r) => setTimeout(r, 30));
    expect(summaries()).toHaveLength(1);
    h.c.handle({ type: 'summary-drawn', job: 1 });
    await expect.poll(() => summaries().length).toBe(2);
    expect(summaries()[1]!.sessions[0]!.turns).toBe(turnsAfter(25)); // the newest state, not one per message
    h.c.handle({ type: 'summary-drawn', job: 1 });
    for (let seq = 26; seq <= lines.length; seq++) frame({ type: 'msg', seq, data: JSON.parse(lines[seq - 1]!) });
    await expect.poll(() => summaries().at(-1)!.sessions[0]!.turns).toBe(turnsAfter(lines.length)); // every turn ends up shown
    h.c.handle({ type: 'cancel', job: 1 });
  });

  it('says a live session is scored by the reference when its header says so (contract §7, as `watch` sends it)', async () => {
    const sockets: SocketLike[] = [];
    const h = new Harness(() => {
      const s: SocketLike = { onopen: null, onmessage: null, onclose: null, onerror: null, close: () => undefined };
      sockets.push(s);
      return s;
    });
    h.open({ kind: 'live', wsUrl: 'ws://relay/api/sessions/cc/subscribe', sessionId: 'cc' });
    const frame = (o: object): void => sockets.at(-1)!.onmessage!({ data: JSON.stringify(o) });
    const spans = [{ span_id: 'a', text: 'fix the bug', score: 1, text_sha256: null, role: 'user' }];
    frame({ type: 'hello', session_id: 'cc', since: 0, last_seq: 2 });
    frame({ type: 'msg', seq: 1, data: { type: 'session', session_id: 'cc', scores: 'reference' } });
    frame({ type: 'msg', seq: 2, data: { type: 'snapshot', session_id: 'cc', turn: 1, spans } });
    frame({ type: 'caught_up', seq: 2 });
    await new Promise((r) => setTimeout(r, 50));
    const last = (): JobSummary => h.events.filter((e): e is Extract<WorkerEvent, { type: 'summary' }> => e.type === 'summary').at(-1)!.summary as JobSummary;
    expect(last().sessions[0]!.scores).toBe('reference');
    h.c.handle({ type: 'cancel', job: 1 });
  });

  it('lists the OTLP spans the relay could not place among the session’s input errors (docs/adapters.md)', async () => {
    const sockets: SocketLike[] = [];
    const h = new Harness(() => {
      const s: SocketLike = { onopen: null, onmessage: null, onclose: null, onerror: null, close: () => undefined };
      sockets.push(s);
      return s;
    });
    h.open({ kind: 'live', wsUrl: 'ws://relay/api/sessions/otel/subscribe', sessionId: 'otel' });
    const frame = (o: object): void => sockets.at(-1)!.onmessage!({ data: JSON.stringify(o) });
    const spans = [{ span_id: 'a', text: 'hello', score: null, text_sha256: null }];
    frame({ type: 'hello', session_id: 'otel', since: 0, last_seq: 2 });
    frame({ type: 'msg', seq: 1, data: { type: 'snapshot', session_id: 'otel', turn: 1, spans } });
    const late = { trace_id: 't1', span_id: 's9', message: 'arrived after turn 1 was stored' };
    frame({ type: 'msg', seq: 2, data: { type: 'snapshot', session_id: 'otel', turn: 2, spans, input_errors: [late] } });
    frame({ type: 'caught_up', seq: 2 });
    await new Promise((r) => setTimeout(r, 50));
    const last = h.events.filter((e): e is Extract<WorkerEvent, { type: 'summary' }> => e.type === 'summary').at(-1)!.summary as JobSummary;
    expect(last.sessions[0]!.turns).toBe(2);
    expect(last.inputErrors).toEqual([{ line: 2, session_id: 'otel', message: 'OTLP span s9 of trace t1: arrived after turn 1 was stored' }]);
    h.c.handle({ type: 'cancel', job: 1 });
  });
});
