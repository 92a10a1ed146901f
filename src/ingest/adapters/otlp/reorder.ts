// docs/adapters.md "OpenTelemetry", ordering: spans of one conversation arrive out of order
// and in batches from several processes. Each is held for a short reorder window after it
// arrived; a session's held items are released in start-time order, the earliest first,
// once the earliest has waited its window. An item that starts before the last one already
// released for its session can no longer be placed (its turn number would not increase,
// contract §2.4): it is refused as late. The clock is the caller's (milliseconds).

export interface Orderable {
  session: string;
  startNs: bigint;
  /** a tie-break between equal start times, so the order does not depend on arrival */
  key: string;
}

interface Held<T> {
  item: T;
  arrivedMs: number;
}

export class ReorderBuffer<T extends Orderable> {
  private readonly held = new Map<string, Held<T>[]>();
  /** per session: the start time of the last released item */
  private readonly released = new Map<string, bigint>();

  constructor(readonly windowMs: number) {}

  /** Holds an item; `late` when an item of its session that starts after it was already released. */
  add(item: T, nowMs: number): 'held' | 'late' {
    const last = this.released.get(item.session);
    if (last !== undefined && item.startNs < last) return 'late';
    let list = this.held.get(item.session);
    if (list === undefined) this.held.set(item.session, (list = []));
    // sorted insert: batches are mostly in order, so this is usually an append
    let i = list.length;
    while (i > 0 && before(item, list[i - 1]!.item)) i--;
    list.splice(i, 0, { item, arrivedMs: nowMs });
    return 'held';
  }

  /** Items whose window has passed, each session's in start-time order. */
  due(nowMs: number): T[] {
    const out: T[] = [];
    for (const [session, list] of this.held) {
      let n = 0;
      while (n < list.length && list[n]!.arrivedMs + this.windowMs <= nowMs) n++;
      if (n === 0) continue;
      this.take(session, list, n, out);
    }
    return out;
  }

  /** Everything held, in order (the relay is closing). */
  flush(): T[] {
    const out: T[] = [];
    for (const [session, list] of this.held) this.take(session, list, list.length, out);
    return out;
  }

  /** When the next item falls due (ms on the caller's clock), or null when nothing is held. */
  nextDueMs(): number | null {
    let next: number | null = null;
    for (const list of this.held.values()) {
      const first = list[0];
      if (first === undefined) continue;
      // the head goes first: what is behind it waits for it, however long it has waited
      const due = first.arrivedMs + this.windowMs;
      next = next === null ? due : Math.min(next, due);
    }
    return next;
  }

  /** Forgets a session's order once nothing of it is held (its state was dropped to bound memory). */
  forget(session: string): void {
    if (!this.held.has(session)) this.released.delete(session);
  }

  get size(): number {
    let n = 0;
    for (const list of this.held.values()) n += list.length;
    return n;
  }

  private take(session: string, list: Held<T>[], n: number, out: T[]): void {
    const taken = list.splice(0, n);
    for (const h of taken) out.push(h.item);
    this.released.set(session, taken[taken.length - 1]!.item.startNs);
    if (list.length === 0) this.held.delete(session);
  }
}

function before(a: Orderable, b: Orderable): boolean {
  return a.startNs < b.startNs || (a.startNs === b.startNs && a.key < b.key);
}
