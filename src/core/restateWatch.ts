// contract §8.5 the restated-prompt watch: after a compaction, a prompt the user writes that
// holds an audited prompt (white space collapsed, any case), or at least RESTATE_COVERAGE of
// its words, goes back for it. Asked of every watched prompt for every prompt written, that
// was n × n (docs/security.md "Linear time"); here the watched prompts are indexed once:
// - the substring rule by one Aho–Corasick set whose patterns are taken when found, so each
//   written prompt costs its own length and each watched one is found once;
// - the word rule by prefix filtering: a prompt of k words needs t of them, so one of any
//   k − t + 1 must be in the new prompt; each is listed under its k − t + 1 rarest words only,
//   and a new prompt checks the ones listed under its words. Exact: the same prompts match.
import { longestPatterns, PatternSet, SinglePattern } from './textIndex.ts';

/** Watched prompts of one text: found together, since the rules read only the text. */
interface Group {
  /** the folded text (the substring rule) */
  folded: string;
  words: Set<string>;
  /** the fewest of `words` a new prompt must hold (the word rule), or 0 when the rule does not apply */
  needed: number;
  /** the watch's keys of this text, in watch order */
  keys: { key: string; order: number }[];
  found: boolean;
}

export interface RestateRules {
  fold(text: string): string;
  wordsOf(text: string): Set<string>;
  /** the share of a prompt's words another must hold */
  coverage: number;
  /** fewer words than this are restated word for word only */
  minWords: number;
}

export class RestateWatch {
  private readonly groups: Group[] = [];
  private readonly patterns: PatternSet;
  /** the few longest watched texts (a prompt of megabytes), each searched for on its own, not through the trie (textIndex.ts) */
  private readonly long: { group: Group; pattern: SinglePattern }[] = [];
  /** the long patterns' own steps */
  private readonly longSteps = { steps: 0 };
  /** the groups in the trie, by its pattern numbers */
  private readonly indexed: readonly Group[];
  /** word → the groups listing it among their rarest (dead entries dropped as met) */
  private readonly byWord = new Map<string, number[]>();
  private readonly checkedAt: Int32Array;
  private prompt = 0;
  /** the watch's own steps (the pattern set counts its own): the work the scaling tests count */
  private ownSteps = 0;

  /** `prompts`: the watched prompts' keys and texts, in watch order */
  constructor(
    prompts: readonly { key: string; text: string }[],
    private readonly rules: RestateRules,
  ) {
    const byFolded = new Map<string, number>();
    prompts.forEach(({ key, text }, order) => {
      const folded = rules.fold(text);
      // contract §8.5: an empty prompt restates nothing and is restated by nothing
      if (folded === '') return;
      let g = byFolded.get(folded);
      if (g === undefined) {
        g = this.groups.length;
        byFolded.set(folded, g);
        const words = rules.wordsOf(text);
        this.groups.push({ folded, words, needed: words.size >= rules.minWords ? this.fewest(words.size) : 0, keys: [], found: false });
        this.ownSteps += text.length;
      }
      this.groups[g]!.keys.push({ key, order });
    });
    // the same answers either way; the trie would take ~44 bytes a code unit to build for a prompt of megabytes
    const long = longestPatterns(this.groups.map((g) => g.folded));
    const indexed = long.size === 0 ? this.groups : this.groups.filter((g) => !long.has(g.folded));
    for (const g of this.groups) if (long.has(g.folded)) this.long.push({ group: g, pattern: new SinglePattern(g.folded, this.longSteps) });
    this.patterns = new PatternSet(indexed.map((g) => g.folded));
    this.indexed = indexed;
    // rarity: how many watched texts hold the word
    const frequency = new Map<string, number>();
    for (const g of this.groups) if (g.needed > 0) for (const w of g.words) frequency.set(w, (frequency.get(w) ?? 0) + 1);
    this.groups.forEach((g, i) => {
      if (g.needed === 0) return;
      const rarest = [...g.words].sort((a, b) => frequency.get(a)! - frequency.get(b)! || (a < b ? -1 : a > b ? 1 : 0));
      this.ownSteps += rarest.length;
      for (const w of rarest.slice(0, g.words.size - g.needed + 1)) {
        const list = this.byWord.get(w);
        if (list === undefined) this.byWord.set(w, [i]);
        else list.push(i);
      }
    });
    this.checkedAt = new Int32Array(this.groups.length);
  }

  get steps(): number {
    return this.ownSteps + this.patterns.steps + this.longSteps.steps;
  }

  /** the fewest words of `size` that make `found / size >= coverage`, as coverage() computes it */
  private fewest(size: number): number {
    let f = Math.min(size, Math.ceil(size * this.rules.coverage));
    while (f > 0 && (f - 1) / size >= this.rules.coverage) f--;
    while (f < size && f / size < this.rules.coverage) f++;
    return f;
  }

  /** The keys of the watched prompts `text` restates and that no earlier text did, in watch order. */
  restatedBy(text: string): string[] {
    const hit: Group[] = [];
    const take = (g: Group): void => {
      if (g.found) return;
      g.found = true;
      hit.push(g);
    };
    const folded = this.rules.fold(text);
    this.ownSteps += text.length;
    for (const i of this.patterns.take(folded)) take(this.indexed[i]!);
    for (const l of this.long) if (!l.group.found && l.pattern.in(folded, this.longSteps)) take(l.group);
    const words = this.rules.wordsOf(text);
    const stamp = ++this.prompt;
    for (const w of words) {
      const list = this.byWord.get(w);
      if (list === undefined) continue;
      let kept = 0;
      for (const i of list) {
        this.ownSteps++;
        const g = this.groups[i]!;
        if (g.found) continue;
        list[kept++] = i;
        if (this.checkedAt[i] === stamp) continue;
        this.checkedAt[i] = stamp;
        if (this.holds(words, g)) take(g);
      }
      list.length = kept;
    }
    const keys = hit.flatMap((g) => g.keys);
    keys.sort((a, b) => a.order - b.order);
    return keys.map((k) => k.key);
  }

  /** whether `words` holds at least `g.needed` of the group's words: the smaller set walked, the larger asked */
  private holds(words: Set<string>, g: Group): boolean {
    let found = 0;
    if (g.words.size <= words.size) {
      for (const w of g.words) if (words.has(w)) found++;
      this.ownSteps += g.words.size;
    } else {
      for (const w of words) if (g.words.has(w)) found++;
      this.ownSteps += words.size;
    }
    return found >= g.needed;
  }
}
