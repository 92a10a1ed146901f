// Which of many texts occur in one long text, in one pass over it (Aho–Corasick, over UTF-16
// code units). The compaction audit asks, for every item, whether its text is a substring of
// what survived (contract §8.4); one `includes` per item costs items × text, which a file of n
// Reads and an n-byte summary makes quadratic (docs/security.md "Linear time"). Here the cost
// is the patterns' length plus the text's, and each pattern is reported once.

export class PatternSet {
  // docs/security.md "Bounded memory": a node is a few 32-bit cells, not a Map, since an
  // item's text of 10 MB (a huge prompt) is a chain of 10M nodes with one child each; only a
  // node with two children or more keeps a Map of them (`wide`)
  private size = 1;
  /** the code unit to the node's one child (−1: none, or see `wide`) */
  private ch = new Int32Array(16).fill(-1);
  private to = new Int32Array(16);
  private readonly wide = new Map<number, Map<number, number>>();
  private fail = new Int32Array(16);
  /** the pattern ending at the node, or -1 */
  private own = new Int32Array(16).fill(-1);
  /** the nearest node along the fail links (itself excluded) where a pattern ends, or -1 */
  private dict = new Int32Array(16).fill(-1);
  /** node and code-unit steps taken: the work the scaling tests count */
  steps = 0;

  constructor(patterns: readonly string[]) {
    patterns.forEach((p, i) => {
      if (p === '') return;
      let node = 0;
      for (let k = 0; k < p.length; k++) {
        const c = p.charCodeAt(k);
        let to = this.get(node, c);
        if (to === undefined) {
          to = this.add();
          this.set(node, c, to);
        }
        node = to;
        this.steps++;
      }
      if (this.own[node] === -1) this.own[node] = i;
    });
    // breadth first: a node's fail link is the longest proper suffix that is also a prefix
    const queue = new Int32Array(this.size);
    let tail = 0;
    this.forChildren(0, (_c, child) => (queue[tail++] = child));
    for (let q = 0; q < tail; q++) {
      const node = queue[q]!;
      this.forChildren(node, (c, child) => {
        let f = this.fail[node]!;
        while (f !== 0 && this.get(f, c) === undefined) {
          f = this.fail[f]!;
          this.steps++;
        }
        const to = this.get(f, c);
        this.fail[child] = to !== undefined && to !== child ? to : 0;
        const fc = this.fail[child]!;
        this.dict[child] = this.own[fc] !== -1 ? fc : this.dict[fc]!;
        queue[tail++] = child;
      });
    }
  }

  /** The indexes of the patterns that occur in `text`. */
  occurring(text: string): Set<number> {
    const found = new Set<number>();
    const reported = new Uint8Array(this.size);
    let node = 0;
    for (let k = 0; k < text.length; k++) {
      const c = text.charCodeAt(k);
      let to = this.get(node, c);
      while (to === undefined && node !== 0) {
        node = this.fail[node]!;
        to = this.get(node, c);
        this.steps++;
      }
      node = to ?? 0;
      this.steps++;
      // every pattern ending here, each node reported once (its chain is then reported too)
      for (let n = this.own[node] !== -1 ? node : this.dict[node]!; n !== -1 && reported[n] === 0; n = this.dict[n]!) {
        reported[n] = 1;
        found.add(this.own[n]!);
        this.steps++;
      }
    }
    return found;
  }

  private get(node: number, c: number): number | undefined {
    const w = this.wide.get(node);
    if (w !== undefined) return w.get(c);
    return this.ch[node] === c ? this.to[node] : undefined;
  }

  private set(node: number, c: number, to: number): void {
    const w = this.wide.get(node);
    if (w !== undefined) w.set(c, to);
    else if (this.ch[node] === -1) {
      this.ch[node] = c;
      this.to[node] = to;
    } else {
      this.wide.set(
        node,
        new Map([
          [this.ch[node]!, this.to[node]!],
          [c, to],
        ]),
      );
      this.ch[node] = -1;
    }
  }

  private forChildren(node: number, each: (c: number, child: number) => void): void {
    const w = this.wide.get(node);
    if (w !== undefined) for (const [c, child] of w) each(c, child);
    else if (this.ch[node] !== -1) each(this.ch[node]!, this.to[node]!);
  }

  /** A new node, the arrays doubled when full. */
  private add(): number {
    if (this.size === this.ch.length) {
      const grow = (a: Int32Array<ArrayBuffer>, fill: number): Int32Array<ArrayBuffer> => {
        const b = new Int32Array(a.length * 2).fill(fill, a.length);
        b.set(a);
        return b;
      };
      this.ch = grow(this.ch, -1);
      this.to = grow(this.to, 0);
      this.fail = grow(this.fail, 0);
      this.own = grow(this.own, -1);
      this.dict = grow(this.dict, -1);
    }
    return this.size++;
  }
}
