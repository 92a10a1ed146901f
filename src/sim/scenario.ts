// The scenario generator: a simulated self-editing LLM agent loop that emits contract §2 wire
// messages, healthy by default, with faults switched on in turn windows. Tests, the relay's
// live demo, the committed samples and the benchmarks all use it, so it is seeded and fully
// deterministic (one PRNG, no clock; src/sim/scenario.golden.test.ts pins its output), and
// pure TypeScript: it runs in Node, a Web Worker and the relay. Hashing is handed in, as for
// the engine.
//
// The loop, per turn (contract §1): new spans are appended; a model call may rewrite or summarise
// spans; every span is rescored; the lowest-scored spans are pruned to keep about `spans`
// live; the snapshot is the buffer at the END of the turn (contract §2). A healthy loop's
// harness is a correct one: rewrites recompute and rebind their scores and report
// spans_modified == scores_invalidated, the pruner refuses spans whose score is not bound to
// their text (seed 000's prune()), never evicts a parent a live span derives from, and halts
// while the verdict is freeze (contract §5). Each fault breaks exactly one of those promises.
//
// Where things are: this file is the entry point (the options, the schedules below);
// src/sim/simulator.ts is the loop and the correct harness; src/sim/faults/ holds one strategy
// per fault (the FAULTS table in src/sim/faults/index.ts); src/sim/text.ts writes the texts and
// src/sim/numeric.ts holds the small pure helpers. docs/contributing.md: "Add a simulated fault".
import type { Sha256Hex } from '../core/analyse.ts';
import type { Signal } from '../core/signals.ts';
import type { Message } from '../core/wire.ts';
import { faultSignals } from './faults/index.ts';
import type { FaultKind, FaultWindow, ScenarioOptions } from './options.ts';
import { Simulator } from './simulator.ts';

export { FAULT_KINDS, TURN_STEP_MS, type FaultKind, type FaultWindow, type ScenarioOptions } from './options.ts';

/**
 * The contract §4 signals each fault is built to make the engine emit inside its window, when it
 * is the only fault active (measured by src/sim/scenario.test.ts); each strategy declares its
 * own (src/sim/faults/). Two need company: relevance_collapse (and the freeze verdict) needs
 * narrowing_scores and sinking_canary together, and pruned_during_freeze needs prune_on_stale
 * while that freeze is in force.
 */
export const FAULT_SIGNALS: Readonly<Record<FaultKind, readonly Signal[]>> = faultSignals();

export function* simulateSession(opts: ScenarioOptions, sha256: Sha256Hex): Generator<Message> {
  const sim = new Simulator(opts, sha256);
  if (opts.header ?? true) yield sim.header();
  for (let i = 0; i < opts.turns; i++) yield sim.step(i);
}

/** How many turns demoFaultCycle's list covers: a day at one snapshot a second. */
export const DEMO_SCHEDULE_TURNS = 86_400;

/**
 * A schedule for the relay's live demo (a snapshot a second) that shows a newcomer, in its
 * first ~100 turns: a healthy stretch, stale scores (contract §1 seed 000), paraphrase drift,
 * fan-in orphans, and a relevance collapse (seed 002: narrowing scores and a sinking canary
 * together, so the verdict turns to freeze, while a broken pruner keeps pruning through it).
 * Each stretch is followed by healthy turns in which the harness repairs the damage. The cycle
 * repeats every `cycleTurns` turns up to DEMO_SCHEDULE_TURNS, after which the demo session
 * stays healthy.
 */
export function demoFaultCycle(cycleTurns = 100): FaultWindow[] {
  if (!Number.isInteger(cycleTurns) || cycleTurns < 50) throw new RangeError(`cycleTurns must be an integer ≥ 50, got ${cycleTurns}`);
  // Fractions of the cycle; at 100 turns: stale 13–24, drift 33–40, orphans 49–54,
  // narrowing 62–88, sinking 68–88, pruning through the freeze 74–88, healthy 89–100.
  const at = (f: number): number => 1 + Math.round(f * cycleTurns);
  const one: FaultWindow[] = [
    { fault: 'stale_rewrite', from: at(0.12), to: at(0.23) },
    { fault: 'paraphrase_drift', from: at(0.32), to: at(0.39) },
    { fault: 'fanin_orphans', from: at(0.48), to: at(0.53) },
    { fault: 'narrowing_scores', from: at(0.61), to: at(0.87) },
    { fault: 'sinking_canary', from: at(0.67), to: at(0.87) },
    { fault: 'prune_on_stale', from: at(0.73), to: at(0.87) },
  ];
  const out: FaultWindow[] = [];
  for (let offset = 0; offset < DEMO_SCHEDULE_TURNS; offset += cycleTurns) {
    for (const w of one) out.push({ fault: w.fault, from: w.from + offset, to: w.to + offset });
  }
  return out;
}

/**
 * Windows covering every FaultKind across turns 1..`turns` (startTurn 1, turnGap 1): a healthy
 * lead-in, then each single fault in its own stretch followed by healthy recovery turns, and
 * last the collapse trio together (narrowing + sinking canary → relevance_collapse and freeze;
 * prune_on_stale inside it → pruned_on_stale_score and pruned_during_freeze).
 */
export function allFaults(turns: number): FaultWindow[] {
  if (!Number.isInteger(turns) || turns < 60) throw new RangeError(`allFaults needs an integer ≥ 60 turns, got ${turns}`);
  const singles: FaultKind[] = ['stale_rewrite', 'unbound_score', 'underreported_rewrite', 'null_scores', 'fanin_orphans', 'paraphrase_drift'];
  const lead = Math.max(4, Math.round(turns * 0.06));
  const seg = Math.floor((turns - lead) / (singles.length + 1));
  const active = Math.max(4, Math.round(seg * 0.6));
  const out: FaultWindow[] = [];
  let start = lead + 1;
  for (const fault of singles) {
    out.push({ fault, from: start, to: start + active - 1 });
    start += seg;
  }
  // the collapse stretch runs longer: freeze needs two narrow snapshots and a sunk canary first
  const last = Math.min(turns - 3, start + Math.round(seg * 0.8) - 1);
  out.push({ fault: 'narrowing_scores', from: start, to: last });
  out.push({ fault: 'sinking_canary', from: start + 1, to: last });
  out.push({ fault: 'prune_on_stale', from: start + 3, to: last });
  return out;
}
