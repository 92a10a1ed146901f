// Who may use the relay: the token, and refusing browser pages of other sites (Origin)
// and rebound host names (Host). docs/security.md is the policy in prose.
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  return LOOPBACK_NAMES.has(h) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h.endsWith('.localhost');
}

export interface AccessOptions {
  host: string;
  token: string | null;
}

export class AccessPolicy {
  private readonly boundToLoopback: boolean;

  constructor(private readonly options: AccessOptions) {
    this.boundToLoopback = isLoopbackHost(options.host);
  }

  get tokenRequired(): boolean {
    return this.options.token !== null;
  }

  authorized(req: IncomingMessage, url: URL): boolean {
    const token = this.options.token;
    if (token === null) return true;
    const header = req.headers.authorization;
    const given = header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : url.searchParams.get('token');
    return given !== null && safeEqual(given, token);
  }

  /**
   * A browser page from another site must not write to (or, over a WebSocket, read from)
   * a relay on this machine: refuse a foreign Origin, and on loopback a foreign Host
   * (DNS rebinding). Harness clients send no Origin.
   */
  refusal(req: IncomingMessage): string | null {
    const host = req.headers.host ?? '';
    if (this.boundToLoopback && !isLoopbackHost(hostnameOf(host))) return `Host ${JSON.stringify(host)} is not this machine`;
    const origin = req.headers.origin;
    if (origin === undefined || origin === 'null') return origin === 'null' ? 'an opaque Origin may not use the relay' : null;
    let o: URL;
    try {
      o = new URL(origin);
    } catch {
      return `bad Origin ${JSON.stringify(origin)}`;
    }
    if (o.host === host || isLoopbackHost(o.hostname)) return null;
    return `Origin ${origin} is another site; only pages served by this relay (or from this machine) may use it`;
  }
}

function safeEqual(a: string, b: string): boolean {
  const ha = crypto.createHash('sha256').update(a).digest();
  const hb = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(ha, hb);
}

export function hostnameOf(hostHeader: string): string {
  if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1);
  const colon = hostHeader.lastIndexOf(':');
  return colon === -1 ? hostHeader : hostHeader.slice(0, colon);
}
