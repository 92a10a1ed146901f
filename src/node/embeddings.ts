// An OpenAI-compatible embeddings endpoint (POST {model, input: [texts]} → {data: [{index,
// embedding}]}) behind a cache keyed by the sha256 of each text, in batches. Node only: the
// engine never waits on the network; `check --embeddings-url` fetches every vector a run needs
// before it (src/cli/check.ts) and hands EmbeddingScorer (src/core) a synchronous lookup.
import { nodeSha256 } from './platform.ts';

export interface EmbeddingsOptions {
  /** the endpoint, or its base (…/v1): "/embeddings" is added when the path does not end in it */
  url: string;
  model?: string;
  /** texts per request; default 64 */
  batchSize?: number;
  /** sent as a Bearer token when set */
  apiKey?: string;
}

/** The endpoint failed (unreachable, an HTTP error, or an answer without the vectors): not a reading error. */
export class EmbeddingsError extends Error {}

export const DEFAULT_EMBEDDINGS_MODEL = 'text-embedding-3-small';

export class EmbeddingsClient {
  private readonly cache = new Map<string, number[]>();
  private readonly endpoint: string;
  /** requests made, for tests and the progress line */
  requests = 0;

  constructor(private readonly o: EmbeddingsOptions) {
    this.endpoint = /\/embeddings\/?$/.test(new URL(o.url).pathname) ? o.url : o.url.replace(/\/?$/, '/embeddings');
  }

  /** The vector of a text already fetched. */
  get(text: string): number[] | undefined {
    return this.cache.get(nodeSha256(text));
  }

  /** Fetches every text not cached yet, batchSize at a time; each distinct text is asked once. */
  async embedAll(texts: Iterable<string>): Promise<void> {
    const todo = new Map<string, string>();
    for (const t of texts) {
      const h = nodeSha256(t);
      if (!this.cache.has(h) && !todo.has(h)) todo.set(h, t);
    }
    const pending = [...todo];
    const size = Math.max(1, this.o.batchSize ?? 64);
    for (let i = 0; i < pending.length; i += size) {
      const batch = pending.slice(i, i + size);
      const vectors = await this.request(batch.map(([, t]) => t));
      batch.forEach(([h], k) => this.cache.set(h, vectors[k]!));
    }
  }

  private async request(input: string[]): Promise<number[][]> {
    this.requests++;
    let res: Response;
    try {
      res = await fetch(this.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.o.apiKey ? { authorization: `Bearer ${this.o.apiKey}` } : {}) },
        body: JSON.stringify({ model: this.o.model ?? DEFAULT_EMBEDDINGS_MODEL, input }),
      });
    } catch (e) {
      throw new EmbeddingsError(`cannot reach the embeddings endpoint ${this.endpoint}: ${(e as Error).message}`);
    }
    if (!res.ok) throw new EmbeddingsError(`the embeddings endpoint ${this.endpoint} answered ${res.status} ${res.statusText}`);
    let body: { data?: { index?: number; embedding?: unknown }[] };
    try {
      body = (await res.json()) as typeof body;
    } catch {
      throw new EmbeddingsError(`the embeddings endpoint ${this.endpoint} did not answer with JSON`);
    }
    const out: number[][] = new Array<number[]>(input.length);
    (body.data ?? []).forEach((d, k) => {
      const i = typeof d.index === 'number' ? d.index : k;
      if (Array.isArray(d.embedding) && d.embedding.every((x) => typeof x === 'number')) out[i] = d.embedding as number[];
    });
    for (let i = 0; i < input.length; i++) {
      if (out[i] === undefined) throw new EmbeddingsError(`the embeddings endpoint ${this.endpoint} returned no embedding for input ${i}`);
    }
    return out;
  }
}
