// The shape of a simulated fault (src/sim/faults/<fault>.ts) and the small context through
// which it works on the simulated agent loop (src/sim/simulator.ts).
//
// A healthy loop keeps the promises of contract §1/§5 (rewrites rebind their scores and are
// reported truthfully, the pruner refuses unbound scores, halts while frozen, never orphans a
// summary). A fault breaks one of them inside its turn windows, through two means:
//   - hooks, which the simulator calls in each phase of a turn (recover, append, rewrite,
//     prune, finalize) for every fault active at that turn, in the fixed order of RUN_ORDER
//     (src/sim/faults/index.ts); `recover` and `recoverPrune` are the harness's repairs and
//     run instead on the turns the fault is off;
//   - `suspends`: the healthy harness's own guards (HarnessGuard) the simulator skips while
//     the fault is active.
// Every session's output is pinned byte for byte (src/sim/scenario.golden.test.ts): a hook
// must draw from `sim.rng` in the same order on every run, and a new draw anywhere shifts
// every session after it.
import type { Thresholds } from '../../core/config.ts';
import type { Signal } from '../../core/signals.ts';
import type { FaultKind } from '../options.ts';
import type { Rng } from '../random.ts';
import type { PruneReason, Role, SimSpan, Tally } from '../simSpan.ts';
import type { TextWriter } from '../text.ts';

/** The correct harness's behaviours that a fault may switch off while it is active. */
export type HarnessGuard =
  /** the turn's new spans: a user message and its answer, a tool call and its output */
  | 'append'
  /** now and then a correct rewrite: new text, a fresh score bound to it, reported truthfully */
  | 'healthy_rewrite'
  /** contract §5: no pruning at all while the previous verdict is freeze */
  | 'freeze_halt'
  /** seed 000's prune(): the budget never evicts a span whose score is not bound to its text */
  | 'bound_only_pruning'
  /** summaries whose parents are gone are evicted rather than kept citing them */
  | 'orphan_eviction'
  /** the pinned canaries score at or above the median (seed 002's condition of validity) */
  | 'canary_floor'
  /** the spread of scores is kept well above spread_floor (contract §4 spread_collapse) */
  | 'spread_floor'
  /** a rewrite turn never looks like contract §4 relevance_inflation */
  | 'inflation_guard';

export type RewriteKind = 'summary' | 'paraphrase';

/** The finalize phase's working scores, one per live span; a hook may change `vals` in place. */
export interface ScoreDraft {
  readonly live: readonly SimSpan[];
  /** wire scores being built from each span's raw score; null for an invalidated one */
  readonly vals: (number | null)[];
  /** indices into live/vals of the pinned spans with a score */
  readonly pinnedAt: readonly number[];
}

/** What a fault may see of the simulator and do to it. */
export interface SimContext {
  /** the session's one PRNG: every draw moves every later one */
  readonly rng: Rng;
  readonly th: Readonly<Thresholds>;
  readonly text: TextWriter;
  /** approximate characters per span text (ScenarioOptions.textChars) */
  readonly textChars: number;
  /** this turn's snapshot index, 0 for the first */
  readonly index: number;
  /** the engine's view of the previous snapshot; null before the first */
  readonly prev: Tally | null;
  /** the buffer in order, with the spans doomed this turn still in it (span.doomed set) */
  readonly spans: readonly SimSpan[];
  isActive(kind: FaultKind): boolean;
  /** snapshots in a row the fault has been active: 0 on the first turn of its window, -1 when off */
  age(kind: FaultKind): number;
  /** spans a fault may take: seen in a snapshot, unpinned, in good standing, untouched this turn, held out by no fault */
  eligible(): SimSpan[];
  /** up to n eligible spans drawn at random, marked touched */
  pickEligible(n: number): SimSpan[];
  /** some span still in the buffer derives from it */
  hasLiveChildren(span: SimSpan): boolean;
  /** held out by a fault (FaultHooks.holdsOut) */
  heldOut(span: SimSpan): boolean;
  /** marks a span changed this turn: the budget pruner and the other faults leave it alone */
  touch(span: SimSpan): void;
  /** new text (hashed, its tokens counted), and touch() */
  setText(span: SimSpan, text: string): void;
  /** a rewritten text for the span, never equal to its current one */
  rewrittenText(span: SimSpan, kind: RewriteKind): string;
  /** a correct rewrite (seed 000's apply_rewrite then a recompute): new text, score rebound, rewrite_count reset */
  rewriteCorrectly(span: SimSpan, kind: RewriteKind): void;
  /** adds to this snapshot's contract §2 `rewrite` report; invalidated ids default to the modified ones */
  addReport(modified: string[], spansModified: number, scoresInvalidated: number, invalidated?: string[]): void;
  /** a new span with the next fresh id, appended to the buffer */
  addSpan(role: Role, text: string, base: number, derivedFrom: readonly string[]): SimSpan;
  /** evicts the span in this snapshot (listed in `pruned`, in the order doomed) */
  doom(span: SimSpan, why: PruneReason): void;
  /** this turn the budget pruner evicts n spans beyond what the budget needs */
  forcePrunes(n: number): void;
}

/** One session's hooks of one fault. All optional; see the top of the file for when each runs. */
export interface FaultHooks {
  /**
   * recover phase, for each span whose `hold` is this fault: true keeps it in its bad state
   * this turn, false has the harness recompute it (score rebound, hold cleared). Without the
   * hook a span is held exactly while its fault is active.
   */
  keepHold?(span: SimSpan, active: boolean): boolean;
  /** recover phase, on turns the fault is off, after the held spans were repaired */
  recover?(): void;
  /** the spans this fault keeps away from every other phase, on or off (they are not eligible, not pruned by the budget) */
  holdsOut?(span: SimSpan): boolean;
  /** append phase: the turn's new spans, before they join the buffer */
  append?(added: SimSpan[]): void;
  /** rewrite phase (not on the first snapshot), after the healthy rewrite */
  rewrite?(): void;
  /** prune phase, unless the freeze halted pruning: the fault's own evictions, before the budget */
  prune?(): void;
  /** prune phase, on turns the fault is off and pruning runs: the harness's evictions after the window */
  recoverPrune?(): void;
  /** finalize phase: turns raw scores into wire scores; draws no randomness (it may run more than once a turn) */
  finalize?(draft: ScoreDraft): void;
}

export interface FaultStrategy {
  /** the contract §4 signals the fault is built to make the engine emit when it is the only fault active (FAULT_SIGNALS) */
  readonly signals: readonly Signal[];
  /** the harness guards skipped while the fault is active */
  readonly suspends?: readonly HarnessGuard[];
  /** one session's hooks, closing over what the fault remembers between turns */
  start(sim: SimContext): FaultHooks;
}
