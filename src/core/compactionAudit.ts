// contract §8.4 the compaction audit: which load-bearing items of the replaced spans the text
// that survives a compaction still holds. Pure and format-free: an adapter (Claude Code,
// Codex, …) tells the auditor what happened in its own terms (a file was read, the user
// wrote a prompt, a todo list was set), marks each compaction, and hands it the text the
// first call after it saw; the auditor judges every item by the rules of §8.4 and notices
// when the agent goes back for one. Its output rides on the snapshot (`compaction.items`,
// `refetched`), so every door (check, the Worker, the relay) reads the same audit.
import { RestateWatch } from './restateWatch.ts';
import { longestPatterns, occurs, PatternSet } from './textIndex.ts';
import { collapseWhitespace as collapseRuns } from './shortText.ts';
import { eachWordRun, wordClass } from './wordRuns.ts';

/** contract §8.4 item kinds. `file` and `user_prompt` have the exact rules; the others are the product's. */
export type AuditItemKind = 'file' | 'user_prompt' | 'todo' | 'error' | 'command';

export const AUDIT_ITEM_KINDS: readonly AuditItemKind[] = ['file', 'user_prompt', 'todo', 'error', 'command'];

/**
 * contract §8.4: `unknown` when the item is not in the text that can be read and part of what
 * survived cannot be read (an encrypted summary): it may be there, so it is not called `lost`.
 */
export type AuditStatus = 'kept' | 'paraphrased' | 'lost' | 'unknown';

export const AUDIT_STATUSES: readonly AuditStatus[] = ['kept', 'paraphrased', 'lost', 'unknown'];

/** One load-bearing item as it rides on the wire (contract §8.3 `compaction.items`). */
export interface AuditItem {
  kind: AuditItemKind;
  /** the whole item: the path, the prompt as written (text blocks joined by "\n"), the todo, … */
  text: string;
  status: AuditStatus;
  /** the turn the item came from (contract §8.4) */
  from_turn: number;
  /** the span it came from, when it has one */
  span_id: string | null;
}

/** An item of an earlier compaction, judged again at a later one: the decay of "paraphrase of a paraphrase". */
export interface CarriedItem extends AuditItem {
  /** the turn of the compaction that first audited it */
  first_audited_at: number;
}

/** contract §8.3 `refetched`: the agent went back for an audited item. */
export interface Refetch {
  /** the compaction whose item it is */
  compaction_turn: number;
  kind: AuditItemKind;
  text: string;
  /** the turn of the call that went back for it (the Read; the prompt that restated it) */
  turn: number;
}

/** contract §8.4: at least this share of a prompt's words found in the surviving text makes it `paraphrased`, not `lost`. */
export const PARAPHRASE_COVERAGE = 0.6;
/** contract §8.5: a later prompt restates an earlier one when it holds at least this share of its words. */
export const RESTATE_COVERAGE = 0.7;
/** contract §8.4: a prompt restates another by its words only when that one has at least this many. */
const MIN_RESTATE_WORDS = 3;
/** contract §8.5 as the restate watch applies it (restateWatch.ts) */
const RESTATE_RULES = {
  fold: (text: string): string => collapseWhitespace(text).toLowerCase(),
  wordsOf: (text: string): Set<string> => wordsOf(text),
  coverage: RESTATE_COVERAGE,
  minWords: MIN_RESTATE_WORDS,
};
/** contract §8.4: words shorter than this are not counted (articles, "is", "to": they prove nothing). */
const MIN_WORD = 3;

/** contract §8.4: runs of white space as one space, ends trimmed (by one scan, not a replace: shortText.ts). */
export const collapseWhitespace = collapseRuns;

/** The last component of a path (either separator), as the `file` rule compares it. */
export function basename(path: string): string {
  const trimmed = path.replace(/[/\\]+$/, '');
  const cut = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'));
  return cut < 0 ? trimmed : trimmed.slice(cut + 1);
}

/** contract §8.4: English words too common to show that one text holds another. */
const STOP_WORDS: ReadonlySet<string> = new Set(
  'the and for you are but not with this that from have has was were all can its our your please also into then than them they what when which will would should could just'.split(
    ' ',
  ),
);

/** Distinct lowercase words (letters and digits, any script) of at least MIN_WORD characters, stop words left out; Chinese and Japanese as character pairs. */
export function wordsOf(text: string): Set<string> {
  // the runs `text.toLowerCase().matchAll(/[\p{L}\p{N}_]+/gu)` finds, found by one scan: that
  // match loop made a match object a word (156 MB of them for a 5 MB summary, issue 39)
  const out = new Set<string>();
  const lower = text.toLowerCase();
  eachWordRun(lower, AUDIT_WORD_CLASS, (start, end) => addWord(out, lower, start, end));
  return out;
}

function addWord(out: Set<string>, lower: string, start: number, end: number): void {
  let cjk = start;
  while (cjk < end && !isCjk(lower.charCodeAt(cjk))) cjk++;
  if (cjk === end) return addPlainWord(out, lower, start, end);
  // contract §8.4: Chinese and Japanese are written without spaces, so a run of letters is a
  // whole clause, never found again in other words; their words are each two characters
  // side by side (overlapping), and what stands between CJK characters is a word of its own
  let plain = start;
  for (let i = start; i < end;) {
    if (!isCjk(lower.charCodeAt(i))) {
      i++;
      continue;
    }
    addPlainWord(out, lower, plain, i);
    let j = i;
    while (j < end && isCjk(lower.charCodeAt(j))) j++;
    for (let k = i; k + 2 <= j; k++) out.add(lower.slice(k, k + 2));
    plain = i = j;
  }
  addPlainWord(out, lower, plain, end);
}

function addPlainWord(out: Set<string>, lower: string, start: number, end: number): void {
  if (end - start < MIN_WORD) return;
  const w = lower.slice(start, end);
  if (!STOP_WORDS.has(w)) out.add(w);
}

/** Hiragana, Katakana (full and half width), CJK ideographs (the BMP's blocks and compatibility forms). */
function isCjk(c: number): boolean {
  return (
    (c >= 0x3040 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xff66 && c <= 0xff9f)
  );
}

/** a word's code points for the audit: letters, digits and the underscore, any script */
const AUDIT_WORD_CLASS = wordClass('\\p{L}\\p{N}_');

/** Share of `words` found in `pool` (0 when `words` is empty). */
export function coverage(words: ReadonlySet<string>, pool: ReadonlySet<string>): number {
  if (words.size === 0) return 0;
  let found = 0;
  for (const w of words) if (pool.has(w)) found++;
  return found / words.size;
}

/** An item to judge: its kind and its whole text (contract §8.4). */
export interface AskedItem {
  kind: AuditItemKind;
  text: string;
}

/**
 * The text that survives a compaction, with the answers to every substring question its items
 * will ask, found before any is asked: over the raw text (file basenames) and the folded one
 * (the other kinds), in one Aho–Corasick pass each, or, for a few items against a short text
 * (searchesEach), one native search per item, within a bound linear in the input either way
 * (docs/security.md "Linear time"). Only judgeItems() makes one, so every door asks through
 * the same index.
 */
class SurvivingText {
  readonly raw: string;
  private readonly folded: string;
  private words: Set<string> | null = null;
  private readonly rawAnswers: Map<string, boolean>;
  private readonly foldedAnswers: Map<string, boolean>;
  /** the one-pass searches' steps: the work the scaling tests count */
  steps = 0;

  constructor(raw: string, asked: readonly AskedItem[]) {
    this.raw = raw;
    // the text with white space collapsed, lower-cased (the `user_prompt` rule)
    this.folded = collapseWhitespace(raw).toLowerCase();
    const rawPatterns: string[] = [];
    const foldedPatterns: string[] = [];
    for (const a of asked) {
      if (a.kind === 'file') rawPatterns.push(basename(a.text));
      else foldedPatterns.push(collapseWhitespace(a.text).toLowerCase());
    }
    this.rawAnswers = this.search(rawPatterns, this.raw);
    this.foldedAnswers = this.search(foldedPatterns, this.folded);
  }

  get wordSet(): Set<string> {
    this.words ??= wordsOf(this.raw);
    return this.words;
  }

  private search(patterns: readonly string[], text: string): Map<string, boolean> {
    const unique = [...new Set(patterns)].filter((p) => p !== '');
    if (searchesEach(unique, text)) {
      // few items against the text: one native search each costs less than building the automaton
      this.steps += unique.length * text.length;
      return new Map(unique.map((p) => [p, text.includes(p)]));
    }
    // the few longest patterns past LONG_PATTERN (a prompt of megabytes) are searched for one
    // pass each (textIndex.ts SinglePattern): the same answers, in a tenth of the trie's memory;
    // at most LONG_SEARCHES of them, so the passes over the text stay a bounded number
    const long = longestPatterns(unique);
    const indexed = long.size === 0 ? unique : unique.filter((p) => !long.has(p));
    const set = new PatternSet(indexed);
    const found = set.occurring(text);
    this.steps += set.steps;
    const answers = new Map(indexed.map((p, i) => [p, found.has(i)]));
    for (const p of long) answers.set(p, occurs(p, text, this));
    return answers;
  }

  /** whether `pattern` (a basename some item asked for) is a substring of the raw text */
  rawIncludes(pattern: string): boolean {
    return this.answer(this.rawAnswers, pattern);
  }

  /** whether `pattern` (a folded text some item asked for) is a substring of the folded text */
  foldedIncludes(pattern: string): boolean {
    return this.answer(this.foldedAnswers, pattern);
  }

  private answer(answers: Map<string, boolean>, pattern: string): boolean {
    const a = answers.get(pattern);
    // a question no item asked would be a scan of its own: a bug here, not an input error
    if (a === undefined) throw new Error(`compaction audit: ${JSON.stringify(pattern.slice(0, 40))} was not among the items the index was built for`);
    return a;
  }
}

/**
 * How many code units of the text a native search may pass over for each code unit of the
 * input (the text and the patterns), at most, when each pattern is searched for on its own.
 */
export const DIRECT_SEARCH_FACTOR = 64;

/**
 * Whether `patterns` are searched for in `text` one `includes` each rather than through one
 * Aho–Corasick automaton (docs/security.md "Linear time"). A compaction's audit asks a few
 * dozen to a few hundred items of a summary of a few kB: building the trie (every code unit of
 * every pattern, then its fail links) was ~3% of `check DIR`'s CPU, where V8's native search
 * skips through the text. Only while patterns × text stays within DIRECT_SEARCH_FACTOR × (text
 * + patterns' length): V8's search is linear in the text for each pattern (a memchr for a
 * short one; a longer one falls back to Boyer–Moore as soon as a naive search goes badly), so
 * the whole stays linear in the input; n items against an n-line summary go through the
 * automaton.
 */
export function searchesEach(patterns: readonly string[], text: string): boolean {
  let units = text.length;
  for (const p of patterns) units += p.length;
  return patterns.length * text.length <= DIRECT_SEARCH_FACTOR * units;
}

/** contract §8.4 `file`: lost iff the path's basename is nowhere in the surviving text (case-sensitive substring). */
function judgeFile(path: string, surviving: SurvivingText): AuditStatus {
  const name = basename(path);
  return name !== '' && surviving.rawIncludes(name) ? 'kept' : 'lost';
}

/**
 * contract §8.4 `user_prompt` (and the verbatim-or-similar kinds): kept iff the text, white
 * space collapsed and case-insensitive, occurs in the surviving text; otherwise paraphrased
 * when at least PARAPHRASE_COVERAGE of its words (≥ 3 characters) occur there, else lost.
 */
function judgeText(text: string, surviving: SurvivingText): AuditStatus {
  const folded = collapseWhitespace(text).toLowerCase();
  if (folded !== '' && surviving.foldedIncludes(folded)) return 'kept';
  return coverage(wordsOf(text), surviving.wordSet) >= PARAPHRASE_COVERAGE ? 'paraphrased' : 'lost';
}

/** contract §8.4 `command`, `error`: kept iff verbatim (white space collapsed, any case), else lost: a command in other words is not the command. */
function judgeVerbatim(text: string, surviving: SurvivingText): AuditStatus {
  const folded = collapseWhitespace(text).toLowerCase();
  return folded !== '' && surviving.foldedIncludes(folded) ? 'kept' : 'lost';
}

function judge(kind: AuditItemKind, text: string, surviving: SurvivingText): AuditStatus {
  if (kind === 'file') return judgeFile(text, surviving);
  return kind === 'command' || kind === 'error' ? judgeVerbatim(text, surviving) : judgeText(text, surviving);
}

/** Every item judged by the rules of contract §8.4 against the surviving text, through one index; `steps`: the work counted. */
export function judgeItems(survivingText: string, items: readonly AskedItem[]): { statuses: AuditStatus[]; steps: number } {
  const surviving = new SurvivingText(survivingText, items);
  const statuses = items.map((it) => judge(it.kind, it.text, surviving));
  return { statuses, steps: surviving.steps };
}

interface Pending {
  kind: AuditItemKind;
  text: string;
  from_turn: number;
  span_id: string | null;
}

/**
 * contract §8.4 repeated compactions: at most this many items are followed from one compaction
 * to the next; those a compaction holds past it are counted, not judged again. Each compaction
 * judges what is followed, so n compactions of one item each cost n × this at most, not n²/2
 * (docs/security.md "Linear time").
 */
export const CARRIED_MAX = 1000;

/** What a compaction's first call hands back: the judged items, and the earlier items judged again. */
export interface AuditResult {
  items: AuditItem[];
  carried: CarriedItem[];
  /** items earlier compactions held that this one does not judge again: CARRIED_MAX were followed already */
  notFollowed: number;
}

/** contract §8.3 `carried_not_followed`, as the wire's `compaction` carries it: absent when 0, so every other output is as before. */
export function notFollowedField(r: AuditResult): { carried_not_followed?: number } {
  return r.notFollowed > 0 ? { carried_not_followed: r.notFollowed } : {};
}

/**
 * One session's audit, fed in file order by an adapter. Items are collected per stretch
 * (since the previous compaction, or the session's start); `compact()` closes the stretch,
 * `judge()` at the first call after it judges the stretch's items and the ones carried from
 * earlier compactions, and the refetch watch runs until the next compaction.
 */
export class CompactionAuditor {
  /** the stretch's items, by kind + "\0" + text: one item per distinct text (first occurrence kept) */
  private stretch = new Map<string, Pending>();
  /** the stretch's keys by the span that gave them, so forget() costs what it forgets (docs/security.md "Linear time") */
  private bySpan = new Map<string, string[]>();
  /** stretch items looked at by forget(): the work the scaling tests count */
  scanned = 0;
  /** items closed by compact(), waiting for judge() */
  private closed: Pending[] | null = null;
  /** items of earlier compactions that some compaction still held, by key, with the turn that first audited them */
  private surviving = new Map<string, CarriedItem>();
  /** keys of items a compaction held when CARRIED_MAX were followed already: counted, not judged again until the user brings them back */
  private readonly unfollowed = new Set<string>();
  /** the last judged compaction's items the agent may still go back for, by key */
  private watch = new Map<string, AuditItem>();
  private watchTurn = -1;
  /** the watch's prompts indexed (null until a prompt is written after the judge) */
  private restate: RestateWatch | null = null;
  private restateSteps = 0;
  private refetches: Refetch[] = [];

  /** `carriedMax`: the items followed from one compaction to the next (the scaling tests use fewer, to stay small) */
  constructor(private readonly carriedMax = CARRIED_MAX) {}

  /** the items followed to the next compaction: at most carriedMax (the memory the scaling tests count) */
  get followed(): number {
    return this.surviving.size;
  }

  /**
   * an item of the current stretch. contract §8.4: a path, a command, a todo or an error is one
   * item however often it recurs; a prompt is one item each time the user writes it.
   */
  add(kind: AuditItemKind, text: string, fromTurn: number, spanId: string | null): void {
    if (text === '') return;
    const key = kind === 'user_prompt' ? `${kind}\0${text}\0${spanId ?? fromTurn}` : `${kind}\0${text}`;
    if (this.stretch.has(key)) return;
    this.stretch.set(key, { kind, text, from_turn: fromTurn, span_id: spanId });
    if (spanId === null) return;
    const keys = this.bySpan.get(spanId);
    if (keys === undefined) this.bySpan.set(spanId, [key]);
    else keys.push(key);
  }

  /** The items these spans gave the stretch: gone with them (an abandoned branch, adapters.md rewinds). */
  forget(spanIds: ReadonlySet<string>): void {
    for (const id of spanIds) {
      const keys = this.bySpan.get(id);
      if (keys === undefined) continue;
      this.bySpan.delete(id);
      for (const key of keys) {
        this.scanned++;
        if (this.stretch.get(key)?.span_id === id) this.stretch.delete(key);
      }
    }
  }

  /** a tool read a path at `turn` (the call that issued it): the first after a compaction refetches its item */
  fileRead(path: string, turn: number): void {
    this.wentBack(`file\0${path}`, turn);
  }

  /** the user wrote a prompt at `turn`: one that restates an audited prompt refetches it */
  promptWritten(text: string, turn: number): void {
    if (this.watch.size === 0) return;
    // contract §8.5: the same prompt again, or most of its words again; one index over the
    // watched prompts, built at the first prompt after the judge (docs/security.md "Linear time")
    if (this.restate === null) {
      const prompts: { key: string; text: string }[] = [];
      for (const [key, item] of this.watch) if (item.kind === 'user_prompt') prompts.push({ key, text: item.text });
      this.restate = new RestateWatch(prompts, RESTATE_RULES);
      this.restateSteps = 0;
    }
    for (const key of this.restate.restatedBy(text)) this.wentBack(key, turn);
    this.scanned += this.restate.steps - this.restateSteps;
    this.restateSteps = this.restate.steps;
  }

  /** a compaction: the stretch closes (a second boundary before the first call adds to it) */
  compact(): void {
    // appended, not copied: n boundaries before a call cost n, not n² (docs/security.md "Linear time")
    this.closed ??= [];
    for (const p of this.stretch.values()) this.closed.push(p);
    this.stretch = new Map();
    this.bySpan = new Map();
    this.watch = new Map();
    this.restate = null;
  }

  /** true between compact() and the judge() of the first call after it */
  get pending(): boolean {
    return this.closed !== null;
  }

  /**
   * The first call after the compaction at `turn` saw `survivingText`: every item judged.
   * `unreadable`: part of what survived cannot be read (an encrypted summary), so an item not
   * found in the rest is `unknown`, never `lost` (contract §8.4).
   */
  judge(turn: number, survivingText: string, unreadable = false): AuditResult {
    const closed = this.closed ?? [];
    this.closed = null;
    const own = new Set(closed.map((p) => `${p.kind}\0${p.text}`));
    let notFollowed = this.unfollowed.size;
    for (const key of own) if (this.unfollowed.has(key)) notFollowed--;
    const earlier = [...this.surviving].filter(([key]) => !own.has(key));
    const { statuses, steps } = judgeItems(survivingText, [...closed, ...earlier.map(([, c]) => c)]);
    // contract §8.4 unknown: not in the readable text, and part of what survived cannot be read
    const judged = (i: number): AuditStatus => (unreadable && statuses[i] === 'lost' ? 'unknown' : statuses[i]!);
    const items: AuditItem[] = closed.map((p, i) => ({ ...p, status: judged(i) }));
    const carried: CarriedItem[] = [];
    for (const [i, [key, c]] of earlier.entries()) {
      const status = judged(closed.length + i);
      // shared, not copied: an item whose status holds is the same (never changed) object at every compaction
      const now = status === c.status ? c : { ...c, status };
      carried.push(now);
      if (status === 'lost') this.surviving.delete(key);
      else this.surviving.set(key, now);
    }
    for (const it of items) {
      const key = `${it.kind}\0${it.text}`;
      this.unfollowed.delete(key);
      if (it.status !== 'lost' && (this.surviving.has(key) || this.surviving.size < this.carriedMax))
        this.surviving.set(key, { ...it, first_audited_at: turn });
      else if (it.status !== 'lost') this.unfollowed.add(key);
      // a prompt written twice is two items, each gone back for on its own
      this.watch.set(it.kind === 'user_prompt' ? `${key}\0${it.span_id ?? it.from_turn}` : key, it);
    }
    this.watchTurn = turn;
    this.restate = null;
    this.scanned += steps + carried.length;
    return { items, carried, notFollowed };
  }

  /** Refetches noticed since the last call, in order; the list is emptied. */
  takeRefetches(): Refetch[] {
    const out = this.refetches;
    this.refetches = [];
    return out;
  }

  private wentBack(key: string, turn: number): void {
    const item = this.watch.get(key);
    if (item === undefined) return;
    this.watch.delete(key);
    this.refetches.push({ compaction_turn: this.watchTurn, kind: item.kind, text: item.text, turn });
  }
}
