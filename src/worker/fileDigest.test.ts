// eslint-disable-next-line no-restricted-imports -- tests run on Node; the oracle is Node's own sha256
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { digestBlob } from './fileDigest.ts';

const bytes = (n: number): Uint8Array<ArrayBuffer> => Uint8Array.from({ length: n }, (_, i) => (i * 131 + (i >> 8)) & 255);
const want = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

describe('digestBlob', () => {
  it('is the sha256 of the bytes as stored, whole or chunk by chunk', async () => {
    for (const n of [0, 1, 63, 64, 65, 100_000, 1_000_003]) {
      const b = bytes(n);
      const blob = new Blob([b]);
      expect(await digestBlob(blob)).toBe(want(b));
      // past the whole-file limit: streamed through hash-wasm
      expect(await digestBlob(blob, undefined, 10)).toBe(want(b));
    }
  });

  it('stops when aborted', async () => {
    const ctl = new AbortController();
    ctl.abort();
    expect(await digestBlob(new Blob([bytes(5000)]), ctl.signal, 10)).toBeNull();
    expect(await digestBlob(new Blob([bytes(5000)]), ctl.signal)).toBeNull();
  });
});
