// What the relay-side analysis is held to in the file-store and Redis tests alike: `check
// --json`'s verdict of every turn, a webhook receiver that records the alerts it gets, and
// where a rule "for N turns" fires.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AckVerdict, AlertFiring } from '../../src/protocol/relay.ts';
import type { CheckOutput } from '../../src/core/checkOutput.ts';
import { SIGNALS } from '../../src/core/signals.ts';
import { runCli } from '../cli/runCli.ts';

/** `check --json`'s verdict of each (session, turn), with the signals of its findings in contract §4.1 order. */
export async function checkVerdicts(file: string): Promise<{ byTurn: Map<string, AckVerdict>; report: CheckOutput; stderr: string }> {
  const out = await runCli(['check', '--json', '--fail-on', 'never', file]);
  const report = JSON.parse(out.stdout) as CheckOutput;
  const byTurn = new Map<string, AckVerdict>();
  for (const s of report.sessions) {
    for (const v of s.verdicts) {
      const fired = new Set(s.findings.filter((f) => f.turn === v.turn).map((f) => f.signal as string));
      byTurn.set(`${s.session_id}\u0000${v.turn}`, { ...v, signals: SIGNALS.filter((sig) => fired.has(sig)) });
    }
  }
  return { byTurn, report, stderr: out.stderr };
}

/** An HTTP server recording every POST body; it can be stopped and started again on its port. */
export class WebhookReceiver {
  readonly bodies: AlertFiring[] = [];
  private server: http.Server | null = null;
  port = 0;

  async start(): Promise<void> {
    const server = http.createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (c: Buffer) => parts.push(c));
      req.on('end', () => {
        this.bodies.push(JSON.parse(Buffer.concat(parts).toString('utf8')) as AlertFiring);
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (s !== null) await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }
}

/** First turn of each run of `holds` at least `forTurns` snapshots long: where a rule fires. */
export function firings(turns: number[], holds: (i: number) => boolean, forTurns: number): number[] {
  const out: number[] = [];
  let streak = 0;
  turns.forEach((turn, i) => {
    streak = holds(i) ? streak + 1 : 0;
    if (streak === forTurns) out.push(turn);
  });
  return out;
}

/** Polls `check` until it holds, or fails naming `what` after `timeoutMs`. */
export async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
