// docs/adapters.md rewinds: where the Claude Code context ended after each main-chain record
// (by uuid) since the last compact boundary, so a prompt whose parent is an earlier record
// cuts the context back to it. The context only grows between cuts, and a cut forgets every
// record past it, so the ends are non-decreasing in the order they were marked: the records
// a cut forgets are the last ones marked, popped from a stack. Each record is marked and
// forgotten once, so n rewinds cost what they forget, not a walk of every record each
// (docs/security.md "Linear time").

export class ChainEnds {
  /** uuid → the context's length after that record */
  private readonly endOf = new Map<string, number>();
  /** the marked uuids in the order marked (their ends non-decreasing) */
  private readonly order: string[] = [];
  /** records waiting for the record they follow (its uuid → theirs): see `follow` */
  private readonly waiting = new Map<string, string[]>();
  /** marks a cut looked at (those it forgot, and the one it stopped at): the work the scaling tests count */
  looked = 0;

  /** the context's length after the record `uuid`, if it is on the chain since the last boundary */
  end(uuid: string): number | undefined {
    return this.endOf.get(uuid);
  }

  /** the record `uuid` ended with the context `length` long (its first mark stands); so do the records waiting for it */
  mark(uuid: string, length: number): void {
    const todo = [uuid];
    for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
      if (this.endOf.has(next)) continue;
      this.endOf.set(next, length);
      this.order.push(next);
      const after = this.waiting.get(next);
      if (after !== undefined) {
        this.waiting.delete(next);
        for (const u of after) todo.push(u);
      }
    }
  }

  /**
   * The record `uuid` added nothing and names as its parent `parent`, a record not read yet:
   * Claude Code 2.1.x writes a turn's `system` `turn_duration` before the turn's last message,
   * which it follows. It ends where `parent` ends, so it is marked with it (and never, if
   * `parent` never comes: a prompt naming it then changes nothing). Each record waits once.
   */
  follow(uuid: string, parent: string): void {
    const list = this.waiting.get(parent);
    if (list === undefined) this.waiting.set(parent, [uuid]);
    else list.push(uuid);
  }

  /** the context was cut back to `length`: the records that ended past it are on an abandoned branch */
  cut(length: number): void {
    for (let last = this.order.at(-1); last !== undefined; last = this.order.at(-1)) {
      this.looked++;
      if (this.endOf.get(last)! <= length) return;
      this.order.pop();
      this.endOf.delete(last);
    }
  }

  /** a compact boundary: a rewind goes back within a context, never across one */
  clear(): void {
    this.endOf.clear();
    this.order.length = 0;
    this.waiting.clear();
  }
}
