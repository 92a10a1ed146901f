// Records an adapter read but could not turn into context (docs/adapters.md): counted by
// kind, never input errors, so a transcript from a newer agent version still loads and the
// report says what was left out.

export class SkippedRecords {
  private readonly counts = new Map<string, number>();

  add(kind: string): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
  }

  get total(): number {
    let n = 0;
    for (const c of this.counts.values()) n += c;
    return n;
  }

  /** kind → count, most frequent first, then by name (a stable order for reports). */
  entries(): [string, number][] {
    return [...this.counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }

  toRecord(): Record<string, number> {
    return Object.fromEntries(this.entries());
  }
}

/** "3 progress, 1 summary": the plain list shown by `check` and the dashboard. */
export function describeSkipped(counts: Record<string, number>): string {
  return Object.entries(counts)
    .map(([kind, n]) => `${n} ${kind}`)
    .join(', ');
}
