// Which of many texts occur in one long text, in one pass over it (Aho–Corasick, over UTF-16
// code units). The compaction audit asks, for every item, whether its text is a substring of
// what survived (contract §8.4); one `includes` per item costs items × text, which a file of n
// Reads and an n-byte summary makes quadratic (docs/security.md "Linear time"). Here the cost
// is the patterns' length plus the text's, and each pattern is reported once.

export class PatternSet {
  private readonly next: Map<number, number>[] = [new Map()];
  private readonly fail: number[] = [0];
  /** the pattern ending at the node, or -1 */
  private readonly own: number[] = [-1];
  /** the nearest node along the fail links (itself excluded) where a pattern ends, or -1 */
  private readonly dict: number[] = [-1];
  /** node and code-unit steps taken: the work the scaling tests count */
  steps = 0;

  constructor(patterns: readonly string[]) {
    patterns.forEach((p, i) => {
      if (p === '') return;
      let node = 0;
      for (let k = 0; k < p.length; k++) {
        const c = p.charCodeAt(k);
        let to = this.next[node]!.get(c);
        if (to === undefined) {
          to = this.next.length;
          this.next.push(new Map());
          this.fail.push(0);
          this.own.push(-1);
          this.dict.push(-1);
          this.next[node]!.set(c, to);
        }
        node = to;
        this.steps++;
      }
      if (this.own[node] === -1) this.own[node] = i;
    });
    // breadth first: a node's fail link is the longest proper suffix that is also a prefix
    const queue: number[] = [];
    for (const child of this.next[0]!.values()) queue.push(child);
    for (let q = 0; q < queue.length; q++) {
      const node = queue[q]!;
      for (const [c, child] of this.next[node]!) {
        let f = this.fail[node]!;
        while (f !== 0 && !this.next[f]!.has(c)) {
          f = this.fail[f]!;
          this.steps++;
        }
        const to = this.next[f]!.get(c);
        this.fail[child] = to !== undefined && to !== child ? to : 0;
        const fc = this.fail[child]!;
        this.dict[child] = this.own[fc] !== -1 ? fc : this.dict[fc]!;
        queue.push(child);
      }
    }
  }

  /** The indexes of the patterns that occur in `text`. */
  occurring(text: string): Set<number> {
    const found = new Set<number>();
    const reported = new Uint8Array(this.next.length);
    let node = 0;
    for (let k = 0; k < text.length; k++) {
      const c = text.charCodeAt(k);
      let to = this.next[node]!.get(c);
      while (to === undefined && node !== 0) {
        node = this.fail[node]!;
        to = this.next[node]!.get(c);
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
}
