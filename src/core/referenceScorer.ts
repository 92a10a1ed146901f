// contract §7 reference scorer: relevance that does not depend on the agent's model. Each
// live span is scored by BM25 against the current task (the latest user-authored prompt of
// the session plus the pinned spans' text), normalised per turn to [0, 1] by the turn's
// best score. Pure, deterministic, one instance per session (it remembers the task).
import { bm25, TermDictionary, termCounts, terms, type TermCounts } from './bm25.ts';

/** What a scorer sees of a span. */
export interface ScorableSpan {
  span_id: string;
  text: string;
  pinned?: boolean;
  role?: string;
}

/**
 * A relevance scorer for one session's snapshots, called once per snapshot in turn order.
 * BM25 is the reference; another implementation (an embeddings endpoint behind a cache,
 * say) can take its place without touching the stage that calls it.
 */
export interface SpanScorer {
  readonly name: string;
  /** A score in [0, 1] for each span, in the spans' order. */
  scoreTurn(spans: readonly ScorableSpan[]): number[];
}

/** Rounded to 6 decimals: reports stay short, and nothing the detectors compare is lost. */
const round = (x: number): number => Math.round(x * 1e6) / 1e6;

export class Bm25Scorer implements SpanScorer {
  readonly name = 'bm25';
  /** the latest user-authored prompt of the session, kept after it leaves the buffer */
  private task = '';
  /** last turn's term counts by span id, reused while a span's text is unchanged */
  private readonly memo = new Map<string, { text: string; counts: TermCounts }>();
  private queryText: string | null = null;
  private query: string[] = [];
  /** the session's terms, numbered: spans and query are matched by number */
  private readonly dictionary = new TermDictionary();

  scoreTurn(spans: readonly ScorableSpan[]): number[] {
    // contract §7: the current task is the last span with role "user" in snapshot order
    for (let i = spans.length - 1; i >= 0; i--) {
      if (spans[i]!.role === 'user') {
        this.task = spans[i]!.text;
        break;
      }
    }
    let queryText = this.task;
    for (const s of spans) if (s.pinned === true) queryText += '\n' + s.text;
    // the task and the pinned spans seldom change: their terms are split again only when they do
    if (queryText !== this.queryText) {
      this.queryText = queryText;
      this.query = terms(queryText);
    }
    const docs = spans.map((s) => {
      const old = this.memo.get(s.span_id);
      if (old !== undefined && old.text === s.text) return old.counts;
      const counts = termCounts(s.text, this.dictionary);
      this.memo.set(s.span_id, { text: s.text, counts });
      return counts;
    });
    // spans that left the buffer are forgotten now and then, not on every turn
    if (this.memo.size > 2 * spans.length + 64) {
      const live = new Set(spans.map((s) => s.span_id));
      for (const id of this.memo.keys()) if (!live.has(id)) this.memo.delete(id);
    }
    const raw = bm25(this.query, docs, this.dictionary);
    let best = 0;
    for (const x of raw) if (x > best) best = x;
    return raw.map((x) => (best > 0 ? round(x / best) : 0));
  }
}
