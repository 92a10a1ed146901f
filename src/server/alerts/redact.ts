// A webhook URL is a secret (a Slack incoming webhook's path is its credential). Whoever
// may not change the rules, a reader without the token, sees only where it goes (scheme,
// host and port), never its path or query.
import type { AlertDelivery, AlertFiring, AlertRule } from '../../protocol/relay.ts';

export function redactedUrl(url: string): string {
  try {
    return `${new URL(url).origin}/…`;
  } catch {
    return '…';
  }
}

export function redactRule(r: AlertRule): AlertRule {
  return r.webhook === undefined ? r : { ...r, webhook: redactedUrl(r.webhook) };
}

export function redactFiring(f: AlertFiring): AlertFiring {
  return f.webhook === undefined ? f : { ...f, webhook: redactedUrl(f.webhook) };
}

export function redactDelivery(d: AlertDelivery): AlertDelivery {
  return { ...d, url: redactedUrl(d.url) };
}
