// Issue 8 item 5, the Worker pipeline on degenerate files: thousands of tiny sessions, a
// gzip bomb, one huge bad line, a file of nothing but newlines. Each must end with a plain
// answer, in memory proportional to what the file holds. Caps are set small by the tests.
// eslint-disable-next-line no-restricted-imports -- tests run on Node; the Worker is handed its hash
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Controller } from './controller.ts';
import type { ReadLimits } from './lineFeed.ts';
import type { Source, WorkerEvent } from './protocol.ts';

const sha256 = (t: string): string => createHash('sha256').update(t, 'utf8').digest('hex');
type Done = Extract<WorkerEvent, { type: 'done' }>;

async function load(bytes: Uint8Array, readLimits?: ReadLimits, chunk = 1 << 16): Promise<{ done: Done; c: Controller }> {
  let done: Done | null = null;
  const c = new Controller({ sha256, post: (e) => void (e.type === 'done' && (done = e)), summaryEveryMs: 50, readLimits });
  // a Blob of the bytes whose stream() yields `chunk`-byte pieces, as a disk read would
  const file = Object.assign(new Blob([bytes as Uint8Array<ArrayBuffer>]), {
    stream: () =>
      new ReadableStream<Uint8Array>({
        start(ctl) {
          for (let i = 0; i < bytes.length; i += chunk) ctl.enqueue(bytes.subarray(i, i + chunk));
          ctl.close();
        },
      }),
  });
  const source: Source = { kind: 'file', file: file as File, name: 'degenerate' };
  c.handle({ type: 'open', job: 1, source, userThresholds: {} });
  // the load ends with a `done` event; a bound keeps a hang from hanging the suite
  for (let i = 0; i < 3000 && done === null; i++) await new Promise((r) => setTimeout(r, 5));
  if (done === null) throw new Error('no done event within 15 s');
  return { done, c };
}

const encode = (s: string): Uint8Array => new TextEncoder().encode(s);
const snapshot = (sessionId: string, turn: number): string =>
  JSON.stringify({ type: 'snapshot', session_id: sessionId, turn, spans: [{ span_id: 'a', text: 'one span', score: 0.5, text_sha256: null }] });

async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await new Response(new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer());
}

const small: ReadLimits = { maxLineBytes: 128 * 1024, maxDecompressedBytes: 1024 * 1024 };

describe('degenerate files', () => {
  it('holds many one-turn sessions in a few KB each', async () => {
    const sessions = 400;
    const lines = Array.from({ length: sessions }, (_, i) => snapshot(`s${i}`, 1));
    const { done, c } = await load(encode(lines.join('\n')));
    expect(done.state).toBe('done');
    expect(done.summary.sessions).toHaveLength(sessions);
    let bytes = 0;
    for (const store of c.stores.values()) bytes += store.heldBytes;
    // a session of one turn and one span: columns and span rows sized to it, not preallocated
    expect(bytes / sessions).toBeLessThan(12_000);
  });

  it('stops a gzip bomb at the cap on decompressed bytes, saying so, after analysing what came before', async () => {
    const head = encode([snapshot('run', 1), snapshot('run', 2)].join('\n') + '\n');
    const zeros = new Uint8Array(8_000_000).fill(0x0a); // 8 MB of blank lines: a few KB of gzip
    const plain = new Uint8Array(head.length + zeros.length);
    plain.set(head);
    plain.set(zeros, head.length);
    const bomb = await gzip(plain);
    expect(bomb.length).toBeLessThan(100_000);
    const { done } = await load(bomb, small);
    expect(done.state).toBe('failed');
    expect(done.message).toMatch(/decompresses to more than 1 MiB/);
    expect(done.summary.sessions[0]?.turns).toBe(2);
    expect(done.summary.linesRead).toBeLessThanOrEqual(1024 * 1024); // one line per byte at most: it stopped at the cap
  });

  it('reports a gzip of one endless line as one input error naming the line cap, then the size cap', async () => {
    const { done } = await load(await gzip(new Uint8Array(4_000_000)), small);
    expect(done.state).toBe('failed');
    expect(done.message).toMatch(/more than 1 MiB/);
    expect(done.summary.inputErrorCount).toBe(1);
    expect(done.summary.inputErrors[0]!.message).toMatch(/over the limit of 128 KiB per line/);
  });

  for (const chunk of [4096, 1 << 20]) {
    it(`a file that is one huge bad line says so: one input error naming the cap (${chunk}-byte chunks)`, async () => {
      const { done } = await load(new Uint8Array(3_000_000).fill(0x78), small, chunk);
      expect(done.state).toBe('done');
      expect(done.summary.inputErrorCount).toBe(1);
      expect(done.summary.inputErrors[0]).toMatchObject({ line: 1 });
      expect(done.summary.inputErrors[0]!.message).toMatch(/line is 3000000 bytes long, over the limit of 128 KiB per line/);
    });
  }

  it('a line nested 10,000 arrays deep is one input error naming the limit; the other 49 turns load (issue 8 item 3)', async () => {
    const deep = JSON.stringify({ type: 'snapshot', session_id: 'run', turn: 3, spans: [], extra: 0 }).replace(
      '"extra":0',
      `"extra":${'['.repeat(10_000)}${']'.repeat(10_000)}`,
    );
    const lines = Array.from({ length: 50 }, (_, i) => (i === 2 ? deep : snapshot('run', i + 1)));
    const { done } = await load(encode(lines.join('\n')), undefined, 4096);
    expect(done.state).toBe('done');
    expect(done.summary.sessions[0]!.turns).toBe(49);
    expect(done.summary.inputErrorCount).toBe(1);
    expect(done.summary.inputErrors[0]).toMatchObject({ line: 3 });
    expect(done.summary.inputErrors[0]!.message).toMatch(/nest.*64/);
  });

  it('skips an over-long line or array element by its number and analyses the rest', async () => {
    const huge = `{"type":"snapshot","session_id":"run","turn":2,"spans":[{"span_id":"a","text":"${'x'.repeat(200_000)}","score":0.5,"text_sha256":null}]}`;
    const asLines = [snapshot('run', 1), huge, snapshot('run', 3)].join('\n');
    const asArray = `[\n${[snapshot('run', 1), huge, snapshot('run', 3)].join(',\n')}\n]`;
    // the array's element starts on line 3 (line 1 is the `[`)
    for (const [text, line, what] of [
      [asLines, 2, 'line'],
      [asArray, 3, 'element'],
    ] as const) {
      const { done } = await load(encode(text), small, 4096);
      expect(done.state).toBe('done');
      expect(done.summary.sessions[0]!.turns).toBe(2);
      expect(done.summary.inputErrors).toHaveLength(1);
      expect(done.summary.inputErrors[0]).toMatchObject({ line });
      expect(done.summary.inputErrors[0]!.message).toMatch(new RegExp(`the ${what} is 2001\\d\\d bytes long, over the limit of 128 KiB per ${what}`));
    }
  });

  it('reads a file of nothing but newlines in time linear in its size, to the end', async () => {
    const timeOf = async (n: number): Promise<number> => {
      const t0 = performance.now();
      const { done } = await load(new Uint8Array(n).fill(0x0a));
      expect(done.state).toBe('done');
      expect(done.summary.linesRead).toBe(n);
      expect(done.summary.inputErrorCount).toBe(0);
      expect(done.summary.sessions).toHaveLength(0);
      return performance.now() - t0;
    };
    // the best of three, so that a collection or a busy machine does not decide the ratio
    const best = async (n: number): Promise<number> => Math.min(await timeOf(n), await timeOf(n), await timeOf(n));
    const t1 = await best(1_000_000);
    const t4 = await best(4_000_000);
    // linear: 4× the lines in about 4× the time; generous for a loaded machine, far below 16×
    expect(t4).toBeLessThan(8 * t1 + 250);
  });

  it('a file of no format says the one sentence check says; a broken transcript keeps its errors (docs/adapters.md)', async () => {
    const { done } = await load(encode('hello world, not a transcript\n<html>\n42\n'));
    expect(done.summary.sessions).toEqual([]);
    expect(done.summary.notATranscript).toMatch(
      /^not a transcript this reads: expected one of Context Health messages, a Claude Code transcript, .* or an OpenHands conversation/,
    );
    const broken = await load(encode('not json\n' + JSON.stringify({ type: 'snapshot', session_id: 'run', turn: 'one', spans: [] }) + '\n'));
    expect(broken.done.summary.inputErrorCount).toBe(2);
    expect(broken.done.summary.notATranscript).toBeUndefined();
    const fine = await load(encode(snapshot('run', 1) + '\nnot json\n'));
    expect(fine.done.summary.notATranscript).toBeUndefined();
  });
});
