// Random snapshots for the differential test: every way a binding can be right or wrong
// (correct hash, wrong hash, "" and null, null score), non-ASCII and astral text, and
// rewrite reports on both sides of the integrity check.
import type { Sha256Hex } from '../../src/core/analyse.ts';
import type { Snapshot, Span } from '../../src/core/wire.ts';

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['score', 'span', 'context', 'résumé', 'naïve', '—', '日本語', '🙂', 'prune', 'token', 'agent', 'Ünïcödé'];

export function randomTranscript(seed: number, turns: number, sha256: Sha256Hex): Snapshot[] {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const text = (): string => Array.from({ length: 3 + Math.floor(rnd() * 12) }, () => pick(WORDS)).join(' ');
  const out: Snapshot[] = [];
  let nextId = 0;
  let live: Span[] = [];
  for (let t = 1; t <= turns; t++) {
    // a healthy-looking buffer most turns; each fault with a modest probability per span
    while (live.length < 6 + Math.floor(rnd() * 6)) live.push({ span_id: `s${nextId++}`, text: text(), score: rnd(), text_sha256: null });
    if (rnd() < 0.3) live.splice(Math.floor(rnd() * live.length), 1);
    const allBound = rnd() < 0.4;
    live = live.map((s) => {
      const t2 = rnd() < 0.2 ? text() : s.text;
      const r = rnd();
      const binding = allBound || r < 0.85 ? sha256(t2) : r < 0.9 ? sha256(t2 + 'x') : r < 0.95 ? '' : null;
      return { ...s, text: t2, score: rnd() < 0.03 ? null : Math.round(rnd() * 1000) / 1000, text_sha256: binding, rewrite_count: Math.floor(rnd() * 2) };
    });
    const modified = rnd() < 0.5 ? Math.floor(rnd() * 4) : 0;
    const invalidated = rnd() < 0.5 ? modified : Math.floor(rnd() * 4);
    out.push({
      type: 'snapshot',
      session_id: `oracle-${seed}`,
      turn: t * (1 + Math.floor(rnd() * 2)) + t,
      spans: live.map((s) => ({ ...s })),
      ...(rnd() < 0.1 ? {} : { rewrite: { spans_modified: modified, scores_invalidated: invalidated } }),
    });
  }
  // turns must strictly increase
  out.forEach((s, i) => (s.turn = i === 0 ? s.turn : Math.max(s.turn, out[i - 1]!.turn + 1)));
  return out;
}
