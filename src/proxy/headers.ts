// The headers the proxy passes on (docs/proxy.md "Forwarding"). Everything the agent sent goes
// to the upstream as it came (its keys included: x-api-key, Authorization, api-key, cookies),
// except the hop-by-hop headers of RFC 9110 §7.6.1, which describe one connection and not the
// request, the headers the Connection header names, `Host` (the upstream's own, from the URL
// the user configured: never from the request), and the proxy's own token header. Answers
// come back the same way. Header names and values keep their case and order.
import type { IncomingHttpHeaders } from 'node:http';

const HOP_BY_HOP: ReadonlySet<string> = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

/** the header a client sends the proxy's --token in; never forwarded */
export const PROXY_TOKEN_HEADER = 'x-context-health-token';

function connectionNamed(raw: readonly string[]): Set<string> {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() !== 'connection') continue;
    for (const n of raw[i + 1]!.split(',')) named.add(n.trim().toLowerCase());
  }
  return named;
}

/** The request's headers for the upstream, as a flat [name, value, …] list in their order (http.request takes it as is). */
export function forwardedRequestHeaders(raw: readonly string[], upstreamHost: string): string[] {
  const named = connectionNamed(raw);
  const out: string[] = ['Host', upstreamHost];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || named.has(lower) || lower === 'host' || lower === PROXY_TOKEN_HEADER) continue;
    out.push(name, raw[i + 1]!);
  }
  return out;
}

/** The upstream answer's headers for the client, as a flat [name, value, …] list. */
export function forwardedResponseHeaders(raw: readonly string[]): string[] {
  const named = connectionNamed(raw);
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const lower = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(lower) || named.has(lower)) continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

/**
 * The agent's own session id, from the headers that carry one and are no credential:
 * Claude Code's `x-claude-code-session-id`, Codex CLI's `session_id` / `conversation_id`.
 * A value longer than 200 characters or holding control characters is not an id.
 */
export function sessionHeader(headers: IncomingHttpHeaders): string | null {
  for (const name of ['x-claude-code-session-id', 'session_id', 'conversation_id', 'x-session-id']) {
    const v = headers[name];
    if (typeof v === 'string' && v !== '' && v.length <= 200 && !/[\u0000-\u001f\u007f]/.test(v)) return v;
  }
  return null;
}
