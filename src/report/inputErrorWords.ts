// The words for input errors that are not shown one by one (contract §2.5 "Past the first
// 1,000"): `check`'s human output, its batch rows and the dashboard's list say the same.
import { INPUT_ERROR_REASONS, inputErrorReason, type InputErrorReason } from '../core/inputErrorReasons.ts';
import type { OmittedInputErrors } from '../core/inputErrorList.ts';

/** "not-json: 13998980, bad-field: 20": the most frequent reason first, ties in contract §2.5 order. */
export function reasonCounts(counts: ReadonlyMap<InputErrorReason, number>): string {
  return [...counts]
    .sort((a, b) => b[1] - a[1] || INPUT_ERROR_REASONS.indexOf(a[0]) - INPUT_ERROR_REASONS.indexOf(b[0]))
    .map(([reason, n]) => `${reason}: ${n}`)
    .join(', ');
}

/**
 * The reasons of the errors not shown: those listed but past what is shown (`unshown`), and
 * those only counted (`omitted`).
 */
export function unshownReasons(unshown: Iterable<{ message: string }>, omitted: OmittedInputErrors | undefined | null): Map<InputErrorReason, number> {
  const counts = new Map<InputErrorReason, number>();
  for (const e of unshown) {
    const reason = inputErrorReason(e.message);
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  for (const reason of INPUT_ERROR_REASONS) {
    const n = omitted?.by_reason[reason];
    if (n !== undefined) counts.set(reason, (counts.get(reason) ?? 0) + n);
  }
  return counts;
}

/** "… and 13999980 more input errors (not-json: 13999980)" */
export function moreInputErrorsWords(more: number, counts: ReadonlyMap<InputErrorReason, number>): string {
  return `… and ${more} more input error${more === 1 ? '' : 's'} (${reasonCounts(counts)})`;
}

/**
 * A file's input errors in a few words (`check`'s batch rows): "3 input errors", or past the
 * first 1,000 "14000000 input errors: the first 1000 listed, … and 13999000 more (not-json: 13999000)".
 */
export function inputErrorsNote(listed: number, omitted: OmittedInputErrors | undefined | null): string {
  const total = listed + (omitted?.count ?? 0);
  const count = `${total} input error${total === 1 ? '' : 's'}`;
  if (omitted == null) return count;
  return `${count}: the first ${listed} listed, … and ${omitted.count} more (${reasonCounts(unshownReasons([], omitted))})`;
}
