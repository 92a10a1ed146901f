// contract §7 reference scorer, embeddings variant: each live span scored by the cosine
// similarity of its embedding to the current task's embedding, normalised per turn as BM25
// is (divided by the turn's best, so the best span is 1; negative similarities count as 0).
// Pure: the vectors are handed in by a lookup (src/node/embeddings.ts fetches them ahead of
// the run from an OpenAI-compatible /v1/embeddings endpoint), so the stage that calls the
// scorer stays synchronous and the same in every door.
import type { ScorableSpan, SpanScorer } from './referenceScorer.ts';

export type EmbeddingLookup = (text: string) => readonly number[] | undefined;

/**
 * contract §7: the current task is the last span with role "user" of the latest snapshot that
 * has one (kept after it leaves the buffer), followed by every pinned span's text: the rule
 * Bm25Scorer applies, for any scorer that needs the query as one text.
 */
export class TaskText {
  private task = '';

  of(spans: readonly ScorableSpan[]): string {
    for (let i = spans.length - 1; i >= 0; i--) {
      if (spans[i]!.role === 'user') {
        this.task = spans[i]!.text;
        break;
      }
    }
    let query = this.task;
    for (const s of spans) if (s.pinned === true) query += '\n' + s.text;
    return query;
  }
}

const round = (x: number): number => Math.round(x * 1e6) / 1e6;

export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

export class EmbeddingScorer implements SpanScorer {
  readonly name = 'embeddings';
  private readonly task = new TaskText();

  constructor(private readonly lookup: EmbeddingLookup) {}

  scoreTurn(spans: readonly ScorableSpan[]): number[] {
    const query = this.lookup(this.task.of(spans));
    const raw = spans.map((s) => {
      const v = this.lookup(s.text);
      return query === undefined || v === undefined ? 0 : Math.max(0, cosine(query, v));
    });
    let best = 0;
    for (const x of raw) if (x > best) best = x;
    return raw.map((x) => (best > 0 ? round(x / best) : 0));
  }
}

/** The texts a run will ask embeddings for (the first pass): every span's text and every task query. */
export class TextCollector implements SpanScorer {
  readonly name = 'collect';
  private readonly task = new TaskText();

  constructor(private readonly texts: Set<string>) {}

  scoreTurn(spans: readonly ScorableSpan[]): number[] {
    this.texts.add(this.task.of(spans));
    for (const s of spans) this.texts.add(s.text);
    return spans.map(() => 0);
  }
}
