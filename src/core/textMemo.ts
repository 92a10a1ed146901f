// A value computed from a span's text (its term counts, its sha256), remembered per span id
// from turn to turn, so that a text unchanged since the last turn is not worked on again.
// Spans keep their order from one snapshot to the next (new ones come last, a prune closes
// the gap), so a span is first looked for just past where the previous one was found in
// last turn's list: a comparison of two ids, where a Map costs hashing a freshly parsed id
// string. Any other order finds it by id all the same, only a little slower.

/** How far past the expected place a span is looked for: a prune shifts the rest by one or two. */
const LOOKAHEAD = 4;

export class TextMemo<T> {
  private readonly byId = new Map<string, { text: string; value: T }>();
  private lastIds: string[] = [];
  private lastTexts: string[] = [];
  private lastValues: T[] = [];
  private ids: string[] = [];
  private texts: string[] = [];
  private values: T[] = [];
  private cursor = 0;

  /** Starts a turn: what `value` was asked for in the last one is looked up first. */
  begin(): void {
    [this.lastIds, this.ids] = [this.ids, this.lastIds];
    [this.lastTexts, this.texts] = [this.texts, this.lastTexts];
    [this.lastValues, this.values] = [this.values, this.lastValues];
    this.ids.length = 0;
    this.texts.length = 0;
    this.values.length = 0;
    this.cursor = 0;
  }

  /** The value for `id`'s `text`: remembered when the text is the one last seen for the id, else computed. */
  value(id: string, text: string, compute: (text: string) => T): T {
    let value: T | undefined;
    const end = Math.min(this.cursor + LOOKAHEAD, this.lastIds.length);
    for (let j = this.cursor; j < end; j++) {
      if (this.lastIds[j] !== id) continue;
      this.cursor = j + 1;
      if (this.lastTexts[j] === text) value = this.lastValues[j];
      break;
    }
    if (value === undefined) {
      const known = this.byId.get(id);
      if (known !== undefined && known.text === text) value = known.value;
      else {
        value = compute(text);
        this.byId.set(id, { text, value });
      }
    }
    this.ids.push(id);
    this.texts.push(text);
    this.values.push(value);
    return value;
  }

  /** Forgets ids not asked for this turn, once there are many more of them than spans (not every turn: it costs a pass). */
  prune(): void {
    if (this.byId.size <= 2 * this.ids.length + 64) return;
    const live = new Set(this.ids);
    for (const id of this.byId.keys()) if (!live.has(id)) this.byId.delete(id);
  }
}
