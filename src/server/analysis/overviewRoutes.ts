// The HTTP routes of the relay's analysis and alerts (docs/relay-protocol.md "Overview"
// and "Alerts"): the overview snapshot, the alert rules (reading is a read, changing them
// a write: the token, as for ingest), the alert history and the delivery log.
import type { IncomingMessage } from 'node:http';
import type { AlertFiring, AlertRule, Overview } from '../../protocol/relay.ts';
import { redactDelivery, redactFiring, redactRule } from '../alerts/redact.ts';
import type { Alerts } from '../alerts/alerts.ts';
import { parseRuleInput } from '../alerts/rules.ts';
import { json } from '../httpReply.ts';
import { quoted } from '../quoted.ts';
import type { Route } from '../routes.ts';
import type { RelayAnalysis } from './relayAnalysis.ts';

export const OVERVIEW_SUBSCRIBE = '/api/overview/subscribe';
/** a rule is a few hundred bytes */
const MAX_RULE_BYTES = 64 * 1024;

/**
 * `mayWrite`: whether the request could change the rules (it holds the token, or the relay
 * has none); only then are webhook URLs shown whole (redact.ts).
 */
export function overviewRoutes(
  analysis: RelayAnalysis | null,
  alerts: Alerts | null,
  mayWrite: (req: IncomingMessage, url: URL) => boolean = () => true,
): Route[] {
  const firings = (req: IncomingMessage, url: URL, list: AlertFiring[]): AlertFiring[] => (mayWrite(req, url) ? list : list.map(redactFiring));
  const limitOf = (url: URL, max: number): number => {
    const n = Number(url.searchParams.get('limit') ?? '50');
    return Number.isInteger(n) && n > 0 ? Math.min(n, max) : 50;
  };
  return [
    {
      path: /^\/api\/overview\/?$/,
      method: 'GET',
      access: 'read',
      handle: ({ req, res, url }) =>
        json(res, 200, {
          sessions: analysis?.summaries() ?? [],
          alerts: firings(req, url, alerts?.recent() ?? []),
          analysis: analysis !== null,
        } satisfies Overview),
    },
    {
      path: /^\/api\/alerts\/rules\/?$/,
      method: 'GET',
      access: 'read',
      handle: ({ req, res, url }) => {
        const rules = alerts?.rules.list() ?? [];
        json(res, 200, { rules: mayWrite(req, url) ? rules : rules.map(redactRule) } satisfies { rules: readonly AlertRule[] });
      },
    },
    {
      path: /^\/api\/alerts\/rules\/?$/,
      method: 'POST',
      access: 'write',
      handle: async ({ req, res }) => {
        if (alerts === null) return json(res, 409, { error: 'alerts need the analysis, which this relay runs without (--no-analysis)' });
        const body = await readBody(req);
        if (typeof body !== 'string') return json(res, 413, { error: `a rule is at most ${MAX_RULE_BYTES} bytes` });
        let value: unknown;
        try {
          value = JSON.parse(body);
        } catch (e) {
          return json(res, 400, { error: `the body is not JSON: ${(e as Error).message}` });
        }
        const parsed = parseRuleInput(value);
        if ('error' in parsed) return json(res, 400, { error: parsed.error });
        const rule = await alerts.addRule(parsed.rule);
        if ('error' in rule) return json(res, 409, { error: rule.error });
        json(res, 201, { rule });
      },
    },
    {
      path: /^\/api\/alerts\/rules\/([^/]+)\/?$/,
      method: 'DELETE',
      access: 'write',
      handle: async ({ res, sessionId: id }) => {
        if (alerts === null || !(await alerts.removeRule(id))) return json(res, 404, { error: `no alert rule ${quoted(id)}` });
        json(res, 200, { deleted: id });
      },
    },
    {
      path: /^\/api\/alerts\/history\/?$/,
      method: 'GET',
      access: 'read',
      handle: ({ req, res, url }) => json(res, 200, { alerts: firings(req, url, alerts?.recent(limitOf(url, 500)) ?? []) }),
    },
    {
      path: /^\/api\/alerts\/deliveries\/?$/,
      method: 'GET',
      access: 'read',
      handle: ({ req, res, url }) => {
        const deliveries = alerts?.delivery.deliveries(limitOf(url, 500)) ?? [];
        json(res, 200, { deliveries: mayWrite(req, url) ? deliveries : deliveries.map(redactDelivery) });
      },
    },
  ];
}

async function readBody(req: IncomingMessage): Promise<string | null> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const chunk of req) {
    n += (chunk as Buffer).length;
    if (n > MAX_RULE_BYTES) return null;
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts).toString('utf8');
}
