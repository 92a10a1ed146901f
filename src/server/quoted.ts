// A client-chosen string (a session id) as the relay's answers and logs quote it:
// JSON-quoted and cut to a bounded length, since an id can be megabytes long and an
// answer that repeats it per line would not fit in a string.
const SHOWN_CHARS = 200;

export function quoted(text: string): string {
  return text.length <= SHOWN_CHARS ? JSON.stringify(text) : `${JSON.stringify(text.slice(0, SHOWN_CHARS))}… (${text.length} characters)`;
}

/** A client-chosen id as an answer's `session_id` field repeats it: cut to a bounded length. */
export function echoedId(id: string): string {
  return id.length <= SHOWN_CHARS ? id : `${id.slice(0, SHOWN_CHARS)}…`;
}

/** the most of a session title repeated in lists, the overview, alerts and webhooks */
export const SHOWN_TITLE_CHARS = 200;

/** A session title as summaries repeat it: cut, with `…` (a stored log may predate the gate's limit). */
export function shownTitle(title: string | null | undefined): string | null {
  if (title === undefined || title === null) return null;
  return title.length <= SHOWN_TITLE_CHARS ? title : `${title.slice(0, SHOWN_TITLE_CHARS)}…`;
}
