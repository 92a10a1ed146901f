// Following a live session in the dashboard, and the oracle it must end up equal to.
import type { Page } from '@playwright/test';
import { expect } from './test.ts';
import { collectFindings, signalCounts, waitSessionTurns } from './app.ts';
import { checkJson, countsBySignal } from './relay.ts';

const key = (f: { signal: string; turn: number }): string => `${f.turn}:${f.signal}`;

/** Picks the session in the top bar's live list once the relay lists it, and waits for the subscription. */
export async function followSession(page: Page, sessionId: string): Promise<void> {
  const select = page.getByTestId('live-session-select');
  // the relay's list is polled every few seconds: wait for the session to be listed
  await expect(select.locator('option', { hasText: sessionId })).toHaveCount(1, { timeout: 30_000 });
  await select.selectOption(sessionId);
  await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', /catching-up|live/);
}

/** Every turn of the file arrived, and the signal counts and the findings list equal `check --json` of it. */
export async function expectMatchesCheck(page: Page, file: string): Promise<void> {
  const oracle = checkJson(file).sessions[0]!;
  await waitSessionTurns(page, oracle.turns);
  // The counts and the findings list are two pulls from the Worker: on a live session the
  // list can still be drawing the previous index when the counts have caught up (CI saw the
  // first screenful read while the counts were already whole), so both are polled until the
  // page settles.
  await expect.poll(() => signalCounts(page), { timeout: 30_000 }).toEqual(countsBySignal(oracle.findings));
  const want = oracle.findings.map(key).sort();
  await expect.poll(async () => (await collectFindings(page)).map(key).sort(), { timeout: 30_000 }).toEqual(want);
}
