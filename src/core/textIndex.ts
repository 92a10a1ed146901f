// Which of many texts occur in one long text, in one pass over it (Aho–Corasick, over UTF-16
// code units). The compaction audit asks, for every item, whether its text is a substring of
// what survived (contract §8.4), and its refetch watch whether a new prompt holds an audited
// one (§8.5); one `includes` per item costs items × text, which a file of n Reads and an
// n-byte summary, or n prompts restated after a compaction, makes quadratic (docs/security.md
// "Linear time"). Here the cost is the patterns' length plus the text's, and each pattern is
// reported once.
//
// The trie is built from the patterns in sorted order, so a node's children are made in the
// order of their code units and sit in flat typed arrays (a binary search finds one): 22 bytes
// a trie node (27 once take() is used), at most one node a pattern code unit; a Map per node
// took 400 MB for 3 MB of prompts, these arrays 66 MB (`npm run bench -- text-index`).

/** Code-unit order, as `<` compares strings. */
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export class PatternSet {
  /** the node's children: edgeChar/edgeTo[childStart[v] .. childStart[v + 1]), by code unit */
  private readonly childStart: Int32Array;
  private readonly edgeChar: Uint16Array;
  private readonly edgeTo: Int32Array;
  private readonly fail: Int32Array;
  /** the pattern ending at the node (its first index among equal patterns), or -1 */
  private readonly own: Int32Array;
  /** the nearest node along the fail links (itself excluded) where a pattern ends, or -1 */
  private readonly dict: Int32Array;
  /** take(): the nearest node, the node itself included, whose pattern is not taken yet; built on the first take() */
  private head: Int32Array | null = null;
  private taken: Uint8Array | null = null;
  /** node and code-unit steps taken: the work the scaling tests count */
  steps = 0;

  constructor(patterns: readonly string[]) {
    // the trie in its own function: its scaffolding (a parent and code unit a node, the path)
    // is let go before the fail links are made, not held beside them (issue 39)
    const { childStart, edgeChar, edgeTo, own, nodes } = buildTrie(patterns, this);
    this.childStart = childStart;
    this.edgeChar = edgeChar;
    this.edgeTo = edgeTo;
    this.own = own;
    this.fail = new Int32Array(nodes);
    this.dict = new Int32Array(nodes).fill(-1);
    // breadth first: a node's fail link is the longest proper suffix that is also a prefix
    const queue = new Int32Array(nodes);
    let tail = 0;
    for (let e = childStart[0]!; e < childStart[1]!; e++) queue[tail++] = edgeTo[e]!;
    for (let q = 0; q < tail; q++) {
      const node = queue[q]!;
      for (let e = childStart[node]!; e < childStart[node + 1]!; e++) {
        const child = edgeTo[e]!;
        const c = edgeChar[e]!;
        let f = this.fail[node]!;
        let to = this.child(f, c);
        while (to === -1 && f !== 0) {
          f = this.fail[f]!;
          to = this.child(f, c);
          this.steps++;
        }
        this.fail[child] = to !== -1 && to !== child ? to : 0;
        const fc = this.fail[child]!;
        this.dict[child] = this.own[fc] !== -1 ? fc : this.dict[fc]!;
        queue[tail++] = child;
      }
    }
  }

  /** the child of `node` along code unit `c`, or -1 (a binary search of its sorted children) */
  private child(node: number, c: number): number {
    let lo = this.childStart[node]!;
    let hi = this.childStart[node + 1]! - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const m = this.edgeChar[mid]!;
      if (m === c) return this.edgeTo[mid]!;
      if (m < c) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** the automaton's state after `c` from `node` */
  private step(node: number, c: number): number {
    let to = this.child(node, c);
    while (to === -1 && node !== 0) {
      node = this.fail[node]!;
      to = this.child(node, c);
      this.steps++;
    }
    this.steps++;
    return to === -1 ? 0 : to;
  }

  /** The indexes of the patterns that occur in `text`. */
  occurring(text: string): Set<number> {
    const found = new Set<number>();
    const reported = new Uint8Array(this.own.length);
    let node = 0;
    for (let k = 0; k < text.length; k++) {
      node = this.step(node, text.charCodeAt(k));
      // every pattern ending here, each node reported once (its chain is then reported too)
      for (let n = this.own[node] !== -1 ? node : this.dict[node]!; n !== -1 && reported[n] === 0; n = this.dict[n]!) {
        reported[n] = 1;
        found.add(this.own[n]!);
        this.steps++;
      }
    }
    return found;
  }

  /**
   * The indexes of the patterns that occur in `text` and that no earlier take() returned,
   * in the order they end in it; each is returned once in the set's life. A pattern taken is
   * skipped for good (its node is linked past, so the watch of n prompts pays for each
   * pattern once, not once per text).
   */
  take(text: string): number[] {
    if (this.head === null) {
      this.head = new Int32Array(this.own.length);
      for (let v = 0; v < this.own.length; v++) this.head[v] = this.own[v] !== -1 ? v : this.dict[v]!;
      this.taken = new Uint8Array(this.own.length);
    }
    const out: number[] = [];
    let node = 0;
    for (let k = 0; k < text.length; k++) {
      node = this.step(node, text.charCodeAt(k));
      for (let n = this.untaken(node); n !== -1; n = this.untaken(n)) {
        this.taken![n] = 1;
        out.push(this.own[n]!);
        this.steps++;
      }
    }
    return out;
  }

  /** the nearest node from `v` along the dictionary links (itself included) whose pattern is not taken, or -1; the links walked are shortened */
  private untaken(v: number): number {
    const head = this.head!;
    const taken = this.taken!;
    let r = head[v]!;
    while (r !== -1 && taken[r] === 1) {
      r = head[r] === r ? this.dict[r]! : head[r]!;
      this.steps++;
    }
    // path compression: every node passed now points at r
    let x = v;
    while (x !== -1 && head[x] !== r) {
      const nextX: number = head[x] === x ? this.dict[x]! : head[x]!;
      head[x] = r;
      x = nextX;
    }
    return r;
  }
}

/** The trie of `patterns` in flat arrays (see PatternSet), its steps counted on `counted`. */
function buildTrie(
  patterns: readonly string[],
  counted: { steps: number },
): { childStart: Int32Array; edgeChar: Uint16Array; edgeTo: Int32Array; own: Int32Array; nodes: number } {
  const order: number[] = [];
  let units = 0;
  let longest = 0;
  patterns.forEach((p, i) => {
    if (p === '') return;
    order.push(i);
    units += p.length;
    longest = Math.max(longest, p.length);
  });
  // a stable sort: of equal patterns the first index comes first and owns the node
  order.sort((a, b) => byCodeUnits(patterns[a]!, patterns[b]!));
  const capacity = units + 1;
  const parent = new Int32Array(capacity);
  const incoming = new Uint16Array(capacity);
  const own = new Int32Array(capacity).fill(-1);
  let nodes = 1;
  // the path of the previous pattern: path[d] is its node at depth d (path[0], the root, is 0)
  const path = new Int32Array(longest + 1);
  let previous = '';
  for (const i of order) {
    const p = patterns[i]!;
    let shared = 0;
    const limit = Math.min(p.length, previous.length);
    while (shared < limit && p.charCodeAt(shared) === previous.charCodeAt(shared)) shared++;
    counted.steps += shared + 1;
    for (let k = shared; k < p.length; k++) {
      parent[nodes] = path[k]!;
      incoming[nodes] = p.charCodeAt(k);
      path[k + 1] = nodes++;
      counted.steps++;
    }
    const end = path[p.length]!;
    if (own[end] === -1) own[end] = i;
    previous = p;
  }
  // children in node order: made in code-unit order under each parent, since the patterns were sorted
  const childStart = new Int32Array(nodes + 1);
  for (let v = 1; v < nodes; v++) childStart[parent[v]! + 1]!++;
  for (let v = 0; v < nodes; v++) childStart[v + 1]! += childStart[v]!;
  const fill = childStart.slice(0, nodes);
  const edgeChar = new Uint16Array(Math.max(0, nodes - 1));
  const edgeTo = new Int32Array(Math.max(0, nodes - 1));
  for (let v = 1; v < nodes; v++) {
    const e = fill[parent[v]!]!++;
    edgeChar[e] = incoming[v]!;
    edgeTo[e] = v;
  }
  return { childStart, edgeChar, edgeTo, own: own.slice(0, nodes), nodes };
}

/**
 * One pattern searched for on its own (Knuth–Morris–Pratt, over UTF-16 code units): its border
 * table made once (4 bytes a code unit, where the trie takes 22 held and about twice that while
 * it is built), then one pass over each text asked. For the few longest of the audit's patterns
 * and watched prompts (a prompt of megabytes); steps counted on `counted` as the trie's are.
 */
export class SinglePattern {
  /** border[k]: the length of the longest proper border of pattern[0..k] */
  private readonly border: Int32Array;

  constructor(
    readonly pattern: string,
    counted: { steps: number },
  ) {
    const m = pattern.length;
    this.border = new Int32Array(m);
    for (let k = 1, b = 0; k < m; k++) {
      while (b > 0 && pattern.charCodeAt(k) !== pattern.charCodeAt(b)) {
        b = this.border[b - 1]!;
        counted.steps++;
      }
      if (pattern.charCodeAt(k) === pattern.charCodeAt(b)) b++;
      this.border[k] = b;
      counted.steps++;
    }
  }

  /** whether the pattern occurs in `text` */
  in(text: string, counted: { steps: number }): boolean {
    const { pattern, border } = this;
    const m = pattern.length;
    if (m === 0) return true;
    if (m > text.length) return false;
    for (let i = 0, q = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      while (q > 0 && c !== pattern.charCodeAt(q)) {
        q = border[q - 1]!;
        counted.steps++;
      }
      if (c === pattern.charCodeAt(q)) q++;
      counted.steps++;
      if (q === m) return true;
    }
    return false;
  }
}

/** Whether `pattern` occurs in `text` (SinglePattern, made for one text). */
export function occurs(pattern: string, text: string, counted: { steps: number }): boolean {
  return new SinglePattern(pattern, counted).in(text, counted);
}

/** A pattern longer than this (code units) may be searched for on its own rather than through the trie. */
export const LONG_PATTERN = 1 << 16;
/** At most this many patterns of one set are searched for on their own: each is one more pass over every text asked. */
export const LONG_SEARCHES = 4;

/** The (at most LONG_SEARCHES) longest of `patterns` past LONG_PATTERN: those to search for on their own. */
export function longestPatterns(patterns: readonly string[]): Set<string> {
  const long = patterns.filter((p) => p.length > LONG_PATTERN);
  return new Set(long.length <= LONG_SEARCHES ? long : long.sort((a, b) => b.length - a.length).slice(0, LONG_SEARCHES));
}
