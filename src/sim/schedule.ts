// Which faults are active at a turn, from the caller's fault windows (ScenarioOptions.faults).
import { FAULT_KINDS, type FaultKind, type FaultWindow } from './options.ts';

/** Turns only increase, so one sweep over the sorted windows suffices. */
export class Schedule {
  private readonly windows: FaultWindow[];
  private next = 0;
  private open: FaultWindow[] = [];

  constructor(windows: readonly FaultWindow[]) {
    for (const w of windows) {
      if (!FAULT_KINDS.includes(w.fault)) throw new RangeError(`unknown fault ${JSON.stringify(w.fault)}`);
      if (!Number.isInteger(w.from) || !Number.isInteger(w.to) || w.from > w.to)
        throw new RangeError(`fault window ${w.fault} needs integers from ≤ to, got ${w.from}..${w.to}`);
    }
    this.windows = [...windows].sort((a, b) => a.from - b.from);
  }

  at(turn: number): Set<FaultKind> {
    while (this.next < this.windows.length && this.windows[this.next]!.from <= turn) this.open.push(this.windows[this.next++]!);
    this.open = this.open.filter((w) => w.to >= turn);
    return new Set(this.open.map((w) => w.fault));
  }
}
