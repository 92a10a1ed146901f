// Delivery of alert firings to webhooks: POST the firing as JSON (its `text` is what Slack
// and compatible incoming webhooks show), retried with exponential backoff while the
// receiver is down or answers other than 2xx, each attempt recorded in
// `<data>/alerts/deliveries.jsonl` (the delivery log; `GET /api/alerts/deliveries`).
import fs from 'node:fs';
import type { AlertDelivery, AlertFiring } from '../../protocol/relay.ts';
import { postWebhook, type PostOutcome } from './webhookPost.ts';
import { WebhookAddressPolicy, WebhookBlocked } from './webhookAddress.ts';

export interface RetryPolicy {
  /** wait before the second attempt; doubles each time up to maxMs */
  initialMs: number;
  maxMs: number;
  /** attempts before giving up (the firing stays in the history) */
  attempts: number;
  /** one attempt's time limit */
  timeoutMs: number;
}

export const DEFAULT_RETRY: Readonly<RetryPolicy> = Object.freeze({ initialMs: 1000, maxMs: 5 * 60_000, attempts: 12, timeoutMs: 10_000 });

const LOG_IN_MEMORY = 500;

export class WebhookDelivery {
  private readonly policy: RetryPolicy;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly aborts = new Set<AbortController>();
  private readonly recent: AlertDelivery[] = [];
  private closed = false;

  constructor(
    readonly file: string,
    policy: Partial<RetryPolicy>,
    private readonly log: (line: string) => void,
    /** relays sharing one Redis: each attempt is made by the relay that claims it, and recorded in Redis (sharedAlerts.ts) */
    private readonly shared: { claim(alertId: string, attempt: number): Promise<boolean>; record(d: AlertDelivery): Promise<void> } | null = null,
    /** where webhooks may go (public addresses unless --allow-webhook-host names the host) */
    private readonly addresses = new WebhookAddressPolicy(),
  ) {
    this.policy = { ...DEFAULT_RETRY, ...policy };
  }

  /** Delivery attempts, newest first. */
  deliveries(limit = 100): AlertDelivery[] {
    return this.recent.slice(-limit).reverse();
  }

  remember(d: AlertDelivery): void {
    this.recent.push(d);
    if (this.recent.length > LOG_IN_MEMORY * 2) this.recent.splice(0, this.recent.length - LOG_IN_MEMORY);
  }

  send(firing: AlertFiring, url: string, attempt: number): void {
    if (this.closed) return;
    void this.attempt(firing, url, attempt);
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    for (const a of this.aborts) a.abort();
  }

  private async attempt(firing: AlertFiring, url: string, attempt: number): Promise<void> {
    if (this.shared !== null) {
      // another relay makes this attempt (it resumed the delivery after a restart): it goes on from there
      const mine = await this.shared.claim(firing.id, attempt).catch((e: unknown) => {
        this.log(`alert ${firing.id}: could not claim delivery attempt ${attempt} in Redis: ${(e as Error).message}`);
        return false;
      });
      if (!mine || this.closed) return;
    }
    const abort = new AbortController();
    this.aborts.add(abort);
    const { webhook: _where, ...body } = firing;
    const target = new URL(url);
    const refused = this.addresses.refusal(target);
    const sent: PostOutcome =
      refused !== null
        ? { status: null, failed: new WebhookBlocked(refused) }
        : await postWebhook(target, JSON.stringify(body), this.policy.timeoutMs, abort.signal, this.addresses.lookupFor(target));
    this.aborts.delete(abort);
    const status = sent.status;
    const error = sent.failed !== null ? failureOf(sent.failed) : status !== null && (status < 200 || status > 299) ? `answered ${status}` : null;
    if (this.closed) return; // the relay is stopping: this attempt is retried after the restart
    const outcome: AlertDelivery['outcome'] = error === null ? 'delivered' : attempt >= this.policy.attempts ? 'failed' : 'retrying';
    this.record({ alert_id: firing.id, url, attempt, at: new Date().toISOString(), outcome, status, error });
    if (outcome === 'failed') this.log(`alert ${firing.id}: webhook ${url} gave up after ${attempt} attempts (${error ?? ''})`);
    if (sent.failed instanceof WebhookBlocked && attempt === 1) this.log(`alert ${firing.id}: ${sent.failed.message}`);
    if (outcome !== 'retrying') return;
    const wait = Math.min(this.policy.maxMs, this.policy.initialMs * 2 ** (attempt - 1));
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.send(firing, url, attempt + 1);
    }, wait);
    this.timers.add(t);
  }

  private record(d: AlertDelivery): void {
    if (this.shared !== null) {
      // every relay (this one too) remembers it when Redis says it was recorded
      void this.shared.record(d).catch((e: unknown) => this.log(`could not record a delivery in Redis: ${(e as Error).message}`));
      return;
    }
    this.remember(d);
    try {
      fs.appendFileSync(this.file, JSON.stringify(d) + '\n');
    } catch (e) {
      this.log(`could not record a delivery in ${this.file}: ${(e as Error).message}`);
    }
  }
}

/**
 * What the delivery log (readable by anyone who may read) says of a failed attempt: never
 * which way it failed (refused, reset, timed out), which would make rules a port scanner.
 */
function failureOf(e: Error): string {
  return e instanceof WebhookBlocked ? 'unreachable: not a public address (--allow-webhook-host)' : 'unreachable';
}
