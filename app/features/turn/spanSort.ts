// The span table's order: problems first (the default: stale, unbound, unscored, then by
// rewrites), the snapshot's own order, or one column up or down (issue 24: the table can be
// sorted). Pure, so the order is tested without a browser.
import type { SpanRow } from '../../../src/worker/client.ts';

export type SpanColumn = 'span' | 'score' | 'binding' | 'rewrites' | 'tokens';
export type SpanOrder = { by: 'problems' } | { by: 'snapshot' } | { by: SpanColumn; dir: 'ascending' | 'descending' };

export const SPAN_COLUMNS: readonly { key: SpanColumn; name: string }[] = [
  { key: 'span', name: 'span' },
  { key: 'score', name: 'score' },
  { key: 'binding', name: 'binding' },
  { key: 'rewrites', name: 'rewrites' },
  { key: 'tokens', name: 'tokens' },
];

/** Worst binding first (contract §4.3): what a person checking a stale score looks for. */
const BINDING_ORDER = { stale: 0, unbound: 1, unscored: 2, bound: 3 } as const;

/** A column's first click: names and bindings from the top, numbers largest first. */
export function firstDirection(column: SpanColumn): 'ascending' | 'descending' {
  return column === 'span' || column === 'binding' ? 'ascending' : 'descending';
}

/** The order after a click on `column`'s header: that column, its direction flipped on a second click. */
export function clicked(order: SpanOrder, column: SpanColumn): SpanOrder {
  if (order.by === column && 'dir' in order) return { by: column, dir: order.dir === 'ascending' ? 'descending' : 'ascending' };
  return { by: column, dir: firstDirection(column) };
}

const name = (s: SpanRow): string => s.label ?? s.spanId;
const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

function compare(column: SpanColumn, a: SpanRow, b: SpanRow): number {
  switch (column) {
    case 'span':
      return collator.compare(name(a), name(b));
    case 'score':
      return (a.score ?? 0) - (b.score ?? 0);
    case 'binding':
      return BINDING_ORDER[a.binding] - BINDING_ORDER[b.binding];
    case 'rewrites':
      return a.rewrites - b.rewrites;
    case 'tokens':
      return a.tokens - b.tokens;
  }
}

/** The rows in `order`; ties keep the snapshot's order, and a span with no score sorts after every score either way. */
export function sortSpans(rows: readonly SpanRow[], order: SpanOrder): SpanRow[] {
  if (order.by === 'snapshot') return [...rows];
  if (order.by === 'problems') return [...rows].sort((a, b) => BINDING_ORDER[a.binding] - BINDING_ORDER[b.binding] || b.rewrites - a.rewrites);
  const { by, dir } = order;
  const sign = dir === 'ascending' ? 1 : -1;
  return [...rows].sort((a, b) => {
    if (by === 'score' && (a.score === null) !== (b.score === null)) return a.score === null ? 1 : -1;
    return sign * compare(by, a, b);
  });
}
