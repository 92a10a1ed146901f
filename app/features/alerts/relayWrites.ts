// The relay's alert and delete routes as the dashboard calls them
// (docs/relay-protocol.md "Alerts", "Dashboard side"), and the relay token the person typed.
// The token is kept in sessionStorage only (this tab, gone when it closes), never in the
// URL or localStorage (docs/security.md "The token in the page"), and sent as
// `Authorization: Bearer` on writes.
import { create } from 'zustand';
import type { AlertFiring, AlertRule, AlertRuleInput } from '../../../src/protocol/relay.ts';

const TOKEN_KEY = 'context-health.relay-token';

function readStoredToken(): string {
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? '';
  } catch {
    return ''; // storage disabled: the field still works for this page's life
  }
}

export const useRelayToken = create<{ token: string }>()(() => ({ token: readStoredToken() }));

export function setRelayToken(token: string): void {
  try {
    if (token === '') sessionStorage.removeItem(TOKEN_KEY);
    else sessionStorage.setItem(TOKEN_KEY, token);
  } catch {
    // storage disabled: kept in memory only
  }
  useRelayToken.setState({ token });
}

/** A refused or failed request, said so a person can act on it. */
export class RelayWriteError extends Error {
  constructor(
    message: string,
    readonly status: number,
    /** 401/403: the relay wants (the right) token */
    readonly needsToken: boolean,
  ) {
    super(message);
  }
}

async function call(path: string, init: RequestInit & { write?: boolean } = {}): Promise<unknown> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const token = useRelayToken.getState().token;
  if (init.write === true && token !== '') headers.authorization = `Bearer ${token}`;
  let res: Response;
  try {
    res = await fetch(path, { ...init, headers });
  } catch (e) {
    throw new RelayWriteError(`the relay could not be reached (${(e as Error).message})`, 0, false);
  }
  let body: unknown = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  if (res.ok) return body;
  const said =
    typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string'
      ? (body as { error: string }).error
      : `HTTP ${res.status}`;
  if (res.status === 401 || res.status === 403) {
    const given = token === '' ? 'no token was given' : 'the token given was refused';
    throw new RelayWriteError(`a relay token is needed (${given}): enter it in "relay token". The relay said: ${said}`, res.status, true);
  }
  throw new RelayWriteError(said, res.status, false);
}

export async function fetchRules(): Promise<AlertRule[]> {
  const body = (await call('/api/alerts/rules')) as { rules?: AlertRule[] } | null;
  return body?.rules ?? [];
}

export async function addRule(rule: AlertRuleInput): Promise<AlertRule> {
  const body = (await call('/api/alerts/rules', { method: 'POST', body: JSON.stringify(rule), write: true })) as { rule: AlertRule };
  return body.rule;
}

export async function removeRule(id: string): Promise<void> {
  await call(`/api/alerts/rules/${encodeURIComponent(id)}`, { method: 'DELETE', write: true });
}

export async function fetchHistory(limit = 100): Promise<AlertFiring[]> {
  const body = (await call(`/api/alerts/history?limit=${limit}`)) as { alerts?: AlertFiring[] } | null;
  return body?.alerts ?? [];
}

export async function deleteSession(id: string): Promise<void> {
  await call(`/api/sessions/${encodeURIComponent(id)}`, { method: 'DELETE', write: true });
}

/** The hash part of a firing's link (`<relay>/#live=<id>&turn=N`), so it opens in this page. */
export function firingHref(a: AlertFiring): string {
  try {
    return new URL(a.link).hash;
  } catch {
    return `#live=${encodeURIComponent(a.session_id)}&turn=${a.turn}`;
  }
}
