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
  /** marks a cut looked at (those it forgot, and the one it stopped at): the work the scaling tests count */
  looked = 0;

  /** the context's length after the record `uuid`, if it is on the chain since the last boundary */
  end(uuid: string): number | undefined {
    return this.endOf.get(uuid);
  }

  /** the record `uuid` ended with the context `length` long (its first mark stands) */
  mark(uuid: string, length: number): void {
    if (this.endOf.has(uuid)) return;
    this.endOf.set(uuid, length);
    this.order.push(uuid);
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
  }
}
