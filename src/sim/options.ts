// What a caller asks the scenario generator for: the fault kinds, their turn windows and the
// session's options. Kept apart from src/sim/scenario.ts so that the simulator and the fault
// strategies (src/sim/faults/) can import them without importing the generator's entry point.
import type { SessionHeader } from '../core/wire.ts';

export type FaultKind =
  | 'stale_rewrite'
  | 'unbound_score'
  | 'underreported_rewrite'
  | 'fanin_orphans'
  | 'paraphrase_drift'
  | 'narrowing_scores'
  | 'sinking_canary'
  | 'prune_on_stale'
  | 'null_scores';

export const FAULT_KINDS: readonly FaultKind[] = [
  'stale_rewrite',
  'unbound_score',
  'underreported_rewrite',
  'fanin_orphans',
  'paraphrase_drift',
  'narrowing_scores',
  'sinking_canary',
  'prune_on_stale',
  'null_scores',
];

/** Active on turns from..to inclusive (turn numbers as emitted, not snapshot indices). */
export interface FaultWindow {
  fault: FaultKind;
  from: number;
  to: number;
}

export interface ScenarioOptions {
  seed: number;
  sessionId: string;
  title?: string;
  /** number of snapshots to emit (Infinity: an endless session, e.g. the relay's demo) */
  turns: number;
  /** target live buffer size (e.g. 40; bench uses 200) */
  spans: number;
  /** approximate characters per span text (default 120; bench uses ~400) */
  textChars?: number;
  /** mix some non-ASCII (é, —, 日本, emoji) into texts (default true) */
  nonAscii?: boolean;
  /** number of pinned canary spans (default 2, or spans − 1 when smaller; 0 = no canary) */
  pinned?: number;
  /** default []: a healthy loop */
  faults?: FaultWindow[];
  /** default 1 */
  startTurn?: number;
  /** default 1; >1 leaves gaps in turn numbers */
  turnGap?: number;
  /** emit a session header first (default true) */
  header?: boolean;
  config?: SessionHeader['config'];
  /** ISO time of turn startTurn (default '2026-11-11T10:00:00Z'); ts advances TURN_STEP_MS per turn number */
  startedAt?: string;
}

/** One simulated turn is one second of wall time, so a live demo at a snapshot a second keeps `ts` on the clock. */
export const TURN_STEP_MS = 1000;
