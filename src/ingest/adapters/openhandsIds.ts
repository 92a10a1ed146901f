// docs/adapters.md "OpenHands" span id: the ids V1 and V0 events are held by, each the base of
// its spans' ids (`<id>`, `<id>#tools`, `<id>#reasoning`, `<id>#thought`, a condensation's
// `<id>-summary`). The engine refuses a snapshot in which two spans share an id, and the view
// carries an event into every later call, so an id that equals another span's made one crafted
// event an input error in every turn after it. These rules keep them apart; real ids (the SDK's
// UUIDs, the app's integers) are their own keys, so a real file's ids are as they were.
import { escapedId, LINE_ID, LineIds } from './lineIds.ts';
import type { SkippedRecords } from './skipped.ts';

/**
 * An event id from the file as a key. One holding `#` could equal another event's derived id
 * (`e1#thought`) and one of the form `line<N>` an event's without an id: such an id becomes `#`,
 * the id with `%` and `#` escaped, and `#` again, a form no other key and no derived id has
 * (those hold no `#`, one `#` not at the start, or end in `-summary`).
 */
export function eventKey(id: string): string {
  if (!id.includes('#') && !LINE_ID.test(id)) return id;
  return escapedId(id) + '#';
}

/** The keys of one session's events: each read once, each condensation summary's id once. */
export class EventIds {
  private readonly lines = new LineIds();
  private readonly taken = new Set<string>();

  constructor(private readonly skipped: SkippedRecords) {}

  /**
   * The key of the event read from `line` with the file's `id` (V1: a string; V0: an integer,
   * or a string): `line<N>` without one. null for an id already read (skipped and counted,
   * `repeated event`): the SDK and the app give every event an id of its own, so a second
   * event with one is a hand-made or hostile file's, and both in the view would share spans.
   */
  of(id: string | number | null, line: number): string | null {
    if (id === null || id === '') return this.lines.next(line);
    const key = typeof id === 'number' ? String(id) : eventKey(id);
    if (this.taken.has(key)) {
      this.skipped.add('repeated event');
      return null;
    }
    this.taken.add(key);
    return key;
  }

  /**
   * A condensation's summary span id, `<key>-summary` (the id the SDK gives the summary event),
   * or null when an event already had it (an id ending in `-summary` is left as it is: the
   * SDK's own summary event carries that id); its summary is then skipped and counted.
   */
  summary(key: string): string | null {
    const id = `${key}-summary`;
    if (this.taken.has(id)) {
      this.skipped.add('condensation summary (its id is taken)');
      return null;
    }
    this.taken.add(id);
    return id;
  }

  /** An id the file names (a condensation's forgotten events, an observation's cause) as the key its event has. */
  static named(id: string | number): string {
    return typeof id === 'number' ? String(id) : eventKey(id);
  }
}
