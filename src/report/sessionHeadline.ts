// One headline for one session of a `check` report (contract §6.1 shape): the words a row of
// many files, a report title or a summary line gives the session, the same as its banner's.
// A session in the reference scope (contract §8.1) gets its §8.9 headline as it stood at its
// last turn; any other session the worst of its turns' headlines (src/report/headline.ts),
// the first turn of that kind. Pure: no DOM, no Node.
import { DEFAULT_THRESHOLDS } from '../core/config.ts';
import type { SessionOutput } from '../core/checkOutput.ts';
import type { Signal } from '../core/signals.ts';
import { contextHeadline } from './contextHeadline.ts';
import { headline, HEADLINE_RANK, type Headline } from './headline.ts';

/** contract §8.1: the score detectors were left out of this session (its not_applicable is not empty). */
export function outOfScope(s: Pick<SessionOutput, 'not_applicable'>): boolean {
  return s.not_applicable !== undefined && Object.keys(s.not_applicable).length > 0;
}

/** The session's headline; null for a session with no turn analysed. */
export function sessionHeadline(s: SessionOutput, options: { pressureThreshold?: number } = {}): (Headline & { turn: number }) | null {
  const last = s.metrics[s.metrics.length - 1];
  if (last === undefined) return null;
  if (outOfScope(s))
    return {
      ...contextHeadline({
        turn: last.turn,
        tokensTotal: last.tokens_total,
        window: s.context_window?.tokens ?? null,
        pressureThreshold: options.pressureThreshold ?? DEFAULT_THRESHOLDS.pressure_threshold,
        orphanEdges: last.orphan_edges,
        compactions: s.compactions ?? [],
      }),
      turn: last.turn,
    };
  const findingsAt = new Map<number, { signal: Signal }[]>();
  for (const f of s.findings) {
    let list = findingsAt.get(f.turn);
    if (list === undefined) findingsAt.set(f.turn, (list = []));
    list.push(f);
  }
  let worst: (Headline & { turn: number; rank: number }) | null = null;
  for (const v of s.verdicts) {
    const h = headline({ ...v, findings: findingsAt.get(v.turn) ?? [] });
    const rank = HEADLINE_RANK[h.kind];
    if (worst === null || rank > worst.rank) worst = { ...h, turn: v.turn, rank };
  }
  if (worst === null) return null;
  const { rank: _rank, ...out } = worst;
  return out;
}
