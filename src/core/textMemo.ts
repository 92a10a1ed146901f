// A value computed from a span's text (its term counts, its sha256), remembered per span id
// from turn to turn, so that a text unchanged since the last turn is not worked on again.
// A Map by id: looking a span up by its position in last turn's list (spans keep their
// order) was tried and measured slower than the Map's lookup of a short id.

export class TextMemo<T> {
  private readonly byId = new Map<string, { text: string; value: T }>();

  /** The value for `id`'s `text`: remembered when the text is the one last seen for the id, else computed. */
  value(id: string, text: string, compute: (text: string) => T): T {
    const known = this.byId.get(id);
    if (known !== undefined && known.text === text) return known.value;
    const value = compute(text);
    this.byId.set(id, { text, value });
    return value;
  }

  /** Forgets the ids of spans that left, once there are many more of them than live spans (not every turn: it costs a pass). */
  prune(live: readonly { span_id: string }[]): void {
    if (this.byId.size <= 2 * live.length + 64) return;
    const ids = new Set(live.map((s) => s.span_id));
    for (const id of this.byId.keys()) if (!ids.has(id)) this.byId.delete(id);
  }
}
