// Degenerate files dropped on the real page (issue 8 item 5): the load must end, and say
// plainly what was wrong, instead of eating the tab's memory.
import { expect, test } from './helpers/test.ts';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { dropFile, gotoApp, waitLoaded } from './helpers/app.ts';

/** A gzip of `bytes` zero bytes, written without ever holding them: about 1 KB per MB. */
async function zeroBomb(path: string, bytes: number): Promise<void> {
  const gzip = zlib.createGzip({ level: 1 });
  const out = fs.createWriteStream(path);
  const finished = new Promise<void>((resolve, reject) => {
    out.on('finish', resolve);
    out.on('error', reject);
  });
  gzip.pipe(out);
  const block = Buffer.alloc(16 << 20);
  for (let left = bytes; left > 0; left -= block.length) {
    if (!gzip.write(left >= block.length ? block : block.subarray(0, left))) await new Promise((r) => gzip.once('drain', r));
  }
  gzip.end();
  await finished;
}

test('a gzip bomb that is one endless line stops at the size cap and says so, with one input error naming the line cap', async ({ page }, testInfo) => {
  const file = testInfo.outputPath('bomb.jsonl.gz');
  await zeroBomb(file, 1_150_000_000); // just past the dashboard's 1 GiB cap on unpacked bytes
  expect(fs.statSync(file).size).toBeLessThan(10_000_000);
  await gotoApp(page);
  await dropFile(page, file);
  const status = await waitLoaded(page, 80_000);
  expect(status.state).toBe('failed');
  expect(status.errors).toBe(1);
  expect(status.text).toContain('decompresses to more than 1 GiB');
  await page.getByRole('button', { name: /Show the 1 input error/ }).click();
  await expect(page.getByTestId('input-errors').locator('li[data-line="1"]')).toContainText('over the limit of 64 MiB per line');
});
