// SPEC §2 replayed frames: "a snapshot equal (as parsed JSON) to one already received".

/** Deep equality of two parsed JSON values (object key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.hasOwn(b, k)) return false;
    if (!jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/**
 * A cheap fingerprint of a line's text, kept per accepted turn so that an older snapshot
 * sent again verbatim (a harness retrying after a reconnect) is recognised without
 * keeping every snapshot in memory. The previous snapshot is compared exactly with
 * jsonEqual; older ones by this digest of the length and up to 512 sampled characters.
 */
export function lineDigest(text: string): number {
  const len = text.length;
  let h = 0x811c9dc5 ^ len;
  const step = Math.max(1, Math.floor(len / 512));
  for (let i = 0; i < len; i += step) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
