// Proof that the page-error fixture of helpers/test.ts fails a test. The first two tests
// are declared to fail (`test.fail()`): each makes the page throw or log an error and
// otherwise passes, so only the fixture can fail it. Were the fixture to stop asserting,
// Playwright would report them "expected to fail, but passed", and the run goes red.
import { gotoApp } from './helpers/app.ts';
import { expect, test, unexpectedProblems } from './helpers/test.ts';

test('an uncaught page exception fails the test', async ({ page }) => {
  test.fail();
  await gotoApp(page);
  const thrown = page.waitForEvent('pageerror');
  // thrown from a task of the page's own, so nothing catches it
  await page.evaluate(() =>
    setTimeout(() => {
      throw new Error('e2e: deliberate uncaught error');
    }),
  );
  expect((await thrown).message).toBe('e2e: deliberate uncaught error');
});

test('a console error fails the test', async ({ page }) => {
  test.fail();
  await gotoApp(page);
  const logged = page.waitForEvent('console', (m) => m.type() === 'error');
  await page.evaluate(() => console.error('e2e: deliberate console error'));
  expect((await logged).text()).toBe('e2e: deliberate console error');
});

test('a test that declares the error it expects passes, and the fixture saw the error', async ({ page, allowPageErrors, pageProblems }) => {
  allowPageErrors(/e2e: expected console error/, /never happens/);
  await gotoApp(page);
  const logged = page.waitForEvent('console', (m) => m.type() === 'error');
  await page.evaluate(() => console.error('e2e: expected console error'));
  await logged;
  expect(pageProblems).toEqual([expect.objectContaining({ kind: 'console', text: expect.stringContaining('e2e: expected console error') })]);
});

test('only problems outside the allow-list count', () => {
  const problems = [
    { kind: 'console' as const, text: 'WebSocket connection failed' },
    { kind: 'pageerror' as const, text: 'TypeError: x is undefined' },
  ];
  expect(unexpectedProblems(problems, [])).toEqual(problems);
  expect(unexpectedProblems(problems, [/WebSocket/])).toEqual([problems[1]]);
  expect(unexpectedProblems(problems, [/WebSocket/, /TypeError/])).toEqual([]);
});
