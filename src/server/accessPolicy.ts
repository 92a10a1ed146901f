// Who may use the relay (docs/security.md is this policy in prose):
// - Host: a request must name an address this relay serves (its bind address, the
//   machine's own names when bound to all interfaces, or a --public-url), so a page on a
//   DNS-rebound name (evil.com resolving to this machine) is refused whatever the bind.
// - Origin: a browser request carries one; it must be exactly the relay's own origin
//   (scheme, served host name and port), a --public-url, or an --allow-origin. Another
//   port on loopback is another site: it is refused. No Origin = not a browser page
//   (harness clients, replay, curl), allowed.
// - Token: writes need it when one is set; reads too with --token-for-reads.
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import os from 'node:os';
import { StartupError } from './dataLock.ts';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  return LOOPBACK_NAMES.includes(h) || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h.endsWith('.localhost');
}

export type Access = 'read' | 'write' | 'open';

export interface AccessOptions {
  /** the address the relay binds */
  host: string;
  /** the port actually bound (known once listening) */
  port: () => number;
  token: string | null;
  /** origins (scheme://host[:port]) whose pages may use the relay besides its own */
  allowOrigins?: readonly string[];
  /** the URLs the relay is reached at through a proxy: their host names and origins are its own */
  publicUrls?: readonly string[];
  /** reads (the session list, transcripts, subscriptions) need the token too */
  tokenForReads?: boolean;
}

export interface Refusal {
  status: 401 | 403;
  message: string;
  headers: Record<string, string>;
}

export class AccessPolicy {
  private readonly token: string | null;
  private readonly tokenForReads: boolean;
  /** normalised host names (URL.hostname form) this relay answers to */
  private readonly servedNames: Set<string>;
  private readonly servesLoopback: boolean;
  private readonly extraOrigins: Set<string>;

  constructor(private readonly options: AccessOptions) {
    this.token = options.token;
    this.tokenForReads = options.tokenForReads ?? false;
    if (this.tokenForReads && this.token === null) throw new StartupError('--token-for-reads needs a token: set --token T (or CONTEXT_HEALTH_TOKEN)');
    const publicUrls = (options.publicUrls ?? []).map((u) => parseOrigin(u, '--public-url', false));
    this.servedNames = servedHostNames(options.host);
    this.servesLoopback = [...this.servedNames].some((n) => n === 'localhost');
    for (const u of publicUrls) this.servedNames.add(u.hostname);
    this.extraOrigins = new Set([
      ...publicUrls.map((u) => u.origin),
      ...(options.allowOrigins ?? []).map((o) => parseOrigin(o, '--allow-origin', true).origin),
    ]);
  }

  /** Why this request may not have `access`, or null when it may. */
  check(req: IncomingMessage, url: URL, access: Access): Refusal | null {
    const forbidden = this.foreignPage(req);
    if (forbidden !== null) return { status: 403, message: forbidden, headers: {} };
    const needsToken = access === 'write' || (access === 'read' && this.tokenForReads);
    if (needsToken && !this.hasToken(req, url)) {
      return {
        status: 401,
        message: `this relay requires its token to ${access === 'write' ? 'write' : 'read'}: send Authorization: Bearer <token> (or ?token=)`,
        headers: { 'www-authenticate': 'Bearer' },
      };
    }
    return null;
  }

  private hasToken(req: IncomingMessage, url: URL): boolean {
    const token = this.token;
    if (token === null) return true;
    const header = req.headers.authorization;
    const given = header === undefined ? url.searchParams.get('token') : bearerCredentials(header);
    return given !== null && safeEqual(given, token);
  }

  /** A refused Host or Origin, said plainly; null for a request the policy lets through. */
  private foreignPage(req: IncomingMessage): string | null {
    const hostHeader = req.headers.host;
    if (hostHeader !== undefined) {
      const name = hostNameOf(hostHeader);
      if (name === null || !this.answersTo(name)) {
        return `Host ${JSON.stringify(hostHeader.slice(0, 200))} is not an address this relay serves (behind a proxy, start it with --public-url)`;
      }
    }
    const origin = req.headers.origin;
    if (origin === undefined) return null;
    if (origin === 'null') return 'a page with an opaque Origin ("null") may not use the relay';
    let o: URL;
    try {
      o = new URL(origin);
    } catch {
      return `bad Origin ${JSON.stringify(origin.slice(0, 200))}`;
    }
    if (this.isOwnOrigin(o) || this.extraOrigins.has(o.origin)) return null;
    return `Origin ${o.origin} is not this relay's own; to let that site's pages use the relay, start it with --allow-origin ${o.origin}`;
  }

  private answersTo(name: string): boolean {
    return this.servedNames.has(name) || (this.servesLoopback && isLoopbackHost(name));
  }

  private isOwnOrigin(o: URL): boolean {
    const port = o.port === '' ? (o.protocol === 'https:' ? 443 : 80) : Number(o.port);
    return o.protocol === 'http:' && port === this.options.port() && this.servedNames.has(o.hostname);
  }
}

/** The credentials of an `Authorization: Bearer …` header; the scheme is case-insensitive (RFC 7235 §2.1). */
export function bearerCredentials(header: string): string | null {
  const m = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(header.trim());
  return m === null ? null : m[1]!;
}

/** The names (URL.hostname form) a relay bound to `host` is reached at. */
function servedHostNames(host: string): Set<string> {
  const h = host.toLowerCase();
  const names = new Set<string>();
  const add = (address: string): void => {
    const n = hostNameOf(address.includes(':') && !address.startsWith('[') ? `[${address}]` : address);
    if (n !== null) names.add(n);
  };
  if (h === '0.0.0.0' || h === '::') {
    for (const n of LOOPBACK_NAMES) add(n);
    add(os.hostname());
    for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) add(a.address.replace(/%.*$/, ''));
  } else if (isLoopbackHost(h)) {
    for (const n of LOOPBACK_NAMES) add(n);
    add(h);
  } else add(h);
  return names;
}

/** The normalised host name of a Host header (`name[:port]`), or null when it is not one. */
export function hostNameOf(hostHeader: string): string | null {
  try {
    const u = new URL(`http://${hostHeader}`);
    return u.username === '' && u.pathname === '/' && u.search === '' ? u.hostname : null;
  } catch {
    return null;
  }
}

function parseOrigin(text: string, flag: string, originOnly: boolean): URL {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new StartupError(`${flag} must be a URL such as http://localhost:5173, got ${JSON.stringify(text)}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new StartupError(`${flag} must be an http or https URL, got ${JSON.stringify(text)}`);
  if (originOnly && (u.pathname !== '/' || u.search !== '' || u.hash !== '' || u.username !== '')) {
    throw new StartupError(`${flag} takes an origin (scheme://host[:port], no path), got ${JSON.stringify(text)}`);
  }
  return u;
}

function safeEqual(a: string, b: string): boolean {
  const ha = crypto.createHash('sha256').update(a).digest();
  const hb = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(ha, hb);
}
