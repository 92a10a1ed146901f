// Where the proxy's turns go (docs/proxy.md "The relay"): the adapter's messages are scored by
// the reference scorer (contract §7, as `watch` does) and sent to the relay over the harness
// client's WebSocket, which keeps each until the relay acknowledges it and resends after a
// reconnect. A relay that is down never holds up a call: messages wait in the client, at most
// `maxQueued` of them; a snapshot past the bound is dropped and counted (a session header
// never is: the session's later snapshots need it).
import { HarnessClient, RelayRejected } from '../client/harness.ts';
import { COMPACT_WIRE } from '../core/compact.ts';
import { ScoringStage } from '../ingest/adapters/scoringStage.ts';
import { nodeSha256 } from '../node/platform.ts';

export interface RelaySinkOptions {
  url: string;
  token: string | null;
  maxQueued: number;
  log: (line: string) => void;
}

export interface SinkCounts {
  sent: number;
  acknowledged: number;
  /** snapshots not sent: the queue for a relay that is down was full */
  dropped: number;
  /** messages the relay refused (each logged) */
  rejected: number;
}

export class RelaySink {
  private readonly client: HarnessClient;
  private readonly scoring: ScoringStage;
  readonly counts: SinkCounts = { sent: 0, acknowledged: 0, dropped: 0, rejected: 0 };
  private status: 'open' | 'retrying' | 'closed' | null = null;

  constructor(private readonly options: RelaySinkOptions) {
    this.client = new HarnessClient({
      url: options.url,
      token: options.token,
      // a relay that comes back after hours still gets the turns queued for it
      giveUpAfterMs: Number.POSITIVE_INFINITY,
      onStatus: (status, detail) => {
        if (status === this.status) return;
        this.status = status;
        if (status === 'retrying')
          options.log(`context-health proxy: the relay at ${options.url} is not reachable (${detail}); turns are queued and sent when it is back`);
        else if (status === 'open') options.log(`context-health proxy: connected to the relay at ${options.url}`);
      },
    });
    this.scoring = new ScoringStage(
      {
        text: () => undefined,
        value: (value) => this.deliver(value as Record<string, unknown>),
        error: (_line, message) => options.log(`context-health proxy: ${message}`),
      },
      { mode: 'auto', sha256: nodeSha256 },
    );
  }

  /** One adapter message: scored, then queued for the relay. */
  send(value: unknown): void {
    this.scoring.value(value, 0, false, true);
  }

  /** A session that will have no more turns: its scoring and compact-wire state is let go. */
  forget(sessionId: string): void {
    this.scoring.forget(sessionId);
    this.client.forgetSession(sessionId);
  }

  get queued(): number {
    return this.client.unacknowledged;
  }

  /** Every message handed over so far acknowledged (or refused). */
  flush(): Promise<void> {
    return this.client.flush();
  }

  close(): Promise<void> {
    return this.client.close(2000);
  }

  private deliver(value: Record<string, unknown>): void {
    const header = value.type === 'session';
    if (!header && this.client.unacknowledged >= this.options.maxQueued) {
      this.counts.dropped++;
      if (this.counts.dropped === 1 || this.counts.dropped % 1000 === 0) {
        this.options.log(
          `context-health proxy: ${this.counts.dropped} turn${this.counts.dropped === 1 ? '' : 's'} dropped: ${this.options.maxQueued} are already waiting for the relay`,
        );
      }
      return;
    }
    // contract §7.1: a session's later snapshots leave out the texts the relay already has
    const message = header ? { ...value, wire: COMPACT_WIRE } : value;
    this.counts.sent++;
    this.client.send(message as Parameters<HarnessClient['send']>[0]).then(
      () => this.counts.acknowledged++,
      (e: unknown) => {
        this.counts.rejected++;
        const why = e instanceof RelayRejected ? e.reason : (e as Error).message;
        this.options.log(`context-health proxy: the relay did not take turn ${String(value.turn ?? 'header')} of ${JSON.stringify(value.session_id)}: ${why}`);
      },
    );
  }
}
