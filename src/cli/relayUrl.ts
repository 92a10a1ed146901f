// The relay's address as the commands that talk to it take it (--url of replay, watch and
// alerts). Every form `serve` prints is accepted: its page (http://host:port/), where
// harnesses send (…/api/ingest, over http or ws). Anything else is a one-sentence error,
// not a stack trace from deep inside an HTTP client.

/** the paths a relay's address may be given with, all meaning the relay itself */
const RELAY_PATHS = /\/(api\/(ingest|health)\/?|api\/?)?$/;

/** The relay's base URL (http: or https:, ending in `/`), or why `text` is not one. */
export function relayBase(text: string, flag = '--url'): URL | { error: string } {
  const wrong = {
    error: `${flag} must be the relay's address, http://host:port (or https://, ws://, wss://, as serve prints it), got ${JSON.stringify(text)}`,
  };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return wrong;
  }
  const protocol = { 'http:': 'http:', 'ws:': 'http:', 'https:': 'https:', 'wss:': 'https:' }[url.protocol];
  if (protocol === undefined || url.hostname === '') return wrong;
  // a WHATWG URL keeps its special-scheme rules: build the http(s) one from the parts
  const base = new URL(`${protocol}//${url.host}${url.pathname.replace(RELAY_PATHS, '')}/`);
  return base;
}
