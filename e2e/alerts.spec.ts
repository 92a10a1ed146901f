// The Alerts panel and session delete on the home page's overview, against a real relay
// started with a token (port 0, its own data directory): rules added and removed in the
// dashboard are what the relay's API lists; a write without the token is refused and the
// page says a token is needed; the relay's 400 shows next to the form; a firing shows in
// the history and its link opens the session at that turn; a deleted session's row goes.
import { expect, test } from './helpers/test.ts';
import { fixture } from './helpers/app.ts';
import { replay, startRelay, type RelayHandle } from './helpers/relay.ts';

const TOKEN = 'e2e-alerts-token';
let relay: RelayHandle;
test.beforeEach(async () => {
  relay = await startRelay({ token: TOKEN });
});
// the page first: a page left open polls a relay that is gone, and logs it as a console error
test.afterEach(async ({ page }) => {
  await page.close();
  await relay.stop();
});

// the browser logs each refused request (401) or rejected rule (400) as a console error
const REFUSED = /status of 40[01]/;

async function apiRules(): Promise<Record<string, unknown>[]> {
  // with the token: a reader without it sees webhook URLs cut to their origin (docs/security.md)
  const res = await fetch(`${relay.url}/api/alerts/rules`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { rules: Record<string, unknown>[] }).rules;
}

test('adds a rule in the dashboard (refused without the token), the relay lists it, and removes it', async ({ page, allowPageErrors }) => {
  allowPageErrors(REFUSED);
  await page.goto(`${relay.url}/`);
  await expect(page.getByTestId('overview')).toBeVisible();
  await page.getByTestId('overview-alerts').click();
  const panel = page.getByTestId('alerts-panel');
  await expect(panel.getByText('No rules yet.')).toBeVisible();

  await page.getByTestId('rule-signal').selectOption('relevance_collapse');
  await page.getByTestId('rule-severity').selectOption('warning');
  await page.getByTestId('rule-for-turns').fill('2');
  await page.getByTestId('rule-session').fill('run-7');
  await page.getByTestId('rule-webhook').fill('http://127.0.0.1:9/hook');

  // no token: the relay answers 401 and the form says a token is needed; nothing stored
  await page.getByTestId('rule-add').click();
  await expect(page.getByTestId('alert-form-error')).toContainText('a relay token is needed');
  expect(await apiRules()).toEqual([]);

  await page.getByTestId('relay-token').fill(TOKEN);
  await page.getByTestId('rule-add').click();
  await expect(page.getByTestId('alert-rule')).toHaveCount(1);
  await expect(page.getByTestId('alert-form-error')).toHaveCount(0);
  const stored = await apiRules();
  expect(stored).toHaveLength(1);
  expect(stored[0]).toMatchObject({
    signal: 'relevance_collapse',
    min_severity: 'warning',
    for_turns: 2,
    session_id: 'run-7',
    webhook: 'http://127.0.0.1:9/hook',
  });
  await expect(page.getByTestId('alert-rule')).toContainText('relevance_collapse ≥ warning for 2 turns · session run-7');

  // the token lives in this tab's sessionStorage only: not in the URL, not in localStorage
  expect(page.url()).not.toContain(TOKEN);
  const storage = await page.evaluate(() => ({ session: JSON.stringify({ ...sessionStorage }), local: JSON.stringify({ ...localStorage }) }));
  expect(storage.session).toContain(TOKEN);
  expect(storage.local).not.toContain(TOKEN);

  // a rule the relay refuses: its 400 is shown next to the form, and nothing is added
  await page.getByTestId('rule-kind').selectOption('baseline');
  await page.getByTestId('rule-percent').fill('150');
  await page.getByTestId('rule-add').click();
  await expect(page.getByTestId('alert-form-error')).toContainText('spread_below_baseline.percent must be a number in (0, 100]');
  expect(await apiRules()).toHaveLength(1);

  // removing is a write too: a wrong token is refused, said so, and the rule stays
  const remove = page.getByTestId('alert-rule').getByRole('button', { name: /Remove rule/ });
  await page.getByTestId('relay-token').fill('not-the-token');
  // it asks first
  await remove.click();
  await page.getByTestId('alert-remove-yes').click();
  await expect(page.getByTestId('alert-rules-error')).toContainText('a relay token is needed (the token given was refused)');
  await expect(page.getByTestId('alert-rule')).toHaveCount(1);
  expect(await apiRules()).toHaveLength(1);

  await page.getByTestId('relay-token').fill(TOKEN);
  await remove.click();
  await page.getByTestId('alert-remove-yes').click();
  await expect(page.getByTestId('alert-rule')).toHaveCount(0);
  await expect(page.getByTestId('alert-rules-error')).toHaveCount(0);
  expect(await apiRules()).toEqual([]);
});

test('a rule that fires is in the history, and its link opens the session at that turn', async ({ page }) => {
  const session = `hist${Date.now()}`;
  await page.goto(`${relay.url}/`);
  await page.getByTestId('relay-token').fill(TOKEN);
  await page.getByTestId('overview-alerts').click();
  await page.getByTestId('rule-signal').selectOption('relevance_collapse');
  await page.getByTestId('rule-severity').selectOption('');
  await page.getByTestId('rule-session').fill(session);
  await page.getByTestId('rule-add').click();
  await expect(page.getByTestId('alert-rule')).toHaveCount(1);
  await expect(page.getByTestId('alert-history').getByTestId('alert-firing')).toHaveCount(0);

  expect(await replay(fixture('collapse.jsonl'), relay.url, { session, token: TOKEN }).done).toBe(0);
  const firing = page.getByTestId('alert-firing');
  await expect(firing).toHaveCount(1);
  await expect(firing).toContainText(session);
  await expect(firing).toContainText('relevance_collapse');
  const link = firing.getByRole('link', { name: 'turn 25' });
  await expect(link).toHaveAttribute('href', `#live=${session}&turn=25`);
  await link.click();
  await expect(page.getByTestId('verdict')).toHaveAttribute('data-turn', '25');
});

test('deletes a session from the overview with the token; without it the page says a token is needed', async ({ page, allowPageErrors }) => {
  allowPageErrors(REFUSED);
  const tag = `del${Date.now()}`;
  expect(await replay(fixture('healthy.jsonl'), relay.url, { session: `${tag}-keep`, token: TOKEN }).done).toBe(0);
  expect(await replay(fixture('healthy.jsonl'), relay.url, { session: `${tag}-gone`, token: TOKEN }).done).toBe(0);
  await page.goto(`${relay.url}/`);
  const rows = page.getByTestId('overview-row');
  await expect(rows).toHaveCount(2);
  const gone = page.locator(`[data-testid="overview-row"][data-session="${tag}-gone"]`);

  // the first click (or Enter: it does not open the row's session) only asks; "No" leaves everything as it was
  await gone.getByTestId('overview-delete').focus();
  await page.keyboard.press('Enter');
  await expect(gone.getByTestId('overview-delete-no')).toBeVisible();
  expect(page.url()).not.toContain('live=');
  await gone.getByTestId('overview-delete-no').click();
  await gone.getByTestId('overview-delete').click();
  await gone.getByTestId('overview-delete-no').click();
  await expect(gone.getByTestId('overview-delete')).toBeVisible();

  // without the token: refused, said so, the row stays (and the session was not opened)
  await gone.getByTestId('overview-delete').click();
  await gone.getByTestId('overview-delete-yes').click();
  await expect(page.getByTestId('overview-error')).toContainText(`Could not delete ${tag}-gone: a relay token is needed`);
  await expect(rows).toHaveCount(2);
  expect((await fetch(`${relay.url}/api/sessions/${tag}-gone`)).status).toBe(200);
  expect(page.url()).not.toContain('live=');

  await page.getByTestId('relay-token').fill(TOKEN);
  await gone.getByTestId('overview-delete').click();
  await gone.getByTestId('overview-delete-yes').click();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute('data-session', `${tag}-keep`);
  expect((await fetch(`${relay.url}/api/sessions/${tag}-gone`)).status).toBe(404);
});
