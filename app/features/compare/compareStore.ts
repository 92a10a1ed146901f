// Comparing the session on screen (A) with a second one (B): what B is, what B's Worker
// has said, and the comparison A's Worker made. Pure transforms first (tested), then a
// thin create(). B's bulk data stays in its Worker; this holds the latest replies only.
import { create } from 'zustand';
import type { Alignment, CompactionsView, Comparison, ConnectionState, JobSummary, LoadState, SeriesView, TurnDetail } from '../../../src/worker/client.ts';

/** What B is, in a form a link can carry (a dropped file cannot: it is not in the URL). */
export type PartnerSpec =
  | { kind: 'sample'; name: string }
  | { kind: 'live'; sessionId: string }
  | { kind: 'file'; name: string; file: File }
  /** another session of A's own source */
  | { kind: 'same' };

export interface CompareState {
  partner: PartnerSpec | null;
  /** the session of B asked for (link, picker); null = the first (for `same`: the first that is not A's) */
  requested: string | null;
  align: Alignment;
  load: LoadState | 'idle';
  connection: ConnectionState | null;
  summary: JobSummary | null;
  sessionId: string | null;
  comparison: Comparison | null;
  /** B's series over the window on screen, for the dashed lines */
  view: SeriesView | null;
  /** B's turn beside A's selected turn, null when B has none there */
  turn: TurnDetail | null;
  /**
   * B's compactions (contract §8.3), pulled only when B is in the reference scope (§8.1): its
   * side of the verdicts is then headlined by §8.9, which reads them (a confirmed loss).
   */
  compactions: CompactionsView | null;
  /**
   * A pair chosen as a pair (the first divergence): by position, one turn of the shorter
   * run stands beside several of the longer, so the cursor alone cannot name B's turn.
   */
  pinned: { aTurn: number; bTurn: number } | null;
}

export const initialCompareState: CompareState = {
  partner: null,
  requested: null,
  align: 'turn',
  load: 'idle',
  connection: null,
  summary: null,
  sessionId: null,
  comparison: null,
  view: null,
  turn: null,
  compactions: null,
  pinned: null,
};

/** B's session: the one asked for if B has it, else the first (for `same`, the first that is not A's). */
export function choosePartnerSession(summary: JobSummary, partner: PartnerSpec, requested: string | null, aSessionId: string | null): string | null {
  const ids = summary.sessions.map((s) => s.sessionId);
  if (requested !== null) return ids.includes(requested) ? requested : null;
  if (partner.kind === 'same') return ids.find((id) => id !== aSessionId) ?? null;
  return ids[0] ?? null;
}

/** The URL's part of a comparison: `compare=sample:<file>` or `live:<id>` or `same`, the session and the alignment. */
export function compareHash(partner: PartnerSpec | null, requested: string | null, align: Alignment): Record<string, string | null> {
  const value =
    partner === null || partner.kind === 'file'
      ? null
      : partner.kind === 'sample'
        ? `sample:${partner.name}`
        : partner.kind === 'live'
          ? `live:${partner.sessionId}`
          : 'same';
  return { compare: value, compare_session: value === null ? null : requested, align: value === null || align === 'turn' ? null : align };
}

/** The comparison a link names, or null when it names none (or names it wrongly). */
export function partnerFromHash(h: Record<string, string>): { partner: PartnerSpec; requested: string | null; align: Alignment } | null {
  const c = h.compare;
  if (c === undefined) return null;
  const align: Alignment = h.align === 'relative' ? 'relative' : 'turn';
  const requested = h.compare_session ?? null;
  if (c === 'same') return { partner: { kind: 'same' }, requested, align };
  const [kind, ...rest] = c.split(':');
  const name = rest.join(':');
  if (kind === 'sample' && /^[\w.-]+$/.test(name)) return { partner: { kind: 'sample', name }, requested, align };
  if (kind === 'live' && name !== '') return { partner: { kind: 'live', sessionId: name }, requested, align };
  return null;
}

/** How B is named on screen. */
export function partnerLabel(partner: PartnerSpec, sessionId: string | null): string {
  const base = partner.kind === 'sample' || partner.kind === 'file' ? partner.name : partner.kind === 'live' ? `live ${partner.sessionId}` : 'this source';
  return sessionId === null || (partner.kind === 'live' && sessionId === partner.sessionId) ? base : `${base} · session ${sessionId}`;
}

export const useCompare = create<CompareState>()(() => ({ ...initialCompareState }));
