// The sha256 of a dropped file, as stored (the gzip bytes of a .gz): what `sha256sum`
// prints, so a link naming a file (docs/dashboard.md "Links") can say whether the file
// dropped on it is that one. Computed after the load has ended, so the first charts are
// never delayed by it: WebCrypto's native digest of the whole file at once (several
// hundred MB/s) up to WHOLE_FILE_LIMIT, past it hash-wasm chunk by chunk (about 80 MB/s
// here) so memory stays bounded whatever the file's size.
import { createSHA256 } from 'hash-wasm';

/** Files up to this size are read into memory once and digested natively. */
export const WHOLE_FILE_LIMIT = 256 * 2 ** 20;

const hex = (bytes: ArrayBuffer): string => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');

/** The file's sha256 (lowercase hex), or null when `signal` aborted first. */
export async function digestBlob(blob: Blob, signal?: AbortSignal, wholeFileLimit = WHOLE_FILE_LIMIT): Promise<string | null> {
  if (blob.size <= wholeFileLimit) {
    const digest = await crypto.subtle.digest('SHA-256', await blob.arrayBuffer());
    return signal?.aborted ? null : hex(digest);
  }
  const hasher = await createSHA256();
  hasher.init();
  const reader = blob.stream().getReader();
  for (;;) {
    if (signal?.aborted) {
      await reader.cancel();
      return null;
    }
    const r = await reader.read();
    if (r.done) break;
    hasher.update(r.value);
  }
  return hasher.digest('hex');
}
