// What the relay writes to its log about a request or a client's data. A request is
// logged by its path alone: the query may hold the token (`?token=`), which must never
// reach a log file. A line is cut to a bounded length (an id or message can be megabytes)
// and its control characters are shown, not acted on by the terminal it is printed on.
import { escapeControls } from '../core/terminalText.ts';

const MAX_LOG_CHARS = 2000;

/** The request's path without its query (nor fragment), for the log. */
export function loggedPath(rawUrl: string | undefined): string {
  const raw = rawUrl ?? '';
  const cut = raw.search(/[?#]/);
  return cut === -1 ? raw : raw.slice(0, cut);
}

/** A line as the relay's own stderr log prints it. */
export function logText(line: string): string {
  const shown = line.length <= MAX_LOG_CHARS ? line : `${line.slice(0, MAX_LOG_CHARS)}… (${line.length} characters)`;
  return escapeControls(shown);
}
