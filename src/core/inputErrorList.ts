// contract §2.5 "Past the first 1,000": a reader keeps the first 1,000 input errors (by line)
// in full and only counts the rest, by reason (inputErrorReasons.ts), so a file of millions
// of bad lines holds a thousand errors, not millions (docs/security.md, "Input errors").
import { INPUT_ERROR_REASONS, inputErrorReason, type InputErrorReason } from './inputErrorReasons.ts';

/** contract §2.5: input errors listed in full; the rest are counted by reason. */
export const LISTED_INPUT_ERRORS = 1000;

/** contract §6.1 `input_errors_omitted`: the errors past the listed ones, counted. */
export interface OmittedInputErrors {
  count: number;
  /** count per reason, in INPUT_ERROR_REASONS order, only the reasons that occur */
  by_reason: Partial<Record<InputErrorReason, number>>;
}

/**
 * The first `limit` errors in line order, ties in arrival order, as a stable sort of every
 * error would list them; errors mostly arrive in line order, but not always (an adapter
 * lets a held record go at the end of the file). Up to twice the limit is held: when the
 * list reaches that, it is sorted and cut back to the limit, the errors cut are counted.
 * An error cut can never come back (only lower lines can push it further down), so the
 * count is exact; the work is O(n log limit) for n errors.
 */
export class InputErrorList<E extends { line: number; message: string }> {
  private kept: E[] = [];
  private sorted = true;
  private omittedCount = 0;
  private readonly byReason = new Map<InputErrorReason, number>();
  /** errors added in all */
  total = 0;

  constructor(
    readonly limit = LISTED_INPUT_ERRORS,
    /** called with each error cut from the list (the Worker forgets what it kept beside it) */
    private readonly onCut?: (error: E) => void,
  ) {}

  add(error: E): void {
    this.total++;
    const last = this.kept[this.kept.length - 1];
    if (last !== undefined && error.line < last.line) this.sorted = false;
    this.kept.push(error);
    if (this.kept.length >= 2 * this.limit) this.cut();
  }

  /** Errors held now: at most twice the limit, whatever was added (what bounds the memory). */
  get held(): number {
    return this.kept.length;
  }

  /** The listed errors, in line order (at most `limit`). */
  listed(): E[] {
    this.cut();
    return this.kept.slice();
  }

  /** What was counted and not listed, or null when every error is listed (then the output is as before the cap). */
  omitted(): OmittedInputErrors | null {
    this.cut();
    if (this.omittedCount === 0) return null;
    const by_reason: Partial<Record<InputErrorReason, number>> = {};
    for (const reason of INPUT_ERROR_REASONS) {
      const n = this.byReason.get(reason);
      if (n !== undefined) by_reason[reason] = n;
    }
    return { count: this.omittedCount, by_reason };
  }

  private cut(): void {
    // Array.prototype.sort is stable: equal lines keep their arrival order
    if (!this.sorted) this.kept.sort((a, b) => a.line - b.line);
    this.sorted = true;
    if (this.kept.length <= this.limit) return;
    for (let i = this.limit; i < this.kept.length; i++) {
      const e = this.kept[i]!;
      this.omittedCount++;
      const reason = inputErrorReason(e.message);
      this.byReason.set(reason, (this.byReason.get(reason) ?? 0) + 1);
      this.onCut?.(e);
    }
    this.kept.length = this.limit;
  }
}
