// sha256 of a text's UTF-8 bytes, as 64 lowercase hex digits, with hash-wasm (the engine's
// sha256 in the dashboard's Workers). The text is encoded into one buffer used again for every
// text (TextEncoder.encodeInto): hash-wasm's own string path encodes each text into a new
// ArrayBuffer (TextEncoder.encode), and in Chromium 4,666 texts of ~1.7 kB hashed in 40–51 ms
// this way against 50–110 ms (docs/perf-log/2026-12-02-warm-up-and-settled-drop.md).
// The bytes are the same: both encoders write a lone surrogate as U+FFFD.
import type { IHasher } from 'hash-wasm';

/** Texts up to a third of this are encoded into the reused buffer; a longer one gets its own. */
const SCRATCH_BYTES = 1 << 16;

export function textSha256(hasher: IHasher): (text: string) => string {
  const encoder = new TextEncoder();
  const scratch = new Uint8Array(SCRATCH_BYTES);
  return (text) => {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit (4 for a surrogate pair's two)
    const need = text.length * 3;
    const into = need <= SCRATCH_BYTES ? scratch : new Uint8Array(need);
    const { written } = encoder.encodeInto(text, into);
    return hasher.init().update(into.subarray(0, written)).digest('hex');
  };
}
