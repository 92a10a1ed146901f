// Issue 37: the speed-ups change no byte of `check`'s output (checkDigests.ts says what is recorded).
import fs from 'node:fs';
import { expect, it } from 'vitest';
import { checkDigests, DIGESTS } from './checkDigests.ts';

it('check --json and the human output of every sample, fixture and bench transcript are the bytes recorded before the speed-ups', async () => {
  const recorded = JSON.parse(fs.readFileSync(DIGESTS, 'utf8')) as Record<string, string>;
  const now = await checkDigests();
  expect(Object.keys(now).length).toBeGreaterThanOrEqual(60);
  expect(now).toEqual(recorded);
}, 300_000);
