// Array helpers for lists whose length the input decides. A spread in a call's arguments
// (`out.push(...ids)`, `Math.max(...xs)`, `String.fromCharCode(...bytes)`) puts every element
// on the stack: past about 120k elements it throws "Maximum call stack size exceeded" and
// takes the whole read with it (docs/security.md, "Importers"). The lint rule in
// eslint.config.js refuses such spreads; these are the loops to use instead.

/** Appends every item of `items` to `target`, in order (`target.push(...items)` without the stack). */
export function appendAll<T>(target: T[], items: readonly T[]): T[] {
  for (let i = 0; i < items.length; i++) target.push(items[i]!);
  return target;
}

/** A typed column that grows (doubling) as the things it is indexed by are numbered. */
type Column = Float64Array<ArrayBuffer> | Int32Array<ArrayBuffer> | Uint8Array<ArrayBuffer>;

/** `column` when it has room for `length` entries, else a copy of it with room for at least that many (twice its size when that is more). */
export function grownTo<T extends Column>(column: T, length: number): T {
  if (column.length >= length) return column;
  const grown = new (column.constructor as new (length: number) => T)(Math.max(length, 2 * column.length));
  grown.set(column);
  return grown;
}

/** The largest of `xs`, or `floor` when larger or when `xs` is empty (`Math.max(floor, ...xs)`). */
export function maxOf(xs: readonly number[], floor = -Infinity): number {
  let m = floor;
  for (let i = 0; i < xs.length; i++) if (xs[i]! > m || Number.isNaN(xs[i]!)) m = xs[i]!;
  return m;
}
