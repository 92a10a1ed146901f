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
