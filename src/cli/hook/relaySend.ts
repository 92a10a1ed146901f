// docs/hooks.md "Live": `hook --url` sends the session, through the compaction just made, to
// a relay, as `watch` would send it (the same adapter and the reference scorer of contract
// §7), so the dashboard shows the compaction at once. The pending compaction's snapshot
// stands for the call to come. Bounded in time: the hook never waits on a relay for long.
import { HarnessClient } from '../../client/harness.ts';
import type { AdaptedMessage } from '../../ingest/adapters/claudeCode.ts';
import { ScoringStage } from '../../ingest/adapters/scoringStage.ts';
import { nodeSha256 } from '../../node/platform.ts';

/** docs/hooks.md: the longest the hook waits for the relay's acknowledgements. */
export const RELAY_TIMEOUT_MS = 2000;

/** null when every message was acknowledged, else why not (one sentence). */
export async function sendToRelay(url: string, token: string | null, messages: AdaptedMessage[], timeoutMs = RELAY_TIMEOUT_MS): Promise<string | null> {
  const client = new HarnessClient({ url, token, giveUpAfterMs: timeoutMs });
  const failures: string[] = [];
  const sent: Promise<unknown>[] = [];
  const send = (value: unknown): void => {
    sent.push(client.send(value as Parameters<HarnessClient['send']>[0]).catch((e: unknown) => failures.push((e as Error).message)));
  };
  const scoring = new ScoringStage({ text: send, value: send, error: () => undefined }, { mode: 'auto', sha256: nodeSha256 });
  for (const m of messages) scoring.value(m.value, m.line, false, true);
  scoring.end();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = await Promise.race([
    Promise.all(sent).then(() => false),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  await client.close(0);
  if (timedOut) return `the relay at ${url} did not acknowledge within ${timeoutMs} ms`;
  return failures.length === 0 ? null : `the relay refused ${failures.length} message${failures.length === 1 ? '' : 's'}: ${failures[0]}`;
}
