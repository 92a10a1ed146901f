// contract §7 reference scorer by embeddings: `check --scorer reference --embeddings-url URL`
// against a local fake of an OpenAI-compatible /v1/embeddings endpoint that returns
// deterministic vectors (letter counts a–z), so the expected scores can be computed here.
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddingScorer, cosine } from '../../src/core/embeddingScorer.ts';
import type { CheckOutput } from '../../src/core/checkOutput.ts';
import { EmbeddingsClient } from '../../src/node/embeddings.ts';
import { ROOT, runCli } from './runCli.ts';

const CLAUDE = path.join(ROOT, 'test/fixtures/adapters/claude-code.jsonl');

/** The fake model: how often each letter a–z occurs (deterministic, and similar texts point alike). */
function fakeEmbedding(text: string): number[] {
  const v = new Array<number>(26).fill(0);
  for (const ch of text.toLowerCase()) {
    const i = ch.charCodeAt(0) - 97;
    if (i >= 0 && i < 26) v[i]!++;
  }
  return v;
}

interface Seen {
  model: string;
  inputs: string[];
  path: string;
}

let server: http.Server;
let base = '';
const seen: Seen[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (d: Buffer) => body.push(d));
    req.on('end', () => {
      if (req.url?.startsWith('/fail') === true) {
        res.statusCode = 500;
        res.end('{}');
        return;
      }
      const { model, input } = JSON.parse(Buffer.concat(body).toString('utf8')) as { model: string; input: string[] };
      seen.push({ model, inputs: input, path: req.url ?? '' });
      res.setHeader('content-type', 'application/json');
      // answered out of order, as the API allows: the client must place them by `index`
      const data = input.map((t, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(t) })).reverse();
      res.end(JSON.stringify({ object: 'list', data, model }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('the embeddings reference scorer', () => {
  it('scores by cosine similarity to the task, normalised per turn so the best span is 1', () => {
    const s = new EmbeddingScorer(fakeEmbedding);
    const spans = [
      { span_id: 't', text: 'fix the login cookie', role: 'user' },
      { span_id: 'a', text: 'login cookie fixed' },
      { span_id: 'b', text: 'zzz' },
    ];
    const scores = s.scoreTurn(spans);
    const q = fakeEmbedding('fix the login cookie');
    const raw = spans.map((x) => Math.max(0, cosine(q, fakeEmbedding(x.text))));
    const best = Math.max(...raw);
    expect(scores).toEqual(raw.map((x) => Math.round((x / best) * 1e6) / 1e6));
    expect(scores[0]).toBe(1);
    expect(scores[2]).toBe(0);
  });

  it('the client batches, places vectors by index, and asks each distinct text once', async () => {
    seen.length = 0;
    const c = new EmbeddingsClient({ url: `${base}/v1`, model: 'fake-1', batchSize: 2 });
    await c.embedAll(['a', 'b', 'a', 'c']);
    await c.embedAll(['b', 'c', 'd']);
    expect(seen.map((s) => s.inputs)).toEqual([['a', 'b'], ['c'], ['d']]);
    expect(seen.every((s) => s.path === '/v1/embeddings' && s.model === 'fake-1')).toBe(true);
    expect(c.get('c')).toEqual(fakeEmbedding('c'));
  });

  it('check --scorer reference --embeddings-url scores a Claude Code transcript from the endpoint', async () => {
    seen.length = 0;
    const run = await runCli([
      'check',
      '--json',
      '--fail-on',
      'never',
      '--scorer',
      'reference',
      '--embeddings-url',
      `${base}/v1/embeddings`,
      '--embeddings-model',
      'fake-2',
      CLAUDE,
    ]);
    expect(run.stderr).toBe('');
    const report = JSON.parse(run.stdout) as CheckOutput;
    const bm25 = JSON.parse((await runCli(['check', '--json', '--fail-on', 'never', '--scorer', 'reference', CLAUDE])).stdout) as CheckOutput;
    const metrics = report.sessions[0]!.metrics;
    expect(metrics.length).toBe(bm25.sessions[0]!.metrics.length);
    expect(metrics.every((m) => m.n_scored > 0)).toBe(true);
    // other scores than BM25's: the embeddings decided them
    expect(metrics.map((m) => m.mean_score)).not.toEqual(bm25.sessions[0]!.metrics.map((m) => m.mean_score));
    expect(report.sessions[0]!.findings.some((f) => f.signal === 'unscored_span' || f.signal === 'unbound_score')).toBe(false);
    // batched (64 a request), each distinct text asked once, with the model named
    const inputs = seen.flatMap((s) => s.inputs);
    expect(new Set(inputs).size).toBe(inputs.length);
    expect(seen.every((s) => s.inputs.length <= 64 && s.model === 'fake-2')).toBe(true);
  });

  it('refuses what it cannot do plainly', async () => {
    expect((await runCli(['check', '--embeddings-model', 'm', CLAUDE])).code).toBe(2);
    expect((await runCli(['check', '--embeddings-url', 'not a url', CLAUDE])).code).toBe(2);
    expect((await runCli(['check', '--embeddings-url', base, '-'], { stdin: '' })).code).toBe(2);
    // an endpoint that fails is named as such, not as a file that cannot be read
    const failing = await runCli(['check', '--embeddings-url', `${base}/fail/v1`, CLAUDE]);
    expect(failing.code).toBe(2);
    expect(failing.stderr).toMatch(/embeddings endpoint .*\/fail\/v1\/embeddings answered 500/);
  });
});
