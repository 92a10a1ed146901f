// Bytes held for messages that have not finished arriving (a WebSocket frame still
// coming in, an NDJSON line without its newline yet), across every connection: one
// budget for the relay and one per remote address, so many slow or stalled senders
// cannot together hold more memory than the operator allowed (docs/security.md).

export interface UnfinishedLimits {
  /** all connections together */
  maxUnfinishedBytes: number;
  /** the connections of one remote address together */
  maxUnfinishedBytesPerAddress: number;
}

export type Overdraft = { scope: 'relay' | 'address'; limit: number; flag: string };

export class UnfinishedBudget {
  total = 0;
  /** connections refused or closed for going over the budget */
  refused = 0;
  private readonly byAddress = new Map<string, number>();
  private readonly holders = new Set<UnfinishedHolder>();

  constructor(private readonly limits: UnfinishedLimits) {}

  holder(address: string): UnfinishedHolder {
    const h = new UnfinishedHolder(this, address);
    this.holders.add(h);
    return h;
  }

  /** Holders whose message has been unfinished for longer than `ms`. */
  stale(now: number, ms: number): UnfinishedHolder[] {
    return [...this.holders].filter((h) => h.since !== null && now - h.since > ms);
  }

  stats(): { bytes: number; addresses: number; refused: number } {
    return { bytes: this.total, addresses: this.byAddress.size, refused: this.refused };
  }

  /** @internal moves `delta` bytes into or out of the budget; null when it fits */
  charge(address: string, delta: number): Overdraft | null {
    const atAddress = this.byAddress.get(address) ?? 0;
    if (delta > 0) {
      if (this.total + delta > this.limits.maxUnfinishedBytes) return this.overdraft('relay', this.limits.maxUnfinishedBytes, '--max-unfinished-bytes');
      if (atAddress + delta > this.limits.maxUnfinishedBytesPerAddress) {
        return this.overdraft('address', this.limits.maxUnfinishedBytesPerAddress, '--max-unfinished-bytes-per-address');
      }
    }
    this.total += delta;
    if (atAddress + delta === 0) this.byAddress.delete(address);
    else this.byAddress.set(address, atAddress + delta);
    return null;
  }

  /** @internal */
  forget(h: UnfinishedHolder): void {
    this.holders.delete(h);
  }

  private overdraft(scope: Overdraft['scope'], limit: number, flag: string): Overdraft {
    this.refused++;
    return { scope, limit, flag };
  }
}

/** One connection's share of the budget. */
export class UnfinishedHolder {
  bytes = 0;
  /** when the message now unfinished started (ms), or null when none is */
  since: number | null = null;

  constructor(
    private readonly budget: UnfinishedBudget,
    readonly address: string,
  ) {}

  /** Records that this connection now holds `bytes` of an unfinished message; an Overdraft (and nothing recorded) when over budget. */
  hold(bytes: number, now = Date.now()): Overdraft | null {
    const over = this.budget.charge(this.address, bytes - this.bytes);
    if (over !== null) return over;
    if (bytes === 0) this.since = null;
    else if (this.bytes === 0) this.since = now;
    this.bytes = bytes;
    return null;
  }

  release(): void {
    this.budget.charge(this.address, -this.bytes);
    this.bytes = 0;
    this.since = null;
    this.budget.forget(this);
  }
}

/** What a refused sender is told. */
export function overdraftMessage(o: Overdraft): string {
  const whose = o.scope === 'relay' ? 'all connections together' : 'the connections of one address';
  return `unfinished messages of ${whose} would exceed ${o.limit} bytes (${o.flag}); finish the messages you started, or send smaller ones, and retry`;
}

/** The same, short enough for a WebSocket close reason (123 bytes). */
export function overdraftReason(o: Overdraft): string {
  return `unfinished messages over the budget (${o.flag}); finish or shrink them and retry`;
}
