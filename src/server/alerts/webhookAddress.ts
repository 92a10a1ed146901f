// Where a webhook may go. A rule's URL makes the relay send requests on its network, so
// by default only to public addresses: not loopback, private, link-local (the cloud
// metadata service at 169.254.169.254), carrier-grade NAT, multicast or reserved ranges.
// The host name is resolved and every address it resolves to is checked, at the moment of
// connecting (the address checked is the one connected to: a name that resolves to a
// public address when the rule is added and to 127.0.0.1 later gains nothing).
// --allow-webhook-host names the exceptions (a local Slack bridge, a test's receiver).
import dns from 'node:dns';
import net, { type LookupFunction } from 'node:net';

const BLOCKED = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(prefix, bits, 'ipv4');
}
for (const [prefix, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64: may lead anywhere in IPv4
  ['100::', 64],
  ['2001:db8::', 32],
  ['2002::', 16], // 6to4: embeds an IPv4 address
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED.addSubnet(prefix, bits, 'ipv6');
}

/** Whether a literal address is public (one a webhook may reach by default). */
export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return !BLOCKED.check(address, 'ipv4');
  // an IPv4-mapped IPv6 address (::ffff:127.0.0.1, ::ffff:7f00:1) meets the IPv4 ranges too
  return family === 6 && !BLOCKED.check(address, 'ipv6');
}

export class WebhookBlocked extends Error {
  readonly code = 'EWEBHOOKBLOCKED';
}

/** The host as it is compared with --allow-webhook-host: lower case, IPv6 without brackets. */
export function hostKey(host: string): string {
  return host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
}

export class WebhookAddressPolicy {
  private readonly allowed: ReadonlySet<string>;

  constructor(allowHosts: readonly string[] = []) {
    this.allowed = new Set(allowHosts.map(hostKey));
  }

  /** Why the URL's host may not be reached as it is (a literal non-public address), or null. */
  refusal(url: URL): string | null {
    const host = hostKey(url.hostname);
    if (this.allowed.has(host)) return null;
    if (net.isIP(host) !== 0 && !isPublicAddress(host)) return notPublic(host);
    if (host === 'localhost' || host.endsWith('.localhost')) return notPublic(host);
    return null;
  }

  /** The lookup the request connects with: a name resolving to a non-public address fails. */
  lookupFor(url: URL): LookupFunction | undefined {
    const host = hostKey(url.hostname);
    if (this.allowed.has(host)) return undefined;
    return (hostname, options, callback) => {
      dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
        if (err !== null) return callback(err, '', 0);
        const bad = addresses.find((a) => !isPublicAddress(a.address));
        if (bad !== undefined || addresses.length === 0) return callback(new WebhookBlocked(notPublic(hostname)), '', 0);
        if (options.all === true) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
        callback(null, addresses[0]!.address, addresses[0]!.family);
      });
    };
  }
}

function notPublic(host: string): string {
  return `${host} is not a public address; webhooks go only to public addresses unless the relay is started with --allow-webhook-host ${host}`;
}
