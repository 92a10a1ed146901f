// A version-1 transcript rewritten in the compact wire of contract §7 (version 1.1), the
// way a client would have sent it: every session declares `"wire": "1.1"` in its header
// (one is added before the first snapshot of a session without one), and every snapshot
// the engine accepts leaves out the texts equal to its previous accepted snapshot's. Lines
// the engine refuses are kept as they are, so they are refused again for the same reason.
// Used by the tests (both forms analyse the same) and the bench (bytes per snapshot).
import { COMPACT_WIRE, TextOmitter } from './compact.ts';
import type { Sha256Hex } from './analyse.ts';
import { Engine } from './engine.ts';
import type { Snapshot } from './wire.ts';

export interface CompactedTranscript {
  lines: string[];
  /** bytes of the accepted snapshots' lines, before and after */
  snapshotBytesBefore: number;
  snapshotBytesAfter: number;
  snapshots: number;
}

export function compactTranscript(lines: readonly string[], sha256: Sha256Hex): CompactedTranscript {
  const engine = new Engine({ sha256 });
  const omitter = new TextOmitter();
  const declared = new Set<string>();
  const out: string[] = [];
  let before = 0;
  let after = 0;
  let snapshots = 0;
  lines.forEach((line, i) => {
    const outcome = engine.ingestLine(line, i + 1);
    if (outcome.kind === 'header') {
      declared.add(outcome.sessionId);
      out.push(JSON.stringify({ ...(JSON.parse(line) as object), wire: COMPACT_WIRE }));
      return;
    }
    if (outcome.kind !== 'turn') {
      out.push(line);
      return;
    }
    const sid = outcome.snapshot.session_id;
    if (!declared.has(sid)) {
      declared.add(sid);
      out.push(JSON.stringify({ type: 'session', session_id: sid, wire: COMPACT_WIRE }));
    }
    const parsed = JSON.parse(line) as Snapshot;
    const compact = omitter.compact(parsed);
    const text = compact === parsed ? line : JSON.stringify(compact);
    snapshots++;
    before += utf8Bytes(line) + 1;
    after += utf8Bytes(text) + 1;
    out.push(text);
  });
  return { lines: out, snapshotBytesBefore: before, snapshotBytesAfter: after, snapshots };
}

/** Bytes of a string's UTF-8 encoding (core runs without TextEncoder's types). */
export function utf8Bytes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
