// eslint-disable-next-line no-restricted-imports -- tests run on Node; the oracle is Node's own sha256
import { createHash } from 'node:crypto';
import { createSHA256 } from 'hash-wasm';
import { describe, expect, it } from 'vitest';
import { textSha256 } from './textSha256.ts';

// Node's UTF-8 writes a lone surrogate as U+FFFD, as TextEncoder does
const want = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

describe('textSha256', () => {
  it("is the sha256 of the text's UTF-8, one text after another through the same buffer", async () => {
    const sha256 = textSha256(await createSHA256());
    const texts = [
      '',
      'a',
      'Pinned constraint: never run destructive commands outside the sandbox directory.',
      'the customer’s budget is 2 000 € — 日本語 façade ✅',
      'emoji 😀 and a pair split: \ud83d alone, \ude00 alone, \ud83d\ude00 whole',
      'x'.repeat(21_845), // just fits the reused buffer (×3 = 65,535 bytes)
      'é'.repeat(30_000), // a text of its own buffer
      'short after long',
      '\ud800',
    ];
    for (const text of texts) expect(sha256(text), JSON.stringify(text.slice(0, 40))).toBe(want(text));
    // and what hash-wasm's own string path gives, the digests the dashboard made before
    const hasher = await createSHA256();
    for (const text of texts) expect(sha256(text)).toBe(hasher.init().update(text).digest('hex'));
  });
});
