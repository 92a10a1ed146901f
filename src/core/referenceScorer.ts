// contract §7 reference scorer: relevance that does not depend on the agent's model. Each
// live span is scored by BM25 against the current task (the latest user-authored prompt of
// the session plus the pinned spans' text), normalised per turn to [0, 1] by the turn's
// best score. Pure, deterministic, one instance per session (it remembers the task).
import { Bm25Buffer, prepareQueryOf, TermDictionary, termCounts, type PreparedQuery, type TermCounts } from './bm25.ts';
import { TextMemo } from './textMemo.ts';

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

/**
 * What is remembered of one span's text from turn to turn, each part computed when first
 * asked for: its term counts (the scorer's) and its sha256 (the scoring stage's binding,
 * contract §2.3). One entry for both, so a span costs the stage one lookup a turn, not two.
 */
export interface SpanText {
  counts: TermCounts | null;
  sha256: string | null;
}

const newSpanText = (): SpanText => ({ counts: null, sha256: null });

/** Rounded to 6 decimals: reports stay short, and nothing the detectors compare is lost. */
const round = (x: number): number => Math.round(x * 1e6) / 1e6;

export class Bm25Scorer implements SpanScorer {
  readonly name = 'bm25';
  /** the session's terms, numbered: spans and query are matched by number */
  private readonly dictionary = new TermDictionary();
  /** the latest user-authored prompt of the session (its terms), kept after it leaves the buffer */
  private task: TermCounts = termCounts('', this.dictionary);
  /** term counts (and the caller's sha256s) by span id, reused while a span's text is unchanged */
  private readonly memo = new TextMemo<SpanText>();
  /** what the query was made of (the task, then the pinned spans) and the query itself */
  private queryParts: TermCounts[] = [];
  private query: PreparedQuery = { ids: [], multiplicity: [] };
  private readonly buffer = new Bm25Buffer(this.dictionary);

  scoreTurn(spans: readonly ScorableSpan[]): number[] {
    return this.scoreTexts(spans, this.textsOf(spans));
  }

  /** What is remembered of each span's text (a new entry for a new or changed text), in the spans' order. */
  textsOf(spans: readonly ScorableSpan[]): SpanText[] {
    const texts = new Array<SpanText>(spans.length);
    for (let i = 0; i < spans.length; i++) texts[i] = this.memo.value(spans[i]!.span_id, spans[i]!.text, newSpanText);
    return texts;
  }

  /** scoreTurn, with the spans' entries from {@link textsOf} of this very turn (the caller then reads them for its own parts). */
  scoreTexts(spans: readonly ScorableSpan[], texts: readonly SpanText[]): number[] {
    // contract §7: the current task is the last span with role "user" in snapshot order, and
    // the query is its text followed by the pinned spans' texts. A query's terms are the
    // parts' terms one after the other (terms never cross the line break between parts), so
    // it is put together from the spans' own counts, and again only when a part changed.
    // One pass over the spans finds their counts, the task and the pinned parts.
    const docs = new Array<TermCounts>(spans.length);
    const pinned: TermCounts[] = [];
    let lastUser = -1;
    for (let i = 0; i < spans.length; i++) {
      const span = spans[i]!;
      const doc = (docs[i] = texts[i]!.counts ??= termCounts(span.text, this.dictionary));
      if (span.role === 'user') lastUser = i;
      if (span.pinned === true) pinned.push(doc);
    }
    if (lastUser >= 0) this.task = docs[lastUser]!;
    const parts = [this.task, ...pinned];
    if (!sameParts(parts, this.queryParts)) {
      this.queryParts = parts;
      this.query = prepareQueryOf(parts, this.dictionary);
    }
    // spans that left the buffer are forgotten now and then
    this.memo.prune(spans);
    // a new array each turn (Bm25Buffer.score): normalised in place
    const scores = this.buffer.score(this.query, docs);
    let best = 0;
    for (let i = 0; i < scores.length; i++) if (scores[i]! > best) best = scores[i]!;
    for (let i = 0; i < scores.length; i++) scores[i] = best > 0 ? round(scores[i]! / best) : 0;
    return scores;
  }
}

function sameParts(a: readonly TermCounts[], b: readonly TermCounts[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
