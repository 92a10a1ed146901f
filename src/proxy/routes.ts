// Which upstream a request goes to, and which API's call it is (docs/proxy.md "Routes").
// The model calls are told by method and path: POST …/v1/messages (Anthropic), POST
// …/chat/completions and POST …/responses (OpenAI, also behind a base path such as
// /openai/v1). Every other request is passed through to the upstream its headers point at:
// Anthropic when it carries `anthropic-version` or `x-api-key`, else OpenAI.
import type { IncomingMessage } from 'node:http';
import type { ProxyApi } from '../ingest/adapters/proxy/requests.ts';

export interface Upstreams {
  anthropic: URL;
  openai: URL;
}

export const DEFAULT_UPSTREAMS = { anthropic: 'https://api.anthropic.com', openai: 'https://api.openai.com' } as const;

export function apiOf(req: IncomingMessage, upstreams: Upstreams): { api: ProxyApi | null; upstream: URL } {
  const path = (req.url ?? '').split('?')[0]!.replace(/\/+$/, '');
  const post = req.method === 'POST';
  if (post && path.endsWith('/v1/messages')) return { api: 'anthropic', upstream: upstreams.anthropic };
  if (post && path.endsWith('/chat/completions')) return { api: 'openai-chat', upstream: upstreams.openai };
  if (post && path.endsWith('/responses')) return { api: 'openai-responses', upstream: upstreams.openai };
  const anthropic = req.headers['anthropic-version'] !== undefined || req.headers['x-api-key'] !== undefined || path.startsWith('/v1/messages');
  return { api: null, upstream: anthropic ? upstreams.anthropic : upstreams.openai };
}

/** An upstream base URL as --anthropic-upstream / --openai-upstream take it, or why it is not one. */
export function upstreamUrl(text: string, flag: string): URL | { error: string } {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return { error: `${flag} must be a URL such as https://api.anthropic.com, got ${JSON.stringify(text)}` };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { error: `${flag} must be an http or https URL, got ${JSON.stringify(text)}` };
  if (u.username !== '' || u.password !== '' || u.search !== '' || u.hash !== '') {
    return { error: `${flag} takes a base URL (scheme, host, port and an optional path), got ${JSON.stringify(text)}` };
  }
  return u;
}
